/**
 * OpenTelemetry traces, opt-in by the standard environment: OTEL_TRACES_EXPORTER=otlp, or an OTLP endpoint
 * (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces), exports OTLP/HTTP (JSON);
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none keeps it off. OTEL_SERVICE_NAME names the service
 * (default openregion), OTEL_BSP_SCHEDULE_DELAY the export period. Spans come from util/tracing.ts.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export interface Tracing {
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

/** Where spans go, from the OTEL_* environment; undefined when tracing is off. */
export function tracesEndpoint(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (traces !== undefined && traces !== '') return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (base !== undefined && base !== '') return `${base.replace(/\/+$/, '')}/v1/traces`;
  // The specification's default endpoint, when the exporter is asked for by name alone.
  return env.OTEL_TRACES_EXPORTER === 'otlp' ? 'http://localhost:4318/v1/traces' : undefined;
}

/** Registers the SDK globally when the environment asks for traces. */
export function startTracing(env: Readonly<Record<string, string | undefined>>, version: string): Tracing | undefined {
  const url = tracesEndpoint(env);
  if (url === undefined) return undefined;
  const delay = Number(env.OTEL_BSP_SCHEDULE_DELAY);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME ?? 'openregion',
      'service.version': version,
    }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url }),
        ...(Number.isFinite(delay) && delay > 0 ? { scheduledDelayMillis: delay } : {}),
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * Spans through the OpenTelemetry API. Without an SDK registered (tracing is opt-in, cli/tracing.ts) every call here
 * is a no-op. A create stamps the W3C traceparent of the request that made it on the object (TRACEPARENT_ANNOTATION),
 * and the reconciles the object causes open their spans under it, so a slow provisioning is followed from the REST
 * request to the Nova call. Attributes name operations and objects, never a credential or a body.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';

export { SpanKind, type Span } from '@opentelemetry/api';

/** The annotation carrying the traceparent of the request that created an object. */
export const TRACEPARENT_ANNOTATION = 'openregion.io/traceparent';

const TRACER = 'openregion';

interface SpanOptions {
  readonly kind?: SpanKind;
  readonly attributes?: Attributes;
  /** The parent: a context (from `contextOf`); the active context when omitted. */
  readonly parent?: Context;
}

/** Runs `fn` inside a new span (made active), ending it when `fn` settles; a throw marks the span an error. */
export async function withSpan<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const tracer = trace.getTracer(TRACER);
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
    throw error;
  } finally {
    span.end();
  }
}

/** Starts a span the caller ends (a REST request's, ended when its answer is sent). */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  const span = trace
    .getTracer(TRACER)
    .startSpan(
      name,
      { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
      parent,
    );
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs `fn` with `ctx` active. */
export function runIn<T>(ctx: Context, fn: () => T): T {
  return context.with(ctx, fn);
}

/** The active span's W3C traceparent, when a span is recording; undefined without tracing. */
export function activeTraceparent(): string | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent;
}

/** The context a carrier of W3C headers names (incoming `traceparent`), or the root context. */
export function contextOf(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  const carrier: Record<string, string> = {};
  for (const key of ['traceparent', 'tracestate']) {
    const value = headers[key];
    if (typeof value === 'string') carrier[key] = value;
  }
  return propagation.extract(ROOT_CONTEXT, carrier);
}

/** Marks a span failed by an HTTP status (5xx for a server, 4xx and 5xx for a client, as the conventions say). */
export function setHttpStatus(span: Span, status: number, client: boolean): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500 || (client && status >= 400)) span.setStatus({ code: SpanStatusCode.ERROR });
}

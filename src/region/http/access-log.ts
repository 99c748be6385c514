/**
 * What an operator sees of every request: one access-log line (method, route template, status, duration, the
 * principal's subject, the request id) and the RED metrics by route template (`http_requests_total`,
 * `http_request_duration_seconds`). A client's `X-Request-Id` is kept when it is a plain token, else one is made;
 * either way the answer carries it back. Nothing else of the request is read: never a header's value besides that
 * id, never the query string, never a body (so never a token).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../../runtime/types.ts';
import { contextOf, runIn, setHttpStatus, SpanKind, startSpan, type Span } from '../../util/tracing.ts';
import { principalOf } from './principal.ts';

export const REQUEST_ID_HEADER = 'x-request-id';

/** A request id a client may choose: a token of at most 128 safe characters (a UUID, a trace id, a ULID …). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The label of a request no route matched: a fixed value, so a scanner's paths cannot mint series. */
const UNMATCHED_ROUTE = 'unmatched';

/** Probes and scrapes arrive every few seconds from machines: their lines are debug, everything else info. */
const MACHINE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/metrics']);

/** Buckets for an API answered from a store: 5 ms to 10 s. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const requestIDs = new WeakMap<FastifyRequest, string>();
const spans = new WeakMap<FastifyRequest, Span>();

interface AccessLogOptions {
  readonly log?: Logger | undefined;
  /** Where the RED metrics go; none without one. */
  readonly metrics?: Registry | undefined;
}

interface RequestMetrics {
  readonly total: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
}

/** The RED metrics on `registry`, created once however many APIs share it. */
function requestMetrics(registry: Registry): RequestMetrics {
  const total =
    (registry.getSingleMetric('http_requests_total') as Counter<'method' | 'route' | 'status'> | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as Histogram<'method' | 'route'> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request arriving to its answer being sent, by method and route template',
      labelNames: ['method', 'route'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  return { total, duration };
}

/** Adds the hooks; call before any other onRequest hook so a request refused early (429, 401) is seen too. */
export function observeRequests(app: FastifyInstance, options: AccessLogOptions): void {
  const metrics = options.metrics === undefined ? undefined : requestMetrics(options.metrics);
  app.addHook('onRequest', (request, reply, done) => {
    const offered = request.headers[REQUEST_ID_HEADER];
    const id = typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    requestIDs.set(request, id);
    reply.header(REQUEST_ID_HEADER, id);
    // The request's span, a child of the caller's traceparent if it sent one; the handler runs inside it, so a
    // create stamps it on the object it makes (Repository) and the object's reconciles follow on from it.
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const { span, context } = startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent: contextOf(request.headers),
      attributes: { 'http.request.method': request.method, 'http.route': route, 'openregion.request_id': id },
    });
    spans.set(request, span);
    runIn(context, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = reply.statusCode;
    const seconds = reply.elapsedTime / 1000;
    const span = spans.get(request);
    if (span !== undefined) {
      setHttpStatus(span, status, false);
      span.end();
    }
    metrics?.total.inc({ method: request.method, route, status: String(status) });
    metrics?.duration.observe({ method: request.method, route }, seconds);
    const log = options.log;
    if (log !== undefined) {
      const level = MACHINE_PATHS.has(route) ? 'debug' : 'info';
      log[level](
        {
          method: request.method,
          route,
          status,
          durationMs: Math.round(reply.elapsedTime * 10) / 10,
          subject: subjectOf(request),
          requestID: requestIDs.get(request),
        },
        'request',
      );
    }
    done();
  });
}

function subjectOf(request: FastifyRequest): string | undefined {
  try {
    return principalOf(request).subject;
  } catch {
    return undefined;
  }
}

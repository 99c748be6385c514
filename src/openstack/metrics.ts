/**
 * Every OpenStack call as Prometheus series, from the transport's per-attempt report (the one the benchmarks count):
 * attempts by service, operation (method and path template) and status, and their latency. The path template, never
 * the URL, names the operation, so ids never become labels.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { RequestEvent, RequestObserver } from './transport.ts';

/** 10 ms to a minute: a Nova create answers in a second, a Cinder delete can take a minute. */
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The transport observer writing `openregion_openstack_requests_total` and its latency histogram on `registry`. */
export function openstackRequestMetrics(registry: Registry): RequestObserver {
  const requests = new Counter({
    name: 'openregion_openstack_requests_total',
    help: 'OpenStack API attempts (retries included) by service, operation and HTTP status ("error": no answer)',
    labelNames: ['service', 'operation', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'openregion_openstack_request_duration_seconds',
    help: 'Latency of OpenStack API attempts by service and operation',
    labelNames: ['service', 'operation'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  return (event: RequestEvent) => {
    const labels = { service: event.serviceType, operation: `${event.method} ${event.urlTemplate}` };
    requests.inc({ ...labels, status: String(event.status) });
    duration.observe(labels, event.durationMs / 1000);
  };
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { openstackRequestMetrics } from './metrics.ts';

describe('OpenStack call metrics', () => {
  it('counts attempts by service, operation and status, and observes their latency', async () => {
    const registry = new Registry();
    const observe = openstackRequestMetrics(registry);
    const site = { serviceType: 'compute', method: 'POST', urlTemplate: '/servers' };
    observe({ ...site, status: 202, durationMs: 1000, attempt: 0 });
    observe({ ...site, status: 503, durationMs: 250, attempt: 0 });
    observe({ ...site, status: 'error', durationMs: 0, attempt: 1 });
    const text = await registry.metrics();
    assert.match(
      text,
      /^openregion_openstack_requests_total\{service="compute",operation="POST \/servers",status="202"\} 1$/m,
    );
    assert.match(
      text,
      /^openregion_openstack_requests_total\{service="compute",operation="POST \/servers",status="503"\} 1$/m,
    );
    assert.match(
      text,
      /^openregion_openstack_requests_total\{service="compute",operation="POST \/servers",status="error"\} 1$/m,
    );
    assert.match(
      text,
      /^openregion_openstack_request_duration_seconds_count\{service="compute",operation="POST \/servers"\} 3$/m,
    );
    assert.match(
      text,
      /^openregion_openstack_request_duration_seconds_sum\{service="compute",operation="POST \/servers"\} 1\.25$/m,
    );
  });
});

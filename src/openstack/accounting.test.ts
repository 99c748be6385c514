import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestAccounting } from './accounting.ts';
import { startHarness, type Harness } from './testing/harness.ts';
import type { RequestEvent } from './transport.ts';

const event = (overrides: Partial<RequestEvent> = {}): RequestEvent => ({
  serviceType: 'compute',
  method: 'GET',
  urlTemplate: '/servers/{server_id}',
  status: 200,
  durationMs: 10,
  attempt: 0,
  ...overrides,
});

describe('RequestAccounting', () => {
  it('counts requests by service, method and URL template', () => {
    const a = new RequestAccounting();
    a.observe(event());
    a.observe(event({ durationMs: 5 }));
    a.observe(event({ method: 'DELETE' }));
    a.observe(event({ urlTemplate: '/servers' }));
    a.observe(event({ serviceType: 'network', urlTemplate: '/servers/{server_id}' }));
    const counts = a.counts();
    assert.equal(counts.length, 4);
    assert.deepEqual(counts[0], {
      serviceType: 'compute',
      method: 'GET',
      urlTemplate: '/servers/{server_id}',
      requests: 2,
      retries: 0,
      failures: 0,
      totalMs: 15,
    });
    for (const c of counts.slice(1)) assert.equal(c.requests, 1);
  });

  it('counts retries as attempts after the first', () => {
    const a = new RequestAccounting();
    a.observe(event({ attempt: 0, status: 503 }));
    a.observe(event({ attempt: 1, status: 503 }));
    a.observe(event({ attempt: 2, status: 200 }));
    const c = a.counts()[0];
    assert.ok(c);
    assert.equal(c.requests, 3);
    assert.equal(c.retries, 2);
    assert.equal(c.failures, 2);
  });

  it('counts statuses of 400 and above, and no answer at all, as failures', () => {
    const a = new RequestAccounting();
    for (const status of [200, 201, 204, 302, 399, 400, 404, 409, 500, 'error'] as const) a.observe(event({ status }));
    assert.equal(a.counts()[0]?.failures, 5);
  });

  it('sorts by requests, most first, then by service and template', () => {
    const a = new RequestAccounting();
    a.observe(event({ serviceType: 'network', urlTemplate: '/ports' }));
    a.observe(event({ serviceType: 'compute', urlTemplate: '/servers' }));
    a.observe(event({ serviceType: 'image', urlTemplate: '/images' }));
    a.observe(event({ serviceType: 'image', urlTemplate: '/images' }));
    assert.deepEqual(
      a.counts().map((c) => `${c.serviceType}${c.urlTemplate}`),
      ['image/images', 'compute/servers', 'network/ports'],
    );
  });

  it('totals requests, filtered by any of service, method and template', () => {
    const a = new RequestAccounting();
    a.observe(event());
    a.observe(event({ attempt: 1 }));
    a.observe(event({ method: 'DELETE' }));
    a.observe(event({ urlTemplate: '/servers' }));
    a.observe(event({ serviceType: 'network', urlTemplate: '/ports', method: 'POST' }));
    assert.equal(a.total(), 5);
    assert.equal(a.total({ serviceType: 'compute' }), 4);
    assert.equal(a.total({ serviceType: 'network' }), 1);
    assert.equal(a.total({ method: 'GET' }), 3);
    assert.equal(a.total({ urlTemplate: '/servers/{server_id}' }), 3);
    assert.equal(a.total({ serviceType: 'compute', method: 'GET', urlTemplate: '/servers/{server_id}' }), 2);
    assert.equal(a.total({ serviceType: 'network', method: 'GET' }), 0);
    assert.equal(a.total({ serviceType: 'placement' }), 0);
  });

  it('forgets everything on reset', () => {
    const a = new RequestAccounting();
    a.observe(event());
    a.reset();
    assert.deepEqual(a.counts(), []);
    assert.equal(a.total(), 0);
    a.observe(event());
    assert.equal(a.total(), 1);
  });

  it('works detached from its instance, as a transport observer is called', () => {
    const a = new RequestAccounting();
    const { observe } = a;
    observe(event());
    assert.equal(a.total(), 1);
  });
});

describe('RequestAccounting as the transport’s observer', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('counts each request by its template, not its URL', async () => {
    h.cloud.on('GET', '/compute/v2.1/servers/:id', (_req, p) => ({ body: { server: { id: p.id } } }));
    h.cloud.on('GET', '/compute/v2.1/flavors/:id', { status: 404, body: { itemNotFound: { message: 'no' } } });
    h.accounting.reset();
    const compute = h.session.client('compute');
    for (const id of ['s-1', 's-2']) {
      await compute.request({ method: 'GET', path: '/servers/{server_id}', params: { server_id: id } });
    }
    await assert.rejects(compute.request({ method: 'GET', path: '/flavors/{flavor_id}', params: { flavor_id: 'f' } }));
    assert.equal(h.accounting.total({ serviceType: 'compute', urlTemplate: '/servers/{server_id}' }), 2);
    const flavor = h.accounting.counts().find((c) => c.urlTemplate === '/flavors/{flavor_id}');
    assert.equal(flavor?.failures, 1);
    assert.ok(h.accounting.counts().every((c) => !c.urlTemplate.includes('s-1')));
  });
});

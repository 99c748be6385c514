import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { controlPlaneCrd } from '../../keystone/apis/controlplane.ts';
import { keystoneUserCrd } from '../../keystone/apis/keystoneuser.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { Principal } from '../../region/http/auth.ts';
import { buildApi } from '../../region/http/app.ts';
import { problems } from '../../region/http/problem.ts';
import type { Api } from '../../region/http/routes/kit.ts';
import { allCapabilities } from '../../region/http/testing/api.ts';
import { RuntimeMetrics } from '../../runtime/metrics.ts';
import { ManualClock } from '../../util/clock.ts';
import { openstackRequestMetrics } from '../../openstack/metrics.ts';
import { controllerRows, OPERATOR_PATH } from './operator.ts';
import { mountConsole } from './routes.ts';
import { defined } from '../../util/defined.ts';

const principals: Readonly<Record<string, Principal>> = {
  'Bearer operator': { subject: 'op', organizationIDs: ['o'], operator: true },
  'Bearer tenant': { subject: 'tenant', organizationIDs: ['o'] },
};

describe("the console's operator API", () => {
  let store: EmbeddedStore;
  let app: Api;
  const metrics = new RuntimeMetrics();
  const call = async (token: string, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) => {
    const answer = await app.inject({
      method,
      url: `${OPERATOR_PATH}${path}`,
      headers: { authorization: `Bearer ${token}` },
      ...defined({ payload }),
    });
    return { status: answer.statusCode, json: answer.body === '' ? undefined : answer.json<unknown>() };
  };

  before(async () => {
    const clock = new ManualClock();
    store = openEmbeddedStore(':memory:', { clock, garbageCollection: false });
    await store.create(builtin.customResourceDefinition, keystoneUserCrd());
    await store.create(builtin.customResourceDefinition, controlPlaneCrd());
    app = await buildApi({
      client: store,
      namespace: 'unikorn-region',
      clock,
      newID: () => 'id',
      authenticate: (header) => {
        const principal = principals[header ?? ''];
        return principal === undefined ? Promise.reject(problems.unauthorized()) : Promise.resolve(principal);
      },
      capabilities: allCapabilities,
    });
    mountConsole(app, { operator: { client: store, metrics: metrics.registry } });
  });
  after(async () => {
    await app.close();
    await store.close();
  });

  it('answers only a token with the operator claim', async () => {
    assert.equal((await call('tenant', 'GET', '/keystoneusers')).status, 403);
    assert.equal((await call('nobody', 'GET', '/keystoneusers')).status, 401);
    assert.equal((await call('operator', 'GET', '/keystoneusers')).status, 200);
  });

  it('places an order, reads it with its ControlPlane and no secret, and deletes it', async () => {
    const placed = await call('operator', 'POST', '/keystoneusers', {
      namespace: 'default',
      name: 'workflow',
      controlPlane: 'demo',
    });
    assert.equal(placed.status, 201, JSON.stringify(placed.json));
    assert.deepEqual(placed.json, { namespace: 'default', name: 'workflow', controlPlane: 'demo', conditions: [] });
    const again = await call('operator', 'POST', '/keystoneusers', {
      namespace: 'default',
      name: 'workflow',
      controlPlane: 'demo',
    });
    assert.equal(again.status, 422);
    assert.equal((again.json as { errors: { pointer: string }[] }).errors[0]?.pointer, '/name');
    const { json } = await call('operator', 'GET', '/keystoneusers');
    assert.deepEqual(
      (json as { name: string }[]).map((o) => o.name),
      ['workflow'],
    );
    assert.equal((await call('operator', 'DELETE', '/keystoneusers/default/workflow')).status, 202);
    assert.equal((await call('operator', 'DELETE', '/keystoneusers/default/workflow')).status, 404);
  });

  it("names the field and the rule of a bad order, as the API's problem documents do", async () => {
    const bad = await call('operator', 'POST', '/keystoneusers', {
      namespace: 'Not A Label',
      name: 'ok',
      controlPlane: 'demo',
    });
    assert.equal(bad.status, 400);
    const errors = (bad.json as { errors: { pointer: string; rule: string }[] }).errors;
    assert.deepEqual(
      errors.map((e) => [e.pointer, e.rule]),
      [['/namespace', 'pattern']],
    );
    const nowhere = await call('operator', 'POST', '/keystoneusers', {
      namespace: 'absent',
      name: 'ok',
      controlPlane: 'demo',
    });
    assert.equal(nowhere.status, 422);
  });

  it('reads each controller’s queue depth, passes, errors and retries from the runtime’s metrics', async () => {
    metrics.reconcileTotal.inc({ controller: 'servers', result: 'success' }, 3);
    metrics.reconcileTotal.inc({ controller: 'servers', result: 'error' }, 2);
    metrics.reconcileErrors.inc({ controller: 'servers' }, 2);
    metrics.queueDepth.set({ name: 'servers' }, 4);
    metrics.queueRetries.inc({ name: 'networks' }, 1);
    const { status, json } = await call('operator', 'GET', '/controllers');
    assert.equal(status, 200);
    assert.deepEqual(json, [
      { name: 'networks', queueDepth: 0, reconciles: 0, errors: 0, retries: 1 },
      { name: 'servers', queueDepth: 4, reconciles: 5, errors: 2, retries: 0 },
    ]);
    assert.deepEqual(controllerRows([{ name: 'workqueue_depth', values: [{ labels: {}, value: 9 }] }]), []);
  });

  it("reads each OpenStack service's calls, failures and total latency from the transport's series", async () => {
    const observe = openstackRequestMetrics(metrics.registry);
    const call1 = { serviceType: 'compute', method: 'GET', urlTemplate: '/servers/{id}' };
    observe({ ...call1, status: 200, durationMs: 250 } as Parameters<typeof observe>[0]);
    observe({ ...call1, status: 503, durationMs: 1000 } as Parameters<typeof observe>[0]);
    observe({ ...call1, serviceType: 'network', status: 'error', durationMs: 500 } as Parameters<typeof observe>[0]);
    const { status, json } = await call('operator', 'GET', '/openstack');
    assert.equal(status, 200);
    assert.deepEqual(json, [
      { service: 'compute', requests: 2, errors: 1, latencySeconds: 1.25 },
      { service: 'network', requests: 1, errors: 1, latencySeconds: 0.5 },
    ]);
    assert.equal((await call('tenant', 'GET', '/openstack')).status, 403);
  });
});

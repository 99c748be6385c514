/**
 * A quota update the policy refuses is asked once per identity, not on every re-check, and explained once at info;
 * a new client set (new region credentials, or a restart) asks again.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { IdentityInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { capturedLogger } from '../../../runtime/testing/logger.ts';
import { regionFixture, type RegionFixture } from '../testing/region.ts';
import { createIdentity, deleteIdentity } from './lifecycle.ts';

describe('identity quotas a policy refuses', () => {
  let fx: RegionFixture;
  before(async () => {
    fx = await regionFixture('configured');
  });
  after(() => fx.close());

  const newIdentity = (): IdentityInput => ({
    id: randomUUID(),
    organizationID: `org-${randomUUID()}`,
    projectID: `proj-${randomUUID()}`,
    regionID: fx.region.metadata.name,
  });
  const ctx = { signal: new AbortController().signal };
  const networkQuotaPuts = () =>
    fx.transport.requests.filter((r) => r.method === 'PUT' && r.urlTemplate === '/quotas/{project_id}').length;

  it('are asked once per identity, explained once at info with the fix, and asked again by a new client set', async () => {
    const refuse = { route: '/network/v2.0/quotas/{project_id}', method: 'PUT', status: 403, count: 1000 };
    assert.equal(await fx.control('POST', '/faults', refuse), 201);
    const { log, records } = capturedLogger();
    const deps = { kube: fx.store, log };
    const region = await (await fx.registry()).lookup(fx.region.metadata.name);
    const first = newIdentity();
    const second = newIdentity();
    try {
      const before = networkQuotaPuts();
      for (let pass = 0; pass < 4; pass++) {
        assert.deepEqual(await createIdentity(region, deps, ctx, first), Outcome.ok());
      }
      assert.equal(networkQuotaPuts() - before, 1, 'the re-checks do not ask again');
      assert.deepEqual(await createIdentity(region, deps, ctx, second), Outcome.ok());
      assert.deepEqual(await createIdentity(region, deps, ctx, second), Outcome.ok());
      assert.equal(networkQuotaPuts() - before, 2, 'another identity is asked, once');

      const refusals = records().filter((r) => String(r.msg).startsWith('quota update refused by policy'));
      assert.equal(refusals.length, 2);
      assert.deepEqual(
        refusals.map((r) => r.level),
        ['info', 'debug'],
        'info once, with the fix; debug after that',
      );
      assert.deepEqual(refusals[0]?.services, ['network']);
      assert.match(String(refusals[0].fix), /admin/);
      assert.equal(
        records().filter((r) => r.level === 'warn' || r.level === 'error' || r.level === 'fatal').length,
        0,
        'no warning for a refusal the operator chose',
      );

      // A restarted process, or new credentials in the region's Secret, builds a new client set: it asks again.
      const rebuilt = await (await fx.registry()).lookup(fx.region.metadata.name);
      assert.notEqual(rebuilt.clients, region.clients);
      assert.deepEqual(await createIdentity(rebuilt, deps, ctx, first), Outcome.ok());
      assert.equal(networkQuotaPuts() - before, 3);
    } finally {
      assert.equal(await fx.control('DELETE', '/faults'), 204);
      for (const identity of [first, second]) {
        assert.deepEqual(await deleteIdentity(region, deps, ctx, identity), Outcome.ok());
      }
    }
  });
});

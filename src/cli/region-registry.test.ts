import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../kube/client.ts';
import { builtin } from '../kube/resource-type.ts';
import { Transport } from '../openstack/transport.ts';
import { regionType } from '../region/apis/region.ts';
import { clientSetFactory } from '../region/openstack/registry.ts';
import { regionFixture, type RegionFixture } from '../region/openstack/testing/region.ts';
import { silentLogger } from '../runtime/logger.ts';
import { ManualScheduler } from '../runtime/scheduler.ts';
import { startRegionRegistry } from './region-registry.ts';

/** The store, counting the reads that reach it by kind: what an API server would be asked. */
function counting(store: Client): { client: Client; gets: Map<string, number> } {
  const gets = new Map<string, number>();
  const client = new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== 'get' || typeof value !== 'function') return value;
      return (type: { plural: string }, ...rest: unknown[]) => {
        gets.set(type.plural, (gets.get(type.plural) ?? 0) + 1);
        return (value as (...args: unknown[]) => unknown).call(target, type, ...rest);
      };
    },
  });
  return { client, gets };
}

describe('startRegionRegistry (serve): bootstrap uncached, runtime lookups from informers', () => {
  let fx: RegionFixture;
  let transport: Transport;
  before(async () => {
    fx = await regionFixture();
    transport = new Transport({
      clock: fx.clock,
      random: () => 0,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
    });
  });
  after(async () => {
    await transport.close();
    await fx.close();
  });

  /** The registry over `client`, with the fixture's cloud and a manual scheduler. */
  const startOver = (client: Client, options: { checkVersions?: boolean } = {}) =>
    startRegionRegistry({
      client,
      namespace: fx.namespace,
      clientSets: clientSetFactory({ transport, clock: fx.clock, region: 'RegionOne' }),
      scheduler: new ManualScheduler(fx.clock),
      log: silentLogger(),
      ...options,
    });

  it('a provider lookup reads neither the Region nor its Secret from the API server once started', async () => {
    const { client, gets } = counting(fx.store);
    const started = await startOver(client);
    try {
      const regionID = fx.region.metadata.name;
      const atStart = new Map(gets);
      assert.equal(atStart.get('secrets'), 1, 'bootstrap reads the Secret uncached, once');
      for (let i = 0; i < 25; i++) await started.registry.lookup(regionID);
      assert.equal(gets.get(regionType.plural) ?? 0, atStart.get(regionType.plural) ?? 0, 'no Region GET per lookup');
      assert.equal(gets.get(builtin.secret.plural), atStart.get('secrets'), 'no Secret GET per lookup');

      // A rotated password reaches the next lookup through the watch, and rebuilds the client set.
      const before = await started.registry.lookup(regionID);
      const secret = await fx.store.get(builtin.secret, fx.namespace, 'region-credentials');
      const data = { ...(secret.data as Record<string, string>), password: Buffer.from('rotated').toString('base64') };
      await fx.store.update(builtin.secret, { ...secret, data });
      let rebuilt = before;
      for (let i = 0; i < 500 && rebuilt.clients === before.clients; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        rebuilt = await started.registry.lookup(regionID);
      }
      assert.notEqual(rebuilt.clients, before.clients, 'the changed Secret was seen');
      assert.equal(gets.get(builtin.secret.plural), atStart.get('secrets'), 'still without a GET');
    } finally {
      await started.close();
    }
  });

  it('a Region created after start-up is found on its first lookup (a cache miss reads through)', async () => {
    const { client } = counting(fx.store);
    const started = await startOver(client, { checkVersions: false });
    try {
      const late = await fx.store.create(regionType, {
        ...fx.region,
        metadata: { name: 'late', namespace: fx.namespace },
      });
      assert.equal((await started.registry.lookup('late')).region.metadata.name, late.metadata.name);
    } finally {
      await started.close();
    }
  });
});

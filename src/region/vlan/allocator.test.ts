import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Client } from '../../kube/client.ts';
import type { EmbeddedStore } from '../../kube/embedded/store.ts';
import { KubeConflictError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { ManualClock } from '../../util/clock.ts';
import { vlanAllocationType } from '../apis/vlan-allocation.ts';
import { isAllowed, type VlanSegment } from './decide-allocation.ts';
import {
  VlanAllocator,
  VlanConsistencyError,
  VlanContentionError,
  VlanExhaustedError,
  type VlanAllocatorOptions,
} from './allocator.ts';
import { regionStoresClosedAfter } from '../apis/testing/store.ts';
import { ForwardingClient } from '../../kube/forwarding-client.ts';
import { NAMESPACE, ScheduledClient } from './testing/store.ts';

const clock = new ManualClock();
const openStore = regionStoresClosedAfter();

async function open(): Promise<EmbeddedStore> {
  const store = await openStore(clock, { only: [vlanAllocationType] });
  return store;
}

function allocator(client: Client, segments?: VlanSegment[], extra: Partial<VlanAllocatorOptions> = {}) {
  return new VlanAllocator({
    client,
    namespace: NAMESPACE,
    regionName: 'r1',
    providerNetworks: { physicalNetwork: 'physnet1', vlan: { segments } },
    ...extra,
  });
}

const record = (client: Client) => client.get(vlanAllocationType, NAMESPACE, 'openstack.r1');

describe('VlanAllocator', () => {
  it('creates the region record on first use and hands out the lowest free ID of the segments', async () => {
    const store = await open();
    const vlans = allocator(store, [{ startId: 200, endId: 300 }]);
    assert.deepEqual(await vlans.allocate('net-a'), { physicalNetwork: 'physnet1', segmentationID: 200 });
    assert.deepEqual(await vlans.allocate('net-b'), { physicalNetwork: 'physnet1', segmentationID: 201 });
    assert.deepEqual((await record(store)).spec.allocations, [
      { id: 200, physicalNetworkID: 'net-a' },
      { id: 201, physicalNetworkID: 'net-b' },
    ]);
  });

  it('is idempotent per network and writes nothing the second time', async () => {
    const store = await open();
    const vlans = allocator(store);
    await vlans.allocate('net-a');
    const before = (await record(store)).metadata.resourceVersion;
    assert.equal((await vlans.allocate('net-a')).segmentationID, 1);
    assert.equal((await record(store)).metadata.resourceVersion, before);
    assert.equal(await vlans.lookup('net-a'), 1);
    assert.equal(await vlans.lookup('net-b'), undefined);
  });

  it('frees idempotently, and the freed ID is the lowest free again', async () => {
    const store = await open();
    const vlans = allocator(store);
    assert.deepEqual(await vlans.free('never'), [], 'a free before any record exists');
    await assert.rejects(record(store), { name: 'KubeNotFoundError' }, 'freeing creates nothing');
    for (const n of ['a', 'b', 'c']) await vlans.allocate(n);
    assert.deepEqual(await vlans.free('b'), [2]);
    assert.deepEqual(await vlans.free('b'), []);
    assert.equal((await vlans.allocate('d')).segmentationID, 2);
  });

  it('reports exhaustion as a typed error and writes nothing', async () => {
    const store = await open();
    const vlans = allocator(store, [{ startId: 7, endId: 8 }]);
    await vlans.allocate('a');
    await vlans.allocate('b');
    const before = await record(store);
    await assert.rejects(vlans.allocate('c'), VlanExhaustedError);
    assert.deepEqual(await record(store), before);
    // With no allowed ID at all, not even the record is created.
    const empty = await open();
    await assert.rejects(allocator(empty, [{ startId: 9, endId: 8 }]).allocate('a'), VlanExhaustedError);
    await assert.rejects(record(empty), { name: 'KubeNotFoundError' });
  });

  it('refuses a record that gives one network several IDs', async () => {
    const store = await open();
    await allocator(store).allocate('a');
    const current = await record(store);
    const twice = [...current.spec.allocations, { id: 9, physicalNetworkID: 'a' }];
    await store.update(vlanAllocationType, { ...current, spec: { allocations: twice } });
    await assert.rejects(allocator(store).allocate('a'), VlanConsistencyError);
  });

  it('gives up after the bounded number of lost races with a transient error', async () => {
    const store = await open();
    await allocator(store).allocate('a');
    let updates = 0;
    class AlwaysLoses extends ForwardingClient {
      override update<T extends KubeObject>(): Promise<T> {
        updates++;
        return Promise.reject(new KubeConflictError('lost'));
      }
    }
    await assert.rejects(
      allocator(new AlwaysLoses(store), undefined, { maxAttempts: 4 }).allocate('b'),
      VlanContentionError,
    );
    assert.equal(updates, 4);
  });

  it('keeps the allocation when the Neutron create fails, so the retry (even after a restart) reuses it', async () => {
    const store = await open();
    const neutron = new Map<string, number>();
    let failCreate = true;
    // The network provider's order: allocate, then create in Neutron; the VLAN is never freed on a failed create.
    const createNetwork = async (vlans: VlanAllocator, name: string) => {
      const { segmentationID } = await vlans.allocate(name);
      if (failCreate) throw new Error('neutron: 500');
      neutron.set(name, segmentationID);
    };
    await assert.rejects(createNetwork(allocator(store), 'net-a'), /neutron/);
    assert.equal(await allocator(store).lookup('net-a'), 1, 'kept after the failed create');
    await createNetwork(allocator(store), 'net-b').catch(() => undefined);
    failCreate = false;
    await createNetwork(allocator(store), 'net-a');
    assert.equal(neutron.get('net-a'), 1, 'the retry reused the kept ID');
    await createNetwork(allocator(store), 'net-b');
    assert.equal(neutron.get('net-b'), 2);
    assert.equal((await record(store)).spec.allocations.length, 2, 'no ID leaked by the failed passes');
  });

  it('two allocators interleaved by the scheduler: distinct IDs for live networks, nothing lost', async () => {
    const segments = [
      { startId: 10, endId: 12 },
      { startId: 3, endId: 5 },
    ];
    // Each network's operations run in order (a controller reconciles one object at a time); networks run at once.
    const lane = fc.array(fc.record({ free: fc.boolean(), by: fc.constantFrom(0, 1) }), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.array(lane, { minLength: 1, maxLength: 8 }), async (s, lanes) => {
        const store = await open();
        // A lost race means another write won, and there are at most 32 writes in a run: 40 attempts never run out.
        const pair = [0, 1].map((i) =>
          allocator(new ScheduledClient(store, s, `A${i}`), segments, { maxAttempts: 40 }),
        );
        const live = new Map<string, number>();
        const run = Promise.all(
          lanes.map(async (ops, n) => {
            const net = `net-${n}`;
            for (const op of ops) {
              const vlans = pair[op.by] ?? assert.fail('no such allocator');
              if (op.free) {
                const held = live.get(net);
                assert.deepEqual(await vlans.free(net), held === undefined ? [] : [held]);
                live.delete(net);
                continue;
              }
              try {
                const { segmentationID } = await vlans.allocate(net);
                const held = live.get(net);
                if (held !== undefined) assert.equal(segmentationID, held, 'idempotent');
                live.set(net, segmentationID);
              } catch (error) {
                if (!(error instanceof VlanExhaustedError)) throw error;
                assert.equal(live.get(net), undefined, 'a holder is never told exhausted');
              }
            }
          }),
        );
        await s.waitFor(run);
        const ids = [...live.values()];
        assert.equal(new Set(ids).size, ids.length, 'every live network holds a distinct ID');
        for (const id of ids) assert.ok(isAllowed(segments, id));
        const stored = await store
          .get(vlanAllocationType, NAMESPACE, 'openstack.r1')
          .then((r) => r.spec.allocations)
          .catch(() => []);
        const table = new Map(stored.map((a) => [a.physicalNetworkID, a.id]));
        assert.equal(table.size, stored.length, 'one entry per network');
        assert.deepEqual(table, live, 'the record holds exactly the live networks, none lost');
      }),
      { numRuns: 150 },
    );
  });

  it('many allocators racing without a scheduler still hand out 1..N exactly once', async () => {
    const store = await open();
    const fleet = [0, 1, 2].map(() => allocator(store, undefined, { maxAttempts: 100 }));
    const names = Array.from({ length: 60 }, (_, i) => `net-${i}`);
    const got = await Promise.all(names.map((n, i) => (fleet[i % 3] ?? assert.fail()).allocate(n)));
    const ids = got.map((g) => g.segmentationID).sort((a, b) => a - b);
    assert.deepEqual(
      ids,
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
  });
});

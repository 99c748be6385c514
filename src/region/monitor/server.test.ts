/**
 * The server monitor against the emulator: one Nova list per identity per poll whatever the number of servers, one
 * status write per changed server, the fault read by id exactly once on the transition into ERROR (and logged, never
 * written), Ironic consulted only for a baremetal flavor in BUILD with the privileged client, its failure falling
 * back to Building, and a vanished server recorded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../kube/client.ts';
import { builtin } from '../../kube/resource-type.ts';
import { findCondition } from '../../kube/conditions.ts';
import { KubeConflictError } from '../../kube/errors.ts';
import { ensureRole, grantRole } from '../../openstack/identity.ts';
import { ManualScheduler } from '../../runtime/scheduler.ts';
import { serverType, type Server } from '../apis/server.ts';
import { PROVISIONER_FINALIZER } from '../apis/shared.ts';
import { labels } from '../apis/index.ts';
import { serverProviderFor } from '../openstack/server/provider.ts';
import { serverFixture, storeAvailableIdentity, type ServerFixture } from '../openstack/testing/server.ts';
import type { ServerInput } from '../provider/inputs.ts';
import { FRESH_POLL_QUIET_MS, ServerMonitor } from './server.ts';
import { capturedLogger } from '../../runtime/testing/logger.ts';

let w: ServerFixture;
const ctx = { signal: new AbortController().signal };

before(async () => {
  w = await serverFixture();
  await storeAvailableIdentity(w);
});
after(async () => {
  await w.close();
});

async function boot(input: ServerInput): Promise<void> {
  const provider = await w.provider();
  await provider.createServer(ctx, w.identity, input);
  w.advance(1000);
  await w.store.create(serverType, provisioned(w.serverObject(input)));
}

/** A Server the provisioner has taken on (its finalizer set): the monitor polls only those. */
const provisioned = (server: Server): Server => ({
  ...server,
  metadata: { ...server.metadata, finalizers: [PROVISIONER_FINALIZER] },
});

function monitor(
  log = capturedLogger().log,
  config?: (c: Awaited<ReturnType<ServerFixture['context']>>['config']) => object,
  client: Client = w.store,
) {
  return new ServerMonitor({
    client,
    namespace: w.namespace,
    lookup: async () => {
      const region = await w.context();
      const adjusted =
        config === undefined ? region : { ...region, config: { ...region.config, ...config(region.config) } };
      return serverProviderFor(adjusted, { kube: w.store, clock: w.clock, log });
    },
    scheduler: new ManualScheduler(w.clock),
    log,
  });
}

const get = (input: ServerInput) => w.store.get(serverType, w.namespace, input.id);
const reason = async (input: ServerInput, type: string) =>
  findCondition((await get(input)).status?.conditions, type)?.reason;

/** Requests since `from`, as `METHOD service path`, token requests left out. */
const since = (from: number) =>
  w.transport.requests
    .slice(from)
    .filter((r) => r.caller !== undefined)
    .map((r) => `${r.method} ${r.serviceType} ${r.urlTemplate}`);

describe('ServerMonitor', () => {
  it('one paginated Nova list per identity per poll, and one status write per changed server', async () => {
    const inputs = [w.input(), w.input(), w.input()];
    for (const input of inputs) await boot(input);
    const m = monitor();
    const from = w.transport.requests.length;
    const first = await m.poll();
    assert.deepEqual(since(from), ['GET compute /servers/detail']);
    assert.deepEqual(first, { servers: 3, identities: 1, writes: 3, failures: 0 });
    for (const input of inputs) {
      assert.equal(await reason(input, 'Active'), 'Running');
      assert.equal(await reason(input, 'Healthy'), 'Healthy');
      assert.equal((await get(input)).status?.observed?.image, w.images.a);
    }
    const again = w.transport.requests.length;
    assert.deepEqual(await m.poll(), { servers: 3, identities: 1, writes: 0, failures: 0 }, 'nothing changed');
    assert.deepEqual(since(again), ['GET compute /servers/detail']);
  });

  it('the fault is read by id once, on the transition into ERROR, and logged, never written', async () => {
    const input = w.input();
    await boot(input);
    const { log, lines } = capturedLogger();
    const m = monitor(log);
    await m.poll();
    const [nova] = await w.novaServers(input.name);
    w.emulator.nova.controls.putInError(nova?.id ?? '', 'disk controller on fire');
    const from = w.transport.requests.length;
    await m.poll();
    assert.deepEqual(since(from), ['GET compute /servers/detail', 'GET compute /servers/{server_id}']);
    const server = await get(input);
    assert.equal(server.status?.observed?.errored, true);
    assert.equal(findCondition(server.status.conditions, 'Healthy')?.reason, 'Errored');
    assert.ok(!JSON.stringify(server.status).includes('on fire'), 'the fault never reaches status');
    assert.ok(
      lines.some((l) => l.includes('disk controller on fire')),
      'the fault is in the log',
    );
    const later = w.transport.requests.length;
    await m.poll();
    assert.deepEqual(since(later), ['GET compute /servers/detail'], 'an already-errored server costs nothing more');
  });

  it('a lost status write does not make the next poll read the fault again', async () => {
    const input = w.input();
    await boot(input);
    // Both the write and its one retry on top of the fresh Server conflict: the poll's write is lost.
    let loseStatusWrites = 0;
    const client = new Proxy(w.store, {
      get(target, property, receiver) {
        if (property !== 'update') {
          const value = Reflect.get(target, property, receiver) as unknown;
          // The store's methods use its private fields: call them on the store, not on this proxy.
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return (...args: Parameters<typeof target.update>) => {
          if (loseStatusWrites === 0) return target.update(...args);
          loseStatusWrites--;
          return Promise.reject(new KubeConflictError('a reconciler wrote first'));
        };
      },
    });
    const { log } = capturedLogger();
    const m = monitor(log, undefined, client);
    await m.poll();
    const [nova] = await w.novaServers(input.name);
    w.emulator.nova.controls.putInError(nova?.id ?? '', 'disk controller on fire');
    loseStatusWrites = 2;
    const from = w.transport.requests.length;
    await m.poll();
    assert.deepEqual(since(from), ['GET compute /servers/detail', 'GET compute /servers/{server_id}']);
    assert.notEqual((await get(input)).status?.observed?.errored, true, 'the write was lost');
    const later = w.transport.requests.length;
    await m.poll();
    assert.deepEqual(since(later), ['GET compute /servers/detail'], 'the fault is read once per ERROR, not per write');
    assert.equal((await get(input)).status?.observed?.errored, true, 'the next poll writes what the lost one saw');
  });

  // Measured on the dev cloud (test/openstack/region-rebuild-monitor.test.ts): a Server pass that runs on the same
  // ERROR parks it and writes first; the monitor's write then conflicted and was dropped, the server recovered before
  // the next poll, nothing observed ever changed, and the park never woke.
  it('a reconciler write in between: the poll’s ERROR goes on top of it, so recovery later writes (the wake)', async () => {
    const input = w.input();
    await boot(input);
    const { log } = capturedLogger();
    let interfere = false;
    const client = new Proxy(w.store, {
      get(target, property, receiver) {
        if (property !== 'update') {
          const value = Reflect.get(target, property, receiver) as unknown;
          // The store's methods use its private fields: call them on the store, not on this proxy.
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        }
        return async (...args: Parameters<typeof target.update>) => {
          if (interfere) {
            interfere = false;
            // The reconciler's park lands first, so the monitor's write carries a stale resourceVersion.
            const now = await target.get(serverType, w.namespace, input.id);
            const parked = {
              type: 'Available',
              status: 'False',
              reason: 'Errored',
              message: 'parked',
              lastTransitionTime: new Date(w.clock.now()).toISOString(),
            };
            const conditions = [...(now.status?.conditions ?? []).filter((c) => c.type !== 'Available'), parked];
            await target.update(serverType, { ...now, status: { ...now.status, conditions } } as never, {
              subresource: 'status',
            });
          }
          return target.update(...args);
        };
      },
    });
    const m = monitor(log, undefined, client);
    await m.poll();
    const [nova] = await w.novaServers(input.name);
    w.emulator.nova.controls.putInError(nova?.id ?? '', 'disk controller on fire');
    interfere = true;
    const summary = await m.poll();
    assert.equal(summary.writes, 1);
    const server = await get(input);
    assert.equal(server.status?.observed?.errored, true, 'the ERROR is recorded');
    assert.equal(findCondition(server.status.conditions, 'Healthy')?.reason, 'Errored');
    assert.equal(findCondition(server.status.conditions, 'Available')?.message, 'parked', 'the reconciler’s stands');

    w.emulator.nova.controls.recover(nova?.id ?? '');
    assert.equal((await m.poll()).writes, 1, 'the recovery is a change: the observed wake');
    assert.equal((await get(input)).status?.observed?.errored, false);
  });

  it('Ironic only for a baremetal flavor in BUILD, with the privileged client; a failed lookup reads Building', async () => {
    const input = w.input();
    const provider = await w.provider();
    await provider.createServer(ctx, w.identity, input);
    await w.store.create(serverType, provisioned(w.serverObject(input)));
    const baremetal = () => ({ compute: { flavors: { metadata: [{ id: w.flavorID, baremetal: true }] } } });
    const from = w.transport.requests.length;
    await monitor(undefined, baremetal).poll();
    const ironic = w.transport.requests.slice(from).filter((r) => r.serviceType === 'baremetal' && r.caller);
    assert.deepEqual(
      ironic.map((r) => [r.urlTemplate, r.caller?.userID, r.caller?.scope]),
      [['/nodes', w.credentials.userID, `project:${w.projectID}`]],
    );
    assert.equal(await reason(input, 'Active'), 'Queued', 'no node for the instance yet: waiting on hardware');

    // Node visibility is policy-gated: a deployment grants the region account an Ironic reader role
    // (docs/spec/openstack-provider.md §Policy-gated fields).
    const keystone = w.admin.client('identity');
    const roleID = await ensureRole(keystone, 'baremetal_observer');
    await grantRole(keystone, { userID: w.credentials.userID, projectID: w.projectID, roleID: roleID });
    const registry = await w.registry(); // fresh sessions: the cached privileged token predates the grant
    const granted = (regionLog = capturedLogger().log) =>
      new ServerMonitor({
        client: w.store,
        namespace: w.namespace,
        lookup: async () => {
          const region = await registry.lookup(w.identity.regionID);
          const config = { ...region.config, ...baremetal() };
          return serverProviderFor({ ...region, config }, { kube: w.store, clock: w.clock, log: regionLog });
        },
        scheduler: new ManualScheduler(w.clock),
        log: regionLog,
      });
    const ironicAdmin = w.admin.client('baremetal');
    const { body: node } = await ironicAdmin.request<{ uuid: string }>({
      method: 'POST',
      path: '/nodes',
      body: { driver: 'fake-hardware', name: 'metal-1' },
    });
    const [nova] = await w.novaServers(input.name);
    await ironicAdmin.request({
      method: 'PATCH',
      path: '/nodes/{ident}',
      params: { ident: node.uuid },
      body: [{ op: 'add', path: '/instance_uuid', value: nova?.id }],
    });
    for (const [state, expected] of [
      ['cleaning', 'Queued'],
      ['deploying', 'Building'],
      ['deploy failed', 'Building'],
    ] as const) {
      await w.control('POST', `/ironic/nodes/${node.uuid}/state`, { provision_state: state });
      await granted().poll();
      assert.equal(await reason(input, 'Active'), expected, state);
    }

    await w.control('POST', '/faults', { route: '/baremetal/v1/nodes', status: 503, count: 5 });
    const { log, lines } = capturedLogger();
    await monitor(log, baremetal).poll();
    assert.equal(await reason(input, 'Active'), 'Building');
    assert.ok(lines.some((l) => l.includes('ironic lookup failed')));

    const plain = w.transport.requests.length;
    await monitor().poll();
    assert.equal(w.transport.requests.slice(plain).filter((r) => r.serviceType === 'baremetal').length, 0);
    w.advance(1000);
  });

  it('a vanished server is recorded (Active Pending) and counted as not found', async () => {
    const input = w.input();
    await boot(input);
    const m = monitor();
    await m.poll();
    const [nova] = await w.novaServers(input.name);
    w.emulator.nova.controls.deleteOutOfBand(nova?.id ?? '');
    await m.poll();
    const server = await get(input);
    assert.equal(findCondition(server.status?.conditions, 'Active')?.reason, 'Pending');
    assert.deepEqual(server.status?.observed, { generation: 1, image: w.images.a, errored: false });
  });

  it('a fresh server is polled once, promptly, not a period later; a polled or provisioned one never promptly', async () => {
    const scheduler = new ManualScheduler(w.clock);
    let onServer: (server: Server) => void = () => undefined;
    const m = new ServerMonitor({
      client: w.store,
      namespace: w.namespace,
      lookup: async () => serverProviderFor(await w.context(), { kube: w.store, clock: w.clock }),
      scheduler,
      log: capturedLogger().log,
      periodMs: 60_000,
      changes: (handler) => {
        onServer = handler;
        return () => {
          onServer = () => undefined;
        };
      },
    });
    m.start();
    // What the Server pass writes once it has made the Nova server: Available False/Provisioning, nothing observed.
    const fresh = async (input: ServerInput): Promise<Server> => {
      await boot(input);
      const stored = await get(input);
      const status = {
        conditions: [
          {
            type: 'Available',
            status: 'False' as const,
            reason: 'Provisioning',
            message: 'provisioning',
            lastTransitionTime: new Date(w.clock.now()).toISOString(),
          },
        ],
      };
      return w.store.update(serverType, { ...stored, status }, { subresource: 'status' });
    };
    const [a, b] = [w.input(), w.input()];
    const [freshA, freshB] = [await fresh(a), await fresh(b)];
    const lists = () => w.transport.requests.filter((r) => r.urlTemplate === '/servers/detail').length;
    const before = lists();
    // Two arrive within the quiet time: one poll for both, the quiet time after the last.
    onServer(freshA);
    await scheduler.advance(FRESH_POLL_QUIET_MS - 50);
    onServer(freshB);
    await scheduler.advance(FRESH_POLL_QUIET_MS - 50);
    assert.equal(lists(), before, 'not while they keep arriving');
    await scheduler.advance(50);
    assert.equal(lists(), before + 1, 'one prompt poll, a period early');
    for (const input of [a, b]) assert.equal(await reason(input, 'Active'), 'Running');
    // Seen again (the monitor's own write; the pass's fresh write replayed): nothing more until the period.
    onServer(await get(a));
    onServer(freshB);
    await scheduler.advance(60_000);
    assert.equal(lists(), before + 2, 'only the periodic poll after it');
    await m.stop();
  });

  it('a server the provisioner has not taken on (no finalizer) is neither polled nor written: Nova cannot hold it yet', async () => {
    const fresh = w.input();
    await w.store.create(serverType, w.serverObject(fresh));
    const m = monitor();
    await m.poll();
    const from = w.transport.requests.length;
    const summary = await m.poll();
    assert.deepEqual(since(from), ['GET compute /servers/detail'], 'the other servers only');
    assert.equal(summary.writes, 0);
    assert.equal((await get(fresh)).status, undefined, 'no Pending written for a server nobody asked Nova for');
  });

  it('lists a few projects at once (at most 4 by default), each once, and one project’s failure is its own', async () => {
    // Six identities (projects), one server each, in a namespace of their own; the provider only records its calls.
    const namespace = 'monitor-concurrent';
    const projects = ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'];
    await w.store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const id of projects) {
      const server = provisioned(w.serverObject(w.input()));
      await w.store.create(serverType, {
        ...server,
        metadata: {
          ...server.metadata,
          namespace,
          labels: { ...server.metadata.labels, [labels.identityID]: id },
        },
      });
    }
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const m = new ServerMonitor({
      client: w.store,
      namespace,
      lookup: () =>
        Promise.resolve({
          pollServers: async (_ctx, identity, polls) => {
            asked.push(identity.id);
            inFlight++;
            most = Math.max(most, inFlight);
            // Long enough for every list the monitor would have in flight to start (a Nova round trip).
            for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
            inFlight--;
            if (identity.id === 'p-2') throw new Error('nova is down in this project');
            return polls.map((p) => ({ id: p.server.id, status: p.status ?? {}, found: true }));
          },
        }),
      scheduler: new ManualScheduler(w.clock),
      log: capturedLogger().log,
    });
    const summary = await m.poll();
    assert.equal(most, 4, 'four projects listed at once (one after another before)');
    assert.deepEqual([...asked].sort(), projects, 'each project once');
    // The five projects that answered are written (their servers had no status yet); the one that failed is not.
    assert.deepEqual(summary, { servers: 6, identities: 6, writes: 5, failures: 1 });
  });

  it('runs on its scheduler, once per period', async () => {
    const scheduler = new ManualScheduler(w.clock);
    const m = new ServerMonitor({
      client: w.store,
      namespace: w.namespace,
      lookup: async () => serverProviderFor(await w.context(), { kube: w.store, clock: w.clock }),
      scheduler,
      log: capturedLogger().log,
      periodMs: 60_000,
    });
    m.start();
    const lists = () => w.transport.requests.filter((r) => r.urlTemplate === '/servers/detail').length;
    const before = lists();
    await scheduler.advance(59_000);
    assert.equal(lists(), before);
    await scheduler.advance(1_000);
    assert.equal(lists(), before + 1);
    await scheduler.advance(60_000);
    assert.equal(lists(), before + 2);
    await m.stop();
    await scheduler.advance(120_000);
    assert.equal(lists(), before + 2);
  });
});

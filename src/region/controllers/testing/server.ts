/**
 * The server fixture (the real provider on the emulator) with the Server controller in a Manager over its
 * embedded store and the monitor, all on one ManualClock through one ManualScheduler. Time moves
 * only through `tick`, which fires what falls due (requeues, backoffs) and then waits for the controller to go
 * idle; the monitor polls when a test says `poll`, as its loop would once per period.
 */
import assert from 'node:assert/strict';
import type { Registry } from 'prom-client';
import { findCondition } from '../../../kube/conditions.ts';
import type { Condition } from '../../../kube/object.ts';
import type { Controller } from '../../../runtime/controller.ts';
import { Manager } from '../../../runtime/manager.ts';
import { ManualScheduler } from '../../../runtime/scheduler.ts';
import { serverType, type Server, type ServerSpec } from '../../apis/server.ts';
import { serverProviderFor } from '../../openstack/server/provider.ts';
import { volumeProviderFor } from '../../openstack/volume/provider.ts';
import type { RegionStore } from '../../openstack/testing/region.ts';
import { serverFixture, storeAvailableIdentity, type ServerFixture } from '../../openstack/testing/server.ts';
import { ServerMonitor } from '../../monitor/server.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { registerServerController } from '../server/controller.ts';
import { capturedLogger } from '../../../runtime/testing/logger.ts';

export interface ServerControllerFixture extends ServerFixture {
  readonly scheduler: ManualScheduler;
  readonly controller: Controller;
  readonly monitor: ServerMonitor;
  /** The manager's metrics (the runtime's series and the objects' gauges). */
  readonly metrics: Registry;
  /** The provider's log lines (rows, rebuild answers, faults). */
  readonly providerLog: string[];
  /** The decision-table rows the provider's calls took, in order (R1–R4″ and the rebuild answers). */
  readonly rows: string[];
  /** createServer calls per server id: the controller's provision passes that reached the provider. */
  passes(id: string): number;
  /** Creates the Server for `input` and waits for the controller's first create of it. */
  create(input: ServerInput): Promise<void>;
  /** Creates the Server for `input` and runs it to Provisioned, then polls once (Active Running). */
  converged(input: ServerInput): Promise<Server>;
  get(input: ServerInput): Promise<Server>;
  available(input: ServerInput): Promise<Condition | undefined>;
  condition(input: ServerInput, type: string): Promise<Condition | undefined>;
  editSpec(input: ServerInput, spec: Partial<ServerSpec>): Promise<void>;
  /** The Nova server of `input` (admin view). */
  nova(input: ServerInput): Promise<{ id: string; status: string; image: string }>;
  poll(): Promise<void>;
  tick(ms?: number): Promise<void>;
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function serverControllerFixture(where: RegionStore = {}): Promise<ServerControllerFixture> {
  const w = await serverFixture(where);
  const clock = w.clock;
  const scheduler = new ManualScheduler(clock);
  await storeAvailableIdentity(w);
  const { log, lines } = capturedLogger();
  // The controllers log where the provider does: a test reads a pass's lines beside the provider's. The caches
  // watch the fixture's namespace alone, so a shared apiserver's leftovers (another run's Servers stuck
  // Terminating behind their finalizers) never keep this controller busy.
  const manager = new Manager({
    client: w.store,
    clock,
    scheduler,
    log,
    random: () => 0,
    resyncMs: 3_600_000,
    namespacesOf: (type) => (type.namespaced ? [w.namespace] : undefined),
  });
  const calls = new Map<string, number>();
  const rows: string[] = [];
  const observeRow = (row: string) => void rows.push(row);
  const provider = async () => serverProviderFor(await w.context(), { kube: w.store, clock, log, observeRow });
  const volumes = async () => volumeProviderFor(await w.context(), { kube: w.store, log });
  const controller = registerServerController(manager, async () => {
    const p = await provider();
    const v = await volumes();
    return {
      ...p,
      attachVolume: (ctx, identity, server, volume) => v.attachVolume(ctx, identity, server, volume),
      detachVolume: (ctx, identity, server, volume) => v.detachVolume(ctx, identity, server, volume),
      createServer: (ctx, identity, server) => {
        calls.set(server.id, (calls.get(server.id) ?? 0) + 1);
        return p.createServer(ctx, identity, server);
      },
    };
  });
  const monitor = new ServerMonitor({
    client: w.store,
    namespace: w.namespace,
    lookup: provider,
    scheduler,
    log,
  });
  await manager.start();

  const get = (input: ServerInput) => w.store.get(serverType, w.namespace, input.id);
  const condition = async (input: ServerInput, type: string) =>
    findCondition((await get(input)).status?.conditions, type);
  /** Every stored Server is in the manager's cache as stored: each event has reached the controller's watch. */
  async function cached(): Promise<boolean> {
    const { items } = await w.store.list(serverType, { namespace: w.namespace });
    const seen = new Map(manager.list(serverType).map((o) => [o.metadata.name, o.metadata.resourceVersion]));
    return items.length === seen.size && items.every((o) => seen.get(o.metadata.name) === o.metadata.resourceVersion);
  }
  /** Waits until every event is delivered and the controller has nothing queued or running, a few times over. */
  async function idle(): Promise<void> {
    let quiet = 0;
    for (let i = 0; i < 5000 && quiet < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      const queue = controller.queue;
      const still = queue !== undefined && queue.depth === 0 && queue.inFlight === 0 && (await cached());
      quiet = still ? quiet + 1 : 0;
    }
    if (quiet < 3) throw new Error('the controller did not go idle');
  }
  async function tick(ms = 10_000): Promise<void> {
    await scheduler.advance(ms);
    await idle();
  }
  const s: ServerControllerFixture = {
    ...w,
    scheduler,
    controller,
    monitor,
    metrics: manager.metrics.registry,
    providerLog: lines,
    rows,
    passes: (id) => calls.get(id) ?? 0,
    get,
    condition,
    available: (input) => condition(input, 'Available'),
    async create(input) {
      await w.store.create(serverType, w.serverObject(input));
      for (let i = 0; i < 3000 && (calls.get(input.id) ?? 0) === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      await idle();
    },
    async converged(input) {
      await s.create(input);
      for (let i = 0; i < 5 && (await condition(input, 'Available'))?.reason !== 'Provisioned'; i++) await tick();
      assert.equal((await condition(input, 'Available'))?.reason, 'Provisioned');
      await s.poll();
      assert.equal((await condition(input, 'Active'))?.reason, 'Running');
      return get(input);
    },
    async editSpec(input, spec) {
      const server = await get(input);
      await w.store.update(serverType, { ...server, spec: { ...server.spec, ...spec } });
      await idle();
    },
    async nova(input) {
      const [found, ...more] = await w.novaServers(input.name);
      assert.ok(found !== undefined && more.length === 0, `one Nova server named ${input.name}`);
      const image = typeof found.image === 'string' ? '' : found.image.id;
      return { id: found.id, status: found.status, image };
    },
    async poll() {
      await monitor.poll();
      await idle();
    },
    tick,
    idle,
    async close() {
      await manager.stop();
      await w.close();
    },
  };
  return s;
}

/**
 * Servers created through the REST API and waited on until provisioned and running: the convergence scenario's
 * core, and the fleet the steady-state and rebuild scenarios then measure (the last convergence's system is kept
 * for them until `closeFleet`).
 */
import { startSystem, waitUntil, type BenchSystem, type Read } from './system.ts';

export const PROJECTS = 10;
/** Short enough that convergence waits on no long poll, long enough to tell polls apart. */
export const MONITOR_PERIOD_MS = 2_000;

/** The monitor's poll: one unfiltered listing per project. */
export const MONITOR_LIST = 'compute GET /v2.1/servers/detail';
/** Longer than the controllers' 10 s re-check, so a pending one shows before the system counts as quiet. */
export const QUIET_MS = 12_000;

export interface Fleet {
  readonly system: BenchSystem;
  readonly servers: readonly string[];
}

let kept: Fleet | undefined;

/** `built`: the control plane from the built package, in a process of its own (system.ts). */
export async function startFleetSystem(built = false): Promise<BenchSystem> {
  await closeFleet();
  return startSystem({ projects: PROJECTS, monitorPeriodMs: MONITOR_PERIOD_MS, built });
}

/** Concurrent API clients, as a fleet tool would create or update many servers. */
export const CLIENTS = 16;

/** Runs `each` for 0..count-1 on CLIENTS concurrent lanes. */
export async function inLanes(count: number, each: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) await each(i);
  };
  await Promise.all(Array.from({ length: Math.min(CLIENTS, count) }, lane));
}

/** POSTs `count` servers round-robin over the projects' networks from CLIENTS concurrent clients; their ids. */
export async function createServers(system: BenchSystem, count: number, prefix = 'bench'): Promise<string[]> {
  const ids: string[] = new Array<string>(count);
  await inLanes(count, async (i) => {
    const created = await system.api('POST', '/api/v2/servers', {
      metadata: { name: `${prefix}-${String(i)}` },
      spec: {
        networkId: system.networks[i % system.networks.length],
        flavorId: system.flavorId,
        imageId: system.imageIds[0],
      },
    });
    ids[i] = created.metadata.id;
  });
  return ids;
}

/**
 * Waits until every server listed satisfies `done` (provisioned and running, by default), listing every 100 ms: the
 * limit script reads each server every 10 ms, and a coarser poll would add up to its period to the system's time.
 * Above 1,000 servers every count/2 ms (5 s at 10,000): a list of 10,000 servers is some 25 MB the control plane
 * serializes, and listing it as often as the wave's passes run would put the bench's wait in `serve`'s figures.
 */
export async function allServers(
  system: BenchSystem,
  count: number,
  done: (server: Read) => boolean = settled,
  limitMs?: number,
): Promise<void> {
  await waitUntil(
    async () => {
      const all = await system.api<Read[]>('GET', '/api/v2/servers');
      return all.length === count && all.every(done);
    },
    count > 1_000 ? count / 2 : 100,
    limitMs,
  );
}

export const settled = (s: Read): boolean =>
  s.metadata.provisioningStatus === 'provisioned' && s.status['powerState'] === 'Running';

export function keepFleet(fleet: Fleet): void {
  kept = fleet;
}

export function fleet(): Fleet {
  if (kept === undefined) throw new Error('no converged fleet: run a convergence first');
  return kept;
}

export async function closeFleet(): Promise<void> {
  const running = kept;
  kept = undefined;
  await running?.system.stop();
}

/** Waits until QUIET_MS pass with no OpenStack call but the monitor's listing. */
export async function quiet(system: BenchSystem): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const before = await system.calls.snapshot();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    const after = await system.calls.snapshot();
    if ([...after].every(([key, n]) => key === MONITOR_LIST || n === (before.get(key) ?? 0))) return;
  }
  throw new Error('the system never went quiet');
}

/** `calls` less the monitor's polls made after `until` was taken: steady-state cost, not convergence. */
export function withoutLaterPolls(
  calls: ReadonlyMap<string, number>,
  until: ReadonlyMap<string, number>,
): Map<string, number> {
  const kept = new Map(calls);
  kept.set(MONITOR_LIST, until.get(MONITOR_LIST) ?? 0);
  return kept;
}

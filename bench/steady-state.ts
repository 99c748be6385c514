/**
 * Steady state on the converged fleet (the last convergence's): OpenStack calls per monitor poll, and per server
 * in an idle reconcile pass, each against one call per project (the least a poll of every server can cost).
 * A poll is a burst of the monitor's unfiltered `GET /servers/detail`, counted from their arrival times. An idle
 * pass is what every server's reconcile costs when nothing needs doing: a label added to each Server in the store
 * (a label change wakes the server controller; nothing in OpenStack changes) until the calls stop.
 */
import { REGION_NAMESPACE } from '../src/cli/up.ts';
import { serverType } from '../src/region/apis/index.ts';
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { fleet, MONITOR_LIST, MONITOR_PERIOD_MS, PROJECTS, quiet, QUIET_MS } from './fleet.ts';
import { judged, loopDelayDuring } from './stats.ts';

const POLLS = 5;

export async function benchSteadyState(): Promise<Record<string, number | string>> {
  const { system, servers } = fleet();
  await quiet(system);
  await system.calls.take();
  await sleep(POLLS * MONITOR_PERIOD_MS);
  const polls = bursts(await system.calls.times(MONITOR_LIST));
  const idle = await system.calls.take();
  // Per listing, not per burst: a window's edge can cut a poll's listings in two, and a burst counts whole.
  const listings = idle.get(MONITOR_LIST) ?? 0;
  const perProjectPoll = totalOf(idle) / Math.max(1, listings);
  const others = [...idle].filter(([key]) => key !== MONITOR_LIST);

  const objects = await system.control.store.list(serverType, { namespace: REGION_NAMESPACE });
  for (const server of objects.items) {
    const labels = { ...server.metadata.labels, 'bench.openregion.dev/pass': '1' };
    await system.control.store.update(serverType, { ...server, metadata: { ...server.metadata, labels } });
  }
  const passStart = performance.now();
  const { p99Ms } = await loopDelayDuring(() => quiet(system));
  const passMs = performance.now() - passStart - QUIET_MS;
  const pass = await system.calls.take();
  const monitor = pass.get(MONITOR_LIST) ?? 0;
  pass.delete(MONITOR_LIST);
  return {
    servers: servers.length,
    projects: PROJECTS,
    'monitor period (s)': MONITOR_PERIOD_MS / 1000,
    'polls observed': polls,
    "the monitor's listings (one per project a poll)": listings,
    'calls per monitor poll': round(perProjectPoll * PROJECTS),
    'calls per poll / projects': judged(round(perProjectPoll), '≤', 1),
    'other calls in the window': others.length === 0 ? 'none' : JSON.stringify(Object.fromEntries(others)),
    'idle reconcile pass: calls per server': judged(round(totalOf(pass) / servers.length), '≤', 1),
    'idle reconcile pass: wall time (s)': round(passMs / 1000),
    'idle reconcile pass: event-loop delay p99 (ms)': judged(p99Ms, '<', 50),
    'idle reconcile pass: calls / projects': round(totalOf(pass) / PROJECTS),
    'monitor polls during the pass': round(monitor / PROJECTS),
    ...Object.fromEntries(
      Object.entries(perUnitByVerb(pass, servers.length)).map(([k, v]) => [`idle pass per server: ${k}`, v]),
    ),
  };
}

/** Calls more than half a period apart start a new poll. */
function bursts(times: readonly number[]): number {
  let count = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const at of times) {
    if (at - last > MONITOR_PERIOD_MS / 2) count++;
    last = at;
  }
  return count;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

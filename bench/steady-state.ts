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
import { fleet, MONITOR_LIST, MONITOR_PERIOD_MS, PROJECTS, quiet } from './fleet.ts';

const POLLS = 5;

export async function benchSteadyState(): Promise<Record<string, number>> {
  const { system, servers } = fleet();
  await quiet(system);
  system.calls.take();
  await sleep(POLLS * MONITOR_PERIOD_MS);
  const polls = bursts(system.calls.times(MONITOR_LIST));
  const idle = system.calls.take();
  const perPoll = totalOf(idle) / Math.max(1, polls);

  const objects = await system.up.store.list(serverType, { namespace: REGION_NAMESPACE });
  for (const server of objects.items) {
    const labels = { ...server.metadata.labels, 'bench.openregion.dev/pass': '1' };
    await system.up.store.update(serverType, { ...server, metadata: { ...server.metadata, labels } });
  }
  await quiet(system);
  const pass = system.calls.take();
  const monitor = pass.get(MONITOR_LIST) ?? 0;
  pass.delete(MONITOR_LIST);
  return {
    servers: servers.length,
    projects: PROJECTS,
    'monitor period (s)': MONITOR_PERIOD_MS / 1000,
    'polls observed': polls,
    'calls per monitor poll': round(perPoll),
    'calls per poll / projects (target 1)': round(perPoll / PROJECTS),
    'idle reconcile pass: calls per server': round(totalOf(pass) / servers.length),
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

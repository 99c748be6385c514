/**
 * Convergence: `servers` servers in 10 identity projects, created through the REST API against the emulator, until
 * all are provisioned and running; beside it, in the same run against the same emulator, the limit (limit.ts).
 * Figures: wall time of each and their ratio, OpenStack calls per server by service and verb, and calls per server
 * beyond the limit, counted until the system is quiet (no call but the monitor's for 12 s: the controllers'
 * re-checks still pending at convergence count too; the monitor's polls after it do not). The identities and networks (one per project) are made before the count starts; their calls
 * are reported per project. The system is kept for the steady-state and rebuild scenarios.
 */
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { allServers, createServers, keepFleet, PROJECTS, quiet, startFleetSystem, withoutLaterPolls } from './fleet.ts';
import { runLimit } from './limit.ts';

export async function benchConvergence(servers: number): Promise<Record<string, number>> {
  const system = await startFleetSystem();
  try {
    const setupCalls = totalOf(system.calls.take());
    const authUrl = system.up.emulator?.authUrl ?? '';
    const limit = await runLimit(authUrl, system.calls, PROJECTS, servers);

    system.calls.take();
    const start = performance.now();
    const ids = await createServers(system, servers);
    const postedMs = performance.now() - start;
    await allServers(system, servers);
    const wallMs = performance.now() - start;
    const provisionedCalls = system.calls.snapshot();
    await quiet(system); // the re-checks still pending when the last server converged
    const calls = withoutLaterPolls(system.calls.take(), provisionedCalls);
    keepFleet({ system, servers: ids });

    const perServer = totalOf(calls) / servers;
    const limitPerServer = totalOf(limit.calls) / servers;
    return {
      'wall time, all provisioned and running (s)': round(wallMs / 1000),
      'of which REST API creates (s)': round(postedMs / 1000),
      'limit wall time (s)': round(limit.wallMs / 1000),
      'wall time / limit (target ≤ 3)': round(wallMs / limit.wallMs),
      'OpenStack calls per server, until all provisioned': round(totalOf(provisionedCalls) / servers),
      'OpenStack calls per server, until quiet': round(perServer),
      'limit calls per server': round(limitPerServer),
      'calls per server beyond the limit, until quiet': round(perServer - limitPerServer),
      'identity + network setup calls per project': round(setupCalls / PROJECTS),
      ...prefixed('per server: ', perUnitByVerb(calls, servers)),
      ...prefixed('limit per server: ', perUnitByVerb(limit.calls, servers)),
    };
  } catch (error) {
    await system.stop();
    throw error;
  }
}

const prefixed = (prefix: string, figures: Record<string, number>): Record<string, number> =>
  Object.fromEntries(Object.entries(figures).map(([k, v]) => [`${prefix}${k}`, v]));

/**
 * Rebuild wave on the converged fleet: every server's image changed through the REST API (`PUT`, from 16
 * concurrent clients), until every server reads provisioned and running on the new image. Figures: wall time, and OpenStack
 * calls per server until quiet (as in convergence) by service and verb against the limit of two (the rebuild action and one status read).
 */
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { allServers, CLIENTS, fleet, inLanes, MONITOR_LIST, quiet, withoutLaterPolls } from './fleet.ts';
import { cpuDuring, judged, loopDelayDuring } from './stats.ts';
import { type Read } from './system.ts';

export async function benchRebuildWave(): Promise<Record<string, number | string>> {
  const { system, servers } = fleet();
  const image = system.imageIds[1];
  await system.calls.take();
  const start = performance.now();
  let putMs = 0;
  const rebuilt = (s: Read) =>
    s.spec['imageId'] === image &&
    s.metadata.provisioningStatus === 'provisioned' &&
    s.status['powerState'] === 'Running';
  const run = await loopDelayDuring(() =>
    cpuDuring('rebuild-wave', async () => {
      await inLanes(servers.length, async (i) => {
        await system.api('PUT', `/api/v2/servers/${servers[i] ?? ''}`, {
          metadata: { name: `bench-${String(i)}` },
          spec: { flavorId: system.flavorId, imageId: image },
        });
      });
      putMs = performance.now() - start;
      await allServers(system, servers.length, rebuilt);
    }),
  );
  const wallMs = performance.now() - start;
  const rebuiltCalls = await system.calls.snapshot();
  await quiet(system);
  const calls = withoutLaterPolls(await system.calls.take(), rebuiltCalls);
  const perServer = totalOf(calls) / servers.length;
  return {
    servers: servers.length,
    'wall time, all rebuilt and running (s)': round(wallMs / 1000),
    [`of which REST API updates, ${String(CLIENTS)} clients (s)`]: round(putMs / 1000),
    'OpenStack calls per server': judged(round(perServer), '≤', 3),
    'event-loop delay p99 (ms)': judged(run.p99Ms, '<', 50),
    'event-loop delay max (ms)': run.maxMs,
    'control-plane CPU per server (ms)': round(run.result.cpuMs / servers.length),
    'calls per server beyond the limit of 2': round(perServer - 2),
    // The steady-state poll, made with or without a rebuild (steady-state.ts counts it per poll).
    "of which the monitor's listings, per server": round((calls.get(MONITOR_LIST) ?? 0) / servers.length, 3),
    ...Object.fromEntries(
      Object.entries(perUnitByVerb(calls, servers.length)).map(([k, v]) => [`per server: ${k}`, v]),
    ),
  };
}

/**
 * Rebuild wave on the converged fleet: every server's image changed through the REST API (`PUT`, one after
 * another), until every server reads provisioned and running on the new image. Figures: wall time, and OpenStack
 * calls per server until quiet (as in convergence) by service and verb against the limit of two (the rebuild action and one status read).
 */
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { allServers, fleet, quiet, withoutLaterPolls } from './fleet.ts';
import { type Read } from './system.ts';

export async function benchRebuildWave(): Promise<Record<string, number>> {
  const { system, servers } = fleet();
  const image = system.imageIds[1];
  system.calls.take();
  const start = performance.now();
  for (const [i, id] of servers.entries()) {
    await system.api('PUT', `/api/v2/servers/${id}`, {
      metadata: { name: `bench-${String(i)}` },
      spec: { flavorId: system.flavorId, imageId: image },
    });
  }
  const putMs = performance.now() - start;
  const rebuilt = (s: Read) =>
    s.spec['imageId'] === image &&
    s.metadata.provisioningStatus === 'provisioned' &&
    s.status['powerState'] === 'Running';
  await allServers(system, servers.length, rebuilt);
  const wallMs = performance.now() - start;
  const rebuiltCalls = system.calls.snapshot();
  await quiet(system);
  const calls = withoutLaterPolls(system.calls.take(), rebuiltCalls);
  const perServer = totalOf(calls) / servers.length;
  return {
    servers: servers.length,
    'wall time, all rebuilt and running (s)': round(wallMs / 1000),
    'of which REST API updates (s)': round(putMs / 1000),
    'OpenStack calls per server': round(perServer),
    'calls per server beyond the limit of 2': round(perServer - 2),
    ...Object.fromEntries(
      Object.entries(perUnitByVerb(calls, servers.length)).map(([k, v]) => [`per server: ${k}`, v]),
    ),
  };
}

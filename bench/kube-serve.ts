/**
 * The production path measured: `openregion serve` on the bench's own kube-apiserver (kube-apiserver.ts,
 * kube-region.ts) with the emulator as the cloud.
 *
 * - kube-apiserver: one wave of servers over BENCH_KUBE_PROJECTS projects (default 100) on `up`'s embedded store
 *   and then on `serve` + kube-apiserver, same counts, same emulator seeding, same limit script: wall time against
 *   the limit, OpenStack calls per server, apiserver requests per converged server (reads, writes, watches, from
 *   the apiserver's own `apiserver_request_total`), the control plane's CPU per server, RSS and event-loop delay,
 *   etcd's database size.
 * - high availability: two `serve --leader-election` replicas (the `fast` Lease profile), the leader SIGKILLed
 *   once half the wave has converged: duplicate Nova servers, servers lost or stuck, the time from the kill to the
 *   standby holding the Lease and to its first controller write (the audit log), the wave's wall time.
 * - sharding: two regions, each an emulator of its own registered in a namespace of its own, each run by a `serve`
 *   of its own scoped to it by `--namespace` (ADR 0043), a wave in each at once: each one's wall time against the
 *   region alone (the kube-apiserver scenario's), and, from the audit log, every request either replica made that
 *   touched the other's namespace or listed or watched a region kind across namespaces (0 each when sharded).
 */
import { listServers } from '../src/openstack/compute.ts';
import { Transport } from '../src/openstack/transport.ts';
import { builtin } from '../src/kube/resource-type.ts';
import { systemClock } from '../src/util/clock.ts';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { emulatorAdmin } from './emulator-process.ts';
import { allServers, createServers, MONITOR_PERIOD_MS, quiet, settled, withoutLaterPolls } from './fleet.ts';
import { auditEvents, benchApiserver, requestsBetween, type BenchApiserver } from './kube-apiserver.ts';
import { identityType } from '../src/region/apis/identity.ts';
import { loadBalancerType } from '../src/region/apis/load-balancer.ts';
import { networkType } from '../src/region/apis/network.ts';
import { openstackIdentityType } from '../src/region/apis/openstack-identity.ts';
import { regionType } from '../src/region/apis/region.ts';
import { securityGroupType } from '../src/region/apis/security-group.ts';
import { serverType } from '../src/region/apis/server.ts';
import { volumeType } from '../src/region/apis/volume.ts';
import { heapSnapshotDir, startKubeRegion, type KubeRegion, type Replica } from './kube-region.ts';
import { runLimit, type LimitRun } from './limit.ts';
import type { Skipped } from './sdk-compare.ts';
import { judged } from './stats.ts';
import { startSystem, waitUntil, type BenchSystem, type Read } from './system.ts';

type Figures = Record<string, number | string>;

/** BENCH_KUBE_PROJECTS, or ten servers a project (the 1,000 over 100). */
const PROJECTS = Number(
  process.env['BENCH_KUBE_PROJECTS'] ??
    Math.max(
      10,
      Math.round(Number(process.env['BENCH_KUBE_SERVERS'] ?? (process.env['BENCH_QUICK'] === '1' ? 100 : 300)) / 10),
    ),
);

/** What the scenarios after the first compare with: the region alone on kube-apiserver. */
let alone: { servers: number; wallMs: number } | undefined;

interface ControlPlaneProbe {
  cpuMs(): number;
  rssMiB(): number;
  /** Resets the delay's window (a scrape), then answers the window's p99 and max. */
  loopDelay(): Promise<{ p99Ms: number; maxMs: number }>;
}

interface Wave {
  readonly wallMs: number;
  /** From the first POST until every create was answered (the REST API's own rate, whatever the controllers do). */
  readonly createsMs: number;
  readonly limit: LimitRun;
  readonly calls: ReadonlyMap<string, number>;
  readonly cpuMs: number;
  readonly loop: { p99Ms: number; maxMs: number };
  readonly ids: readonly string[];
}

/** The limit, then `servers` created through the API and waited on until provisioned, then quiet. */
async function measureWave(
  system: BenchSystem,
  servers: number,
  probe: ControlPlaneProbe,
  during?: (start: number) => Promise<void>,
): Promise<Wave> {
  await system.calls.take();
  const limit = await runLimit(system.calls.authUrl, system.calls, system.networks.length, servers);
  await system.calls.take();
  await probe.loopDelay();
  const cpuBefore = probe.cpuMs();
  const start = performance.now();
  const ids = await createServers(system, servers);
  const createsMs = performance.now() - start;
  // Two regions at once on a loaded machine can take longer than the embedded bench's 10 minutes.
  await Promise.all([allServers(system, servers, settled, 1_800_000), during?.(start)]);
  const wallMs = performance.now() - start;
  const cpuMs = probe.cpuMs() - cpuBefore;
  const loop = await probe.loopDelay();
  const provisioned = await system.calls.snapshot();
  await quiet(system);
  const calls = withoutLaterPolls(await system.calls.take(), provisioned);
  return { wallMs, createsMs, limit, calls, cpuMs, loop, ids };
}

function waveFigures(wave: Wave, servers: number, rssMiB: number): Figures {
  const perServer = totalOf(wave.calls) / servers;
  return {
    'wall time, all provisioned and running (s)': round(wave.wallMs / 1000),
    'limit wall time (s)': round(wave.limit.wallMs / 1000),
    'wall time / limit': judged(round(wave.wallMs / wave.limit.wallMs), '≤', 3),
    'REST creates per second (every POST answered)': round(servers / (wave.createsMs / 1000)),
    'OpenStack calls per server, until quiet': judged(round(perServer), '≤', 5),
    'limit calls per server': round(totalOf(wave.limit.calls) / servers),
    'control-plane CPU per server (ms)': round(wave.cpuMs / servers),
    'event-loop delay p99 while converging (ms)': judged(wave.loop.p99Ms, '<', 50),
    'event-loop delay max while converging (ms)': wave.loop.maxMs,
    'control-plane RSS after (MiB)': rssMiB,
  };
}

const replicaProbe = (replica: Replica): ControlPlaneProbe => ({
  cpuMs: () => replica.usage().cpuMs,
  rssMiB: () => replica.usage().rssMiB,
  loopDelay: () => replica.loopDelay(),
});

/** The region on kube-apiserver beside `up`'s embedded store, the same wave on each. */
export async function benchKubeServe(servers: number): Promise<Figures | Skipped> {
  const apiserver = await benchApiserver();
  if (typeof apiserver === 'string') return { skipped: apiserver };
  const figures: Figures = { projects: PROJECTS, servers };
  if (process.env['BENCH_KUBE_EMBEDDED'] !== '0') await embeddedWave(servers, figures);

  const region = await startKubeRegion(apiserver, 'kube', MONITOR_PERIOD_MS);
  try {
    const replica = await region.startReplica({ name: 'serve', api: true });
    const system = await region.system(replica, PROJECTS);
    const before = await apiserver.requests();
    const wave = await measureWave(system, servers, replicaProbe(replica));
    const after = await apiserver.requests();
    alone = { servers, wallMs: wave.wallMs };
    for (const [k, v] of Object.entries(waveFigures(wave, servers, replica.usage().rssMiB)))
      figures[`kube-apiserver: ${k}`] = v;
    Object.assign(figures, apiserverFigures(before, after, servers));
    figures['kube-apiserver: etcd database (MiB)'] = round((await apiserver.etcdBytes()) / 2 ** 20);
    for (const [k, v] of Object.entries(perUnitByVerb(wave.calls, servers)))
      figures[`kube-apiserver: per server: ${k}`] = v;
    Object.assign(figures, await memoryFigures(apiserver, region.namespace, replica));
  } finally {
    await region.stop();
  }
  return figures;
}

/** The same wave on `up`'s embedded store, in this process (BENCH_KUBE_EMBEDDED=0 leaves it out). */
async function embeddedWave(servers: number, figures: Figures): Promise<void> {
  // The embedded store first, in this process (its CPU and RSS are this process's, the bench's own included).
  const embedded = await startSystem({ projects: PROJECTS, monitorPeriodMs: MONITOR_PERIOD_MS });
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const rss = () => Math.round(process.memoryUsage().rss / 2 ** 20);
    const wave = await measureWave(embedded, servers, {
      cpuMs: () => {
        const used = process.cpuUsage();
        return (used.user + used.system) / 1000;
      },
      rssMiB: rss,
      loopDelay: () => {
        const window = { p99Ms: round(histogram.percentile(99) / 1e6), maxMs: round(histogram.max / 1e6) };
        histogram.reset();
        return Promise.resolve(window);
      },
    });
    for (const [k, v] of Object.entries(waveFigures(wave, servers, rss()))) figures[`embedded: ${k}`] = v;
  } finally {
    histogram.disable();
    await embedded.stop();
  }
}

/** The region kinds serve's informers cache, and the Secrets its registry reads. */
const CACHED_KINDS = [
  serverType,
  networkType,
  identityType,
  openstackIdentityType,
  securityGroupType,
  volumeType,
  loadBalancerType,
  regionType,
  builtin.secret,
] as const;

/**
 * What holds serve's memory: its V8 heap and external memory (prom-client's gauges), and what its caches hold, by
 * kind, read back from the apiserver in the region's namespace: objects, their JSON, and the part of it that is
 * managedFields (which the informers drop; src/runtime/informer.ts).
 */
async function memoryFigures(apiserver: BenchApiserver, namespace: string, replica: Replica): Promise<Figures> {
  if (heapSnapshotDir !== undefined) await heapSnapshot(replica, heapSnapshotDir);
  const metrics = await (await fetch(`${replica.health}/metrics`)).text();
  const mib = (name: string) => round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) / 2 ** 20);
  const figures: Figures = {
    'kube-apiserver: serve V8 heap used (MiB)': mib('nodejs_heap_size_used_bytes'),
    'kube-apiserver: serve V8 heap total (MiB)': mib('nodejs_heap_size_total_bytes'),
    'kube-apiserver: serve external memory (MiB)': mib('nodejs_external_memory_bytes'),
  };
  for (const type of CACHED_KINDS) {
    const { items } = await apiserver.client.list(type, { namespace });
    const json = items.reduce((n, o) => n + JSON.stringify(o).length, 0);
    const fields = items.reduce((n, o) => n + JSON.stringify(o.metadata.managedFields ?? []).length, 0);
    figures[`kube-apiserver: cached ${type.plural}: objects / JSON MiB / managedFields share`] =
      `${String(items.length)} / ${String(round(json / 2 ** 20))} / ${String(round(fields / Math.max(1, json)))}`;
  }
  return figures;
}

function apiserverFigures(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  servers: number,
): Figures {
  const requests = requestsBetween(before, after);
  const figures: Figures = {
    'kube-apiserver: apiserver requests per server, reads (GET, LIST)': round(requests.reads / servers),
    'kube-apiserver: apiserver requests per server, writes': round(requests.writes / servers),
    'kube-apiserver: apiserver watch requests per server': round(requests.watches / servers),
  };
  for (const [key, n] of [...requests.byVerb].sort()) {
    if (key.includes(' ')) figures[`kube-apiserver: apiserver per server: ${key}`] = round(n / servers, 3);
  }
  return figures;
}

/** Nova's servers of this wave by name: duplicates, and how many. */
async function novaServers(region: KubeRegion): Promise<{ total: number; duplicates: number }> {
  const transport = new Transport({ random: Math.random, clock: systemClock });
  try {
    const admin = emulatorAdmin(region.emulator.authUrl, transport);
    const all = (await listServers(admin.client('compute'), { allTenants: true })).filter((s) =>
      s.name.startsWith('bench-'),
    );
    const byName = new Map<string, number>();
    for (const s of all) byName.set(s.name, (byName.get(s.name) ?? 0) + 1);
    return { total: all.length, duplicates: [...byName.values()].filter((n) => n > 1).length };
  } finally {
    await transport.close();
  }
}

/** Two replicas with leader election, the leader SIGKILLed once half the wave has converged. */
export async function benchHighAvailability(servers: number): Promise<Figures | Skipped> {
  const apiserver = await benchApiserver();
  if (typeof apiserver === 'string') return { skipped: apiserver };
  const region = await startKubeRegion(apiserver, 'ha', MONITOR_PERIOD_MS);
  try {
    const lease = () =>
      apiserver.client.get(builtin.lease, region.namespace, 'openregion-controllers').catch(() => undefined);
    const leader = await region.startReplica({ name: 'leader', leaderElection: true });
    let leaderIdentity = '';
    await waitUntil(async () => {
      leaderIdentity = (await lease())?.spec?.holderIdentity ?? '';
      return leaderIdentity !== '';
    });
    const standby = await region.startReplica({ name: 'standby', api: true, leaderElection: true });
    const system = await region.system(standby, PROJECTS);
    let killedAt = 0;
    let leaseAt = 0;
    const wave = await measureWave(system, servers, replicaProbe(standby), async () => {
      await waitUntil(async () => {
        const all = await system.api<Read[]>('GET', '/api/v2/servers');
        return all.filter(settled).length >= servers / 2;
      }, 100);
      killedAt = Date.now();
      leader.process.kill('SIGKILL');
      await waitUntil(async () => {
        const holder = (await lease())?.spec?.holderIdentity;
        return holder !== undefined && holder !== leaderIdentity;
      }, 50);
      leaseAt = Date.now();
    });
    // The standby's first controller write after the kill: an update or patch of a region kind (the API's own
    // writes are creates; the Lease is not a region kind).
    const firstWrite = auditEvents(apiserver.auditLog)
      .filter(
        (e) =>
          e.user.username === standby.username &&
          (e.verb === 'update' || e.verb === 'patch') &&
          e.objectRef?.resource !== 'leases' &&
          Date.parse(e.stageTimestamp) >= killedAt,
      )
      .map((e) => Date.parse(e.stageTimestamp))
      .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
    const nova = await novaServers(region);
    const listed = await system.api<Read[]>('GET', '/api/v2/servers');
    return {
      projects: PROJECTS,
      servers,
      'duplicate Nova servers': judged(nova.duplicates, '≤', 0),
      'Nova servers of the wave': nova.total,
      'servers lost or stuck (not provisioned and running after quiet)': judged(
        servers - listed.filter(settled).length,
        '≤',
        0,
      ),
      'kill → standby holds the Lease (s)': round((leaseAt - killedAt) / 1000),
      "kill → standby's first controller write (s)": round((firstWrite - killedAt) / 1000),
      'wave wall time with the kill (s)': round(wave.wallMs / 1000),
      'wave wall time, one replica unkilled (s, the kube-apiserver scenario)':
        alone?.servers === servers ? round(alone.wallMs / 1000) : 'not run',
      'with the kill / unkilled': alone?.servers === servers ? round(wave.wallMs / alone.wallMs) : 'not run',
      'wall time / limit': round(wave.wallMs / wave.limit.wallMs),
      'OpenStack calls per server, until quiet': round(totalOf(wave.calls) / servers),
    };
  } finally {
    await region.stop();
  }
}

/** Two regions, a `serve` each scoped by `--namespace`, a wave in each at once. */
export async function benchSharding(servers: number): Promise<Figures | Skipped> {
  const apiserver = await benchApiserver();
  if (typeof apiserver === 'string') return { skipped: apiserver };
  const regions: KubeRegion[] = [];
  try {
    for (const label of ['shard-a', 'shard-b'])
      regions.push(await startKubeRegion(apiserver, label, MONITOR_PERIOD_MS));
    const replicas = await Promise.all(regions.map((r) => r.startReplica({ name: 'serve', api: true })));
    const systems: BenchSystem[] = [];
    for (const [i, region] of regions.entries()) systems.push(await region.system(replicas[i] as Replica, PROJECTS));
    const auditFrom = Date.now();
    const waves = await Promise.all(
      systems.map((system, i) => measureWave(system, servers, replicaProbe(replicas[i] as Replica))),
    );
    const figures: Figures = { projects: PROJECTS, 'servers in each region': servers };
    for (const [i, wave] of waves.entries()) {
      const name = i === 0 ? 'region A' : 'region B';
      figures[`${name}: wall time (s)`] = round(wave.wallMs / 1000);
      figures[`${name}: wall time / alone`] =
        alone?.servers === servers ? round(wave.wallMs / alone.wallMs) : 'not run';
      figures[`${name}: wall time / limit`] = round(wave.wallMs / wave.limit.wallMs);
      figures[`${name}: OpenStack calls per server`] = round(totalOf(wave.calls) / servers);
    }
    Object.assign(figures, isolation(apiserver, regions, replicas, auditFrom));
    return figures;
  } finally {
    for (const region of regions) await region.stop();
  }
}

const REGION_GROUPS = ['region.unikorn-cloud.org'];

/** From the audit log: requests each replica made outside its own namespace, of its region kinds or otherwise. */
function isolation(apiserver: BenchApiserver, regions: KubeRegion[], replicas: Replica[], from: number): Figures {
  const events = auditEvents(apiserver.auditLog);
  const figures: Figures = {};
  for (const [i, replica] of replicas.entries()) {
    const own = regions[i]?.namespace;
    const other = regions[1 - i]?.namespace;
    const mine = events.filter((e) => e.user.username === replica.username);
    const intoOther = mine.filter(
      (e) => e.objectRef?.namespace === other || e.requestURI.includes(`/${String(other)}/`),
    );
    const crossNamespace = mine.filter(
      (e) =>
        (e.verb === 'list' || e.verb === 'watch') &&
        e.objectRef?.namespace === undefined &&
        REGION_GROUPS.some((g) => e.requestURI.includes(`/apis/${g}/`)),
    );
    const elsewhere = new Set(
      mine.map((e) => e.objectRef?.namespace).filter((ns): ns is string => ns !== undefined && ns !== own),
    );
    const name = i === 0 ? 'region A' : 'region B';
    figures[`${name}'s serve: requests into the other region's namespace`] = judged(intoOther.length, '≤', 0);
    figures[`${name}'s serve: lists and watches of region kinds across namespaces`] = judged(
      crossNamespace.length,
      '≤',
      0,
    );
    figures[`${name}'s serve: other namespaces it touched`] = [...elsewhere].join(' ') || 'none';
    figures[`${name}'s serve: requests audited during the wave`] = mine.filter(
      (e) => Date.parse(e.stageTimestamp) >= from,
    ).length;
  }
  return figures;
}

/** SIGUSR2 to the replica (started with --heapsnapshot-signal), then waits until the snapshot is written. */
async function heapSnapshot(replica: Replica, dir: string): Promise<void> {
  const snapshots = () =>
    readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && f.includes(String(replica.pid)));
  replica.process.kill('SIGUSR2');
  let size = -1;
  await waitUntil(() => {
    const [file] = snapshots();
    if (file === undefined) return Promise.resolve(false);
    const now = statSync(join(dir, file)).size;
    const stable = now > 0 && now === size;
    size = now;
    return Promise.resolve(stable);
  }, 2_000);
}

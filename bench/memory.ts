/**
 * Resident memory of the control plane (what `openregion up` runs but the emulator: store, controllers, monitor,
 * REST API) at 0, 1,000 and 10,000 servers, as the kernel reports it, and the V8 heap in use in it; the emulator's
 * RSS is reported apart. The control plane runs from the built package in a process of its own (system.ts), as the
 * shipped command runs: the TypeScript loader the sources run under would add about 130 MiB. At each size, the
 * latency of `GET /api/v2/servers` (every server, as a console lists them).
 *
 * 0: up, with the 10 projects' identities and networks provisioned. 1,000: servers created through the REST API,
 * converged and quiet. 10,000: the 1,000 plus, to keep the run short, 9,000 more Server objects written straight
 * to the store (copies of a converged one's spec and labels without its identity label, so the controller writes
 * one "missing labels" status each and the monitor leaves them out) and 9,000 more servers created directly in the
 * emulator (admin POSTs, no network). So at 10,000 the store, its caches and the emulator hold 10,000 servers,
 * but only 1,000 are realised and polled by the controllers. The bench's own part runs in a child process, apart
 * from the other scenarios.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { REGION_NAMESPACE } from '../src/cli/up.ts';
import { createServer, updateQuotaSet } from '../src/openstack/compute.ts';
import { findImageByName } from '../src/openstack/image.ts';
import { Transport } from '../src/openstack/transport.ts';
import { serverType } from '../src/region/apis/index.ts';
import { labels as LABELS } from '../src/region/apis/shared.ts';
import { systemClock } from '../src/util/clock.ts';
import { round } from './emulator-calls.ts';
import { emulatorAdmin } from './emulator-process.ts';
import { judged, percentile } from './stats.ts';
import { allServers, createServers, PROJECTS, quiet, startFleetSystem } from './fleet.ts';
import type { BenchSystem } from './system.ts';

export async function benchMemory(sizes: readonly number[]): Promise<Record<string, number | string>> {
  // The control plane runs from the built package: build the sources at hand.
  const build = spawnSync('npm', ['run', 'build'], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build: ${build.stderr}`);
  const args = ['--import', 'tsx', new URL(import.meta.url).pathname, ...sizes.map(String)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 2 ** 20, timeout: 1_800_000 });
  const figures = JSON.parse(stdout) as Record<string, number>;
  const largest = sizes.at(-1)?.toLocaleString('en') ?? '0';
  const rss = figures[`RSS, ${largest} servers (MiB)`];
  const list = figures[`GET /api/v2/servers p99, ${largest} servers (ms)`];
  return {
    ...figures,
    ...(rss === undefined || largest !== '10,000'
      ? {}
      : { 'control plane RSS at 10,000 (MiB)': judged(rss, '<', 250) }),
    ...(list === undefined || largest !== '10,000'
      ? {}
      : { 'GET /api/v2/servers p99 at 10,000 (ms)': judged(list, '<', 100) }),
  };
}

const LIST_SAMPLES = 30;
const LIST_CLIENT = new URL('./list-client.ts', import.meta.url).pathname;

/**
 * `GET /api/v2/servers` (every server) LIST_SAMPLES times in a row from a client process of its own (list-client.ts):
 * p50 and p99 until the answer's last byte, and the client's JSON parse apart, ms. One list before them is given
 * apart: it serializes every object written since the last list (list-json.ts), once.
 */
async function listLatency(system: BenchSystem, servers: string): Promise<Record<string, number>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', LIST_CLIENT, String(LIST_SAMPLES + 1)],
    {
      env: {
        ...process.env,
        LIST_URL: `${system.control.api}/api/v2/servers`,
        LIST_AUTHORIZATION: system.authorization,
      },
      maxBuffer: 2 ** 20,
    },
  );
  const answers = JSON.parse(stdout) as { receivedMs: number[]; parsedMs: number[] };
  const [first, ...receivedMs] = answers.receivedMs;
  const parsedMs = answers.parsedMs.slice(1);
  return {
    [`  first GET /api/v2/servers after the writes, ${servers} servers (ms)`]: round(first ?? 0),
    [`GET /api/v2/servers p50, ${servers} servers (ms)`]: percentile(receivedMs, 50),
    [`GET /api/v2/servers p99, ${servers} servers (ms)`]: percentile(receivedMs, 99),
    [`  the client's JSON parse of it p50, ${servers} (ms)`]: percentile(parsedMs, 50),
  };
}

async function measure(sizes: readonly number[]): Promise<Record<string, number>> {
  const figures: Record<string, number> = {};
  const system = await startFleetSystem(true);
  try {
    Object.assign(figures, await usage(system, '0'), await emulatorUsage(system, '0'));
    let count = 0;
    for (const size of sizes) {
      const start = performance.now();
      if (count === 0) {
        await createServers(system, size);
        await allServers(system, size);
      } else {
        await storeServers(system, size - count);
        await emulatorServers(system, size - count);
      }
      figures[`reach ${size.toLocaleString('en')} servers (s)`] = round((performance.now() - start) / 1000);
      await quiet(system);
      count = size;
      const label = size.toLocaleString('en');
      Object.assign(
        figures,
        await usage(system, label),
        await emulatorUsage(system, label),
        await listLatency(system, label),
      );
    }
    figures['projects'] = PROJECTS;
    return figures;
  } finally {
    await system.stop();
  }
}

/** `count` more Server objects, cloned from a stored one as the REST API would write them. */
const IDENTITY_LABEL = LABELS.identityID;

async function storeServers(system: BenchSystem, count: number): Promise<void> {
  const stored = await system.control.store.list(serverType, { namespace: REGION_NAMESPACE });
  const template = stored.items[0];
  if (template === undefined) throw new Error('no server to copy');
  const { [IDENTITY_LABEL]: _identity, ...labels } = template.metadata.labels ?? {};
  const annotations = template.metadata.annotations ?? {};
  for (let i = 0; i < count; i++) {
    await system.control.store.create(serverType, {
      apiVersion: template.apiVersion,
      kind: template.kind,
      metadata: { name: randomUUID(), namespace: REGION_NAMESPACE, labels, annotations },
      spec: template.spec,
    });
  }
}

/** `count` servers made directly in the emulator, as its admin, in the admin project. */
async function emulatorServers(system: BenchSystem, count: number): Promise<void> {
  const emulator = system.calls;
  const transport = new Transport({ clock: systemClock, random: Math.random });
  try {
    const admin = emulatorAdmin(emulator.authUrl, transport);
    const compute = admin.client('compute');
    await updateQuotaSet(compute, (await admin.token()).project?.id ?? '', { instances: -1, cores: -1, ram: -1 });
    const flavors = await compute.request<{ flavors: { id: string }[] }>({ method: 'GET', path: '/flavors' });
    const image = await findImageByName(admin.client('image'), 'ubuntu-24.04');
    const flavor = flavors.body.flavors[0]?.id;
    if (flavor === undefined || !image) throw new Error('the demo cloud lacks a flavor or image');
    for (let i = 0; i < count; i++) {
      await createServer(compute, {
        name: `direct-${String(i)}`,
        flavorRef: flavor,
        imageRef: image.id,
        networks: 'none',
      });
    }
  } finally {
    await transport.close();
  }
}

async function emulatorUsage(system: BenchSystem, servers: string): Promise<Record<string, number>> {
  return { [`  emulator RSS (its own process), ${servers} servers (MiB)`]: (await system.calls.usage()).rssMiB };
}

/** The control plane's resident set as the kernel reports it (no forced GC), and the V8 heap in use in it. */
async function usage(system: BenchSystem, servers: string): Promise<Record<string, number>> {
  const memory = system.control.memory;
  if (memory === undefined) throw new Error('the memory scenario measures a control plane in a process of its own');
  const { rssMiB, heapUsedMiB, heapTotalMiB, externalMiB } = await memory();
  return {
    [`RSS, ${servers} servers (MiB)`]: rssMiB,
    [`  V8 heap used (MiB), ${servers}`]: heapUsedMiB,
    [`  V8 heap reserved (MiB), ${servers}`]: heapTotalMiB,
    [`  outside the V8 heap, counted by V8 (MiB), ${servers}`]: externalMiB,
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = process.argv.slice(2).map(Number);
  process.stdout.write(`${JSON.stringify(await measure(sizes.length === 0 ? [1_000, 10_000] : sizes))}\n`);
}

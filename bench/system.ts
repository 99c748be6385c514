/**
 * The whole control plane, started by `openregion up`'s own entry point (store, the demo region configured and
 * registered, controllers, server monitor, REST API) against the emulator in a process of its own
 * (emulator-process.ts, seeded with the demo cloud as `up` seeds its built-in one, given to `up` as a clouds.yaml
 * cloud), driven through its REST API over loopback HTTP, with the emulator's received calls counted where they
 * arrive. One option shortens the run: the monitor's period (60 s by default). Every other timer, the controllers'
 * 10 s re-checks among them, runs at its product value.
 *
 * By default the control plane runs in this process (its CPU is this process's). With `built`, it runs as the
 * shipped command does, `node bin/openregion.js up` from the built package in a process of its own, so its memory
 * is the product's alone (the TypeScript loader the source runs under costs about 130 MiB); the bench then reaches
 * its store through a second connection to the same file, as `openregion apply` does from a second shell.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startUp } from '../src/cli/up.ts';
import { storeEncryption } from '../src/cli/store-encryption.ts';
import { upFiles } from '../src/cli/up/files.ts';
import type { Client } from '../src/kube/client.ts';
import { openEmbeddedStore } from '../src/kube/embedded/store.ts';
import { signDevToken, type DevKeyPair } from '../src/region/http/dev-token.ts';
import { NO_ORGANIZATION_LIMITS } from '../src/region/http/decide-limit.ts';
import { silentLogger } from '../src/runtime/logger.ts';
import { systemClock } from '../src/util/clock.ts';
import { BENCH_KV_TOKEN, RemoteEmulator } from './emulator-process.ts';

export interface SystemOptions {
  readonly projects: number;
  readonly monitorPeriodMs: number;
  /** Run the control plane from the built package in a process of its own (see above). */
  readonly built?: boolean;
}

/** The running control plane, wherever it runs. */
interface ControlPlane {
  readonly api: string;
  readonly organizationID: string;
  readonly regionID: string;
  readonly store: Client;
  /** The control plane's process's memory now, in MiB, when it has one of its own. */
  readonly memory?: () => Promise<{ rssMiB: number; heapUsedMiB: number; heapTotalMiB: number; externalMiB: number }>;
  stop(): Promise<void>;
}

export interface Read {
  readonly metadata: { readonly id: string; readonly name: string; readonly provisioningStatus: string };
  readonly spec: Record<string, unknown>;
  readonly status: Record<string, unknown>;
}

export interface BenchSystem {
  readonly control: ControlPlane;
  /** The emulator's process, and the calls it received. */
  readonly calls: RemoteEmulator;
  /** One network per project: the server's tenancy. */
  readonly networks: readonly string[];
  readonly flavorId: string;
  readonly imageIds: readonly string[];
  api<T = Read>(method: string, path: string, body?: unknown): Promise<T>;
  /** The `Authorization` header `api` sends: for a client in a process of its own. */
  readonly authorization: string;
  stop(): Promise<void>;
}

export async function startSystem(options: SystemOptions): Promise<BenchSystem> {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-bench-up-'));
  const cloudsYaml = join(dir, 'bench-clouds.yaml');
  const calls = await RemoteEmulator.start(cloudsYaml);
  let up: ControlPlane;
  try {
    up = options.built === true ? await startBuilt(dir, cloudsYaml) : await startHere(dir, cloudsYaml, calls, options);
  } catch (error) {
    await calls.close();
    throw error;
  }
  const projects = Array.from({ length: options.projects }, () => randomUUID());
  const keys = JSON.parse(readFileSync(upFiles(dir).key, 'utf8')) as DevKeyPair;
  const token = await signDevToken(
    keys,
    { subject: 'bench', organizationIDs: [up.organizationID], projectIDs: projects },
    systemClock,
  );
  const api = async <T = Read>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${up.api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${String(response.status)} ${text}`);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };
  const stop = async () => {
    await up.stop();
    await calls.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const networks: string[] = [];
    for (const [i, projectID] of projects.entries()) {
      const network = await api('POST', '/api/v2/networks', {
        metadata: { name: `bench-net-${String(i)}` },
        spec: {
          organizationId: up.organizationID,
          projectId: projectID,
          regionId: up.regionID,
          prefix: '192.168.0.0/24',
          dnsNameservers: [],
        },
      });
      networks.push(network.metadata.id);
    }
    await waitUntil(async () => {
      const all = await api<Read[]>('GET', '/api/v2/networks');
      return all.filter((n) => n.metadata.provisioningStatus === 'provisioned').length === networks.length;
    });
    const region = `/api/v2/regions/${up.regionID}`;
    const flavors = await api<Read[]>('GET', `${region}/flavors`);
    const images = await api<Read[]>('GET', `${region}/images`);
    const flavorID = flavors[0]?.metadata.id;
    if (flavorID === undefined || images.length < 2) throw new Error('the demo region lacks a flavor or two images');
    return {
      control: up,
      calls,
      networks,
      flavorId: flavorID,
      imageIds: images.map((i) => i.metadata.id),
      api,
      authorization: `Bearer ${token}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startHere(
  dir: string,
  cloudsYaml: string,
  emulator: RemoteEmulator,
  options: SystemOptions,
): Promise<ControlPlane> {
  const up = await startUp({
    dir,
    host: '127.0.0.1',
    port: 0,
    cloud: 'bench',
    // The emulator's KV as the demo ControlPlane's OpenBao, as `up` uses its built-in emulator's.
    kv: { url: emulator.url, token: BENCH_KV_TOKEN },
    env: { OS_CLIENT_CONFIG_FILE: cloudsYaml },
    log: silentLogger(),
    monitorPeriodMs: options.monitorPeriodMs,
    // The figures are the system's, not the rate limiter's: the memory scenario creates 10,000 servers in a row.
    rateLimits: {},
    // Likewise the organization limits: those 10,000 servers are one organization's.
    organizationLimits: NO_ORGANIZATION_LIMITS,
  });
  return { ...up, stop: () => up.stop() };
}

const BUILT = new URL('../dist/cli/main.js', import.meta.url).pathname;
const COMMAND = new URL('../bin/openregion.js', import.meta.url).pathname;

/** The node flags the installed command runs with: its shebang's (ADR 0033), so the bench runs it as shipped. */
function shippedNodeFlags(): string[] {
  const shebang = readFileSync(COMMAND, 'utf8').split('\n', 1)[0] ?? '';
  return (/\bnode\b(.*)$/.exec(shebang)?.[1] ?? '').split(/\s+/).filter((flag) => flag !== '');
}

/** `openregion up` from the built package (`npm run build` first), its identity read from the dev.env it writes. */
async function startBuilt(dir: string, cloudsYaml: string): Promise<ControlPlane> {
  if (!existsSync(BUILT)) throw new Error('no built package: run `npm run build` first');
  const args = [BUILT, 'up', '--dir', dir, '--port', '0', '--cloud', 'bench'];
  const limits = [
    ...['--rate-limit-per-token', '0', '--rate-limit-per-address', '0'],
    ...['--organization-limit', 'all=unlimited'],
  ];
  // BENCH_PROFILE: the control plane's whole run as a CPU profile, written when it stops.
  const profiles = process.env['BENCH_PROFILE'];
  const profile =
    profiles === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profiles}`, '--cpu-prof-name=control-plane.cpuprofile'];
  const child = spawn(process.execPath, [...shippedNodeFlags(), ...profile, ...args, ...limits], {
    env: { ...process.env, OS_CLIENT_CONFIG_FILE: cloudsYaml },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      resolve();
    }),
  );
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const files = upFiles(dir);
    await waitUntil(() => Promise.resolve(existsSync(files.devEnv) || child.exitCode !== null), 100, 120_000);
    if (child.exitCode !== null) throw new Error(`openregion up exited: ${stderr}`);
    const env = new Map(
      [...readFileSync(files.devEnv, 'utf8').matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    const api = env.get('OPENREGION_API') ?? '';
    const organizationID = env.get('OPENREGION_ORGANIZATION_ID') ?? '';
    const regionID = env.get('OPENREGION_REGION_ID') ?? '';
    const encryption = storeEncryption(files.store, { clock: systemClock });
    const store = openEmbeddedStore(files.store, { clock: systemClock, garbageCollection: false, encryption });
    const pid = child.pid ?? 0;
    return {
      api,
      organizationID,
      regionID,
      store,
      memory: async () => {
        const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
        const metrics = await (await fetch(`${api}/metrics`)).text();
        const mib = (name: string) =>
          Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) / 2 ** 20);
        return {
          rssMiB: Math.round(Number(rss) / 1024),
          heapUsedMiB: mib('nodejs_heap_size_used_bytes'),
          heapTotalMiB: mib('nodejs_heap_size_total_bytes'),
          externalMiB: mib('nodejs_external_memory_bytes'),
        };
      },
      stop: async () => {
        await store.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls `done` every `everyMs` until it holds; no timeout but `limitMs`, so a stuck run says so. */
export async function waitUntil(done: () => Promise<boolean>, everyMs = 100, limitMs = 600_000): Promise<void> {
  const start = performance.now();
  while (!(await done())) {
    if (performance.now() - start > limitMs) throw new Error(`not converged after ${String(limitMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

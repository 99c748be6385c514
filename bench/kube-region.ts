/**
 * A region on the bench's kube-apiserver, run by `openregion serve` as an operator deploys it: the emulator (in a
 * process of its own, seeded as `up` seeds it) configured and registered with `openregion region configure` and
 * `region register` into a namespace of its own, and `serve` replicas from the built package (`npm run build`),
 * each with a ServiceAccount of its own (so the audit log names which replica asked what), the region controller
 * groups and the monitor, `--poll-period` as the embedded bench's monitor period, no API rate limits. The bench
 * drives it through a replica's REST API with a development token, as system.ts drives `up`, so the fleet helpers
 * (fleet.ts) run unchanged on it.
 */
import { DEFAULT_ORGANIZATION_LIMITS } from '../src/region/http/decide-limit.ts';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createPublicKey, randomBytes, randomUUID, type JsonWebKey } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { isKubeAlreadyExists } from '../src/kube/errors.ts';
import type { KubeObject } from '../src/kube/object.ts';
import { builtin, type ResourceType } from '../src/kube/resource-type.ts';
import { DEV_AUDIENCE, DEV_ISSUER, generateDevKeyPair, signDevToken } from '../src/region/http/dev-token.ts';
import { systemClock } from '../src/util/clock.ts';
import { freePort, mintToken, tokenKubeconfig } from '../test/kube/deploy-fixture.ts';
import { installRegionCrds } from '../test/kube/fixtures.ts';
import { configureAndRegister, forceDeregister } from '../test/kube/region-setup.ts';
import { RemoteEmulator } from './emulator-process.ts';
import type { BenchApiserver } from './kube-apiserver.ts';
import { waitUntil, type BenchSystem, type Read } from './system.ts';

const exec = promisify(execFile);
const ROOT = new URL('..', import.meta.url).pathname;
const BUILT = join(ROOT, 'dist/cli/main.js');

let built = false;
export const heapSnapshotDir = process.env['BENCH_HEAP_SNAPSHOT'];
const SERVER_LIMIT = Number(process.env['BENCH_KUBE_SERVERS'] ?? 0);

/** The control plane runs from the built package: build the sources at hand, once a run. */
export function buildOnce(): void {
  if (built) return;
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`npm run build: ${build.stderr}`);
  built = true;
}

/** The node flags the installed command runs with: its shebang's (ADR 0033). */
function shippedNodeFlags(): string[] {
  const shebang = readFileSync(join(ROOT, 'bin/openregion.js'), 'utf8').split('\n', 1)[0] ?? '';
  return (/\bnode\b(.*)$/.exec(shebang)?.[1] ?? '').split(/\s+/).filter((flag) => flag !== '');
}

async function openregion(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [BUILT, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`openregion ${args.join(' ')}: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: error });
  }
}

export interface Replica {
  readonly name: string;
  /** The ServiceAccount's user, as the audit log names it. */
  readonly username: string;
  readonly process: ChildProcess;
  readonly pid: number;
  readonly health: string;
  readonly api?: string;
  /** CPU time (user + system) so far, ms, and the resident set, MiB, from /proc. */
  usage(): { cpuMs: number; rssMiB: number };
  /** The event loop's delay since the last call (prom-client resets its histogram at each scrape), ms. */
  loopDelay(): Promise<{ p99Ms: number; maxMs: number }>;
  readonly exited: Promise<void>;
}

export interface KubeRegion {
  readonly namespace: string;
  readonly regionId: string;
  readonly organization: string;
  readonly emulator: RemoteEmulator;
  readonly replicas: Replica[];
  /** A `serve` replica of this region. */
  startReplica(options: { name: string; api?: boolean; leaderElection?: boolean }): Promise<Replica>;
  /** The bench's view of the region through `replica`'s REST API: `projects` projects, a network each. */
  system(replica: Replica, projects: number): Promise<BenchSystem>;
  stop(): Promise<void>;
}

const CLK_TCK = 100;

const serviceAccount: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
};
const clusterRoleBinding: ResourceType = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
};

/** `up`'s embedded-store monitor period (fleet.ts), as `--poll-period`. */
export async function startKubeRegion(
  apiserver: BenchApiserver,
  label: string,
  monitorPeriodMs: number,
): Promise<KubeRegion> {
  buildOnce();
  const run = randomBytes(3).toString('hex');
  const namespace = `bench-${label}-${run}`;
  const organization = `org-${run}`;
  const dir = mkdtempSync(join(tmpdir(), `openregion-bench-${label}-`));
  const cloudsYaml = join(dir, 'clouds.yaml');
  const emulator = await RemoteEmulator.start(cloudsYaml);
  const cluster = apiserver.client;
  const replicas: Replica[] = [];
  let regionId = '';
  const stop = async () => {
    for (const replica of replicas) {
      if (replica.process.exitCode === null) replica.process.kill('SIGTERM');
      await replica.exited;
    }
    if (regionId !== '')
      await forceDeregister(openregion, { regionId, namespace, kubeconfig: apiserver.kubeconfigPath }).catch(
        () => undefined,
      );
    for (const replica of replicas)
      await cluster.delete(clusterRoleBinding, undefined, `${namespace}-${replica.name}`).catch(() => undefined);
    await cluster.delete(builtin.namespace, undefined, namespace).catch(() => undefined);
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await installRegionCrds(cluster);
    ({ regionId } = await configureAndRegister(openregion, {
      prefix: `b${run}`,
      providerEnv: join(dir, 'region.env'),
      osCloud: 'bench',
      env: { OS_CLIENT_CONFIG_FILE: cloudsYaml },
      name: namespace,
      namespace,
      kubeconfig: apiserver.kubeconfigPath,
      organization,
    }));
  } catch (error) {
    await stop();
    throw error;
  }
  const keys = await generateDevKeyPair();
  const publicKey = join(dir, 'dev-key.pem');
  writeFileSync(
    publicKey,
    createPublicKey({ key: keys.publicJwk as JsonWebKey, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString(),
  );

  const startReplica: KubeRegion['startReplica'] = async ({ name, api = false, leaderElection = false }) => {
    // Its own ServiceAccount (cluster-admin: what it may do is not measured here, what it does is).
    for (const object of [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: `${namespace}-${name}` },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', name, namespace }],
      },
    ] as KubeObject[]) {
      const type = object.kind === 'ServiceAccount' ? serviceAccount : clusterRoleBinding;
      await cluster.create(type, object).catch((error: unknown) => {
        if (!isKubeAlreadyExists(error)) throw error;
      });
    }
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    const token = await mintToken(apiserver.kubeconfig, namespace, name);
    writeFileSync(kubeconfig, tokenKubeconfig(apiserver.kubeconfig, token, namespace), { mode: 0o600 });
    const health = await freePort();
    const apiPort = api ? await freePort() : undefined;
    const child = spawn(
      process.execPath,
      [
        ...shippedNodeFlags(),
        // BENCH_HEAP_SNAPSHOT=<dir>: a heap snapshot of the replica on SIGUSR2 (kube-serve.ts takes one after the wave).
        ...(heapSnapshotDir === undefined
          ? []
          : ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapSnapshotDir}`]),
        BUILT,
        'serve',
        `--kubeconfig=${kubeconfig}`,
        `--namespace=${namespace}`,
        '--controllers=identities,networks,servers,loadbalancers,volumes,monitor',
        ...(leaderElection ? ['--leader-election', '--leader-election-profile=fast'] : []),
        `--poll-period=${String(monitorPeriodMs)}ms`,
        `--health=127.0.0.1:${String(health)}`,
        '--log-level=warn',
        '--rate-limit-per-token=0',
        '--rate-limit-per-address=0',
        // The organization's server limit (1,000 by default, ADR 0041) raised only for a larger wave.
        ...(SERVER_LIMIT > (DEFAULT_ORGANIZATION_LIMITS.defaults.servers ?? Infinity)
          ? [`--organization-limit=servers=${String(SERVER_LIMIT)}`]
          : []),
        ...(apiPort === undefined
          ? []
          : [
              `--api=127.0.0.1:${String(apiPort)}`,
              `--public-key-file=${publicKey}`,
              `--issuer=${DEV_ISSUER}`,
              `--audience=${DEV_AUDIENCE}`,
            ]),
      ],
      { env: { ...process.env, OS_CLIENT_CONFIG_FILE: cloudsYaml }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const log = createWriteStream(join(dir, `${name}.log`));
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const exited = new Promise<void>((resolve) =>
      child.once('exit', () => {
        resolve();
      }),
    );
    const pid = child.pid ?? 0;
    const healthUrl = `http://127.0.0.1:${String(health)}`;
    const replica: Replica = {
      name,
      username: `system:serviceaccount:${namespace}:${name}`,
      process: child,
      pid,
      health: healthUrl,
      ...(apiPort === undefined ? {} : { api: `http://127.0.0.1:${String(apiPort)}` }),
      usage: () => {
        const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const ticks = Number(fields[11]) + Number(fields[12]);
        const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1];
        return { cpuMs: (ticks * 1000) / CLK_TCK, rssMiB: Math.round(Number(rss) / 1024) };
      },
      loopDelay: async () => {
        const metrics = await (await fetch(`${healthUrl}/metrics`)).text();
        const ms = (name: string) =>
          Math.round(Number(new RegExp(`^${name} (\\S+)`, 'm').exec(metrics)?.[1]) * 1e5) / 100;
        return { p99Ms: ms('nodejs_eventloop_lag_p99_seconds'), maxMs: ms('nodejs_eventloop_lag_max_seconds') };
      },
      exited,
    };
    replicas.push(replica);
    await waitUntil(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`serve ${name} exited: ${readFileSync(join(dir, `${name}.log`), 'utf8')}`);
        return (await fetch(`${healthUrl}/readyz`).catch(() => undefined))?.status === 200;
      },
      200,
      180_000,
    );
    return replica;
  };

  const system: KubeRegion['system'] = async (replica, count) => {
    const base = replica.api ?? '';
    const projects = Array.from({ length: count }, () => randomUUID());
    const token = await signDevToken(
      keys,
      { subject: 'bench', organizationIDs: [organization], projectIDs: projects },
      systemClock,
    );
    const api = async <T = Read>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${base}${path}`, {
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
    const region = `/api/v2/regions/${regionId}`;
    let flavors: Read[] = [];
    let images: Read[] = [];
    await waitUntil(
      async () => {
        flavors = await api<Read[]>('GET', `${region}/flavors`).catch(() => []);
        images = await api<Read[]>('GET', `${region}/images`).catch(() => []);
        return flavors.length > 0 && images.length >= 2;
      },
      500,
      120_000,
    );
    const networks: string[] = [];
    for (const [i, projectId] of projects.entries()) {
      const network = await api('POST', '/api/v2/networks', {
        metadata: { name: `bench-net-${String(i)}` },
        spec: { organizationId: organization, projectId, regionId, prefix: '192.168.0.0/24', dnsNameservers: [] },
      });
      networks.push(network.metadata.id);
    }
    await waitUntil(async () => {
      const all = await api<Read[]>('GET', '/api/v2/networks');
      return all.filter((n) => n.metadata.provisioningStatus === 'provisioned').length === networks.length;
    }, 500);
    return {
      control: { api: base, organizationID: organization, regionID: regionId, store: cluster, stop: () => stop() },
      calls: emulator,
      networks,
      flavorId: flavors[0]?.metadata.id ?? '',
      imageIds: images.map((i) => i.metadata.id),
      api,
      authorization: `Bearer ${token}`,
      stop,
    };
  };

  return { namespace, regionId, organization, emulator, replicas, startReplica, system, stop };
}

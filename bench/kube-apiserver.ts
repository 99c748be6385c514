/**
 * The bench's own kube-apiserver 1.20 + etcd (scripts/kube-apiserver.sh), started once for the kube-apiserver,
 * high-availability and sharding scenarios and stopped at the end of the run: its own state directory and ports
 * (OPENREGION_KUBE_STATE, OPENREGION_KUBE_PORT, OPENREGION_ETCD_PORT when set, else fresh ones), so a shared
 * server is left as found. The audit log is on (OPENREGION_KUBE_AUDIT=1): it says which client read what.
 *
 * Figures read from the server itself: `apiserver_request_total` from its /metrics, counted for JSON clients only
 * (the apiserver's own loopback clients speak protobuf, so its housekeeping stays out of the control plane's
 * figures), and etcd's database size from etcd's /metrics.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Agent, fetch } from 'undici';
import { parse } from 'yaml';
import type { KubernetesClient } from '../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../src/kube/kubernetes/connect.ts';
import { freePort } from '../test/kube/deploy-fixture.ts';

const run = promisify(execFile);
const SCRIPT = new URL('../scripts/kube-apiserver.sh', import.meta.url).pathname;

export interface BenchApiserver {
  readonly kubeconfigPath: string;
  readonly kubeconfig: string;
  readonly client: KubernetesClient;
  readonly auditLog: string;
  /** `apiserver_request_total` of JSON clients, by verb and by `verb resource`. */
  requests(): Promise<Map<string, number>>;
  /** etcd's database size, bytes. */
  etcdBytes(): Promise<number>;
  stop(): Promise<void>;
}

let started: Promise<BenchApiserver | string> | undefined;

/** The bench's kube-apiserver, started on first use; a string says why there is none (the scenario is skipped). */
export function benchApiserver(): Promise<BenchApiserver | string> {
  return (started ??= start());
}

export async function closeBenchApiserver(): Promise<void> {
  const running = started;
  started = undefined;
  const apiserver = await running;
  if (typeof apiserver === 'object') await apiserver.stop();
}

async function start(): Promise<BenchApiserver | string> {
  const built = await run('bash', [SCRIPT, 'binary']).then(
    () => true,
    () => false,
  );
  if (!built) return `kube-apiserver is not built here: bash ${SCRIPT} build (about 13 minutes, cached)`;
  const ownState = process.env['OPENREGION_KUBE_STATE'] === undefined;
  const state = process.env['OPENREGION_KUBE_STATE'] ?? mkdtempSync(join(tmpdir(), 'openregion-bench-kube-'));
  const env = {
    ...process.env,
    OPENREGION_KUBE_STATE: state,
    OPENREGION_KUBE_PORT: process.env['OPENREGION_KUBE_PORT'] ?? String(await freePort()),
    OPENREGION_ETCD_PORT: process.env['OPENREGION_ETCD_PORT'] ?? String(await freePort()),
    OPENREGION_KUBE_AUDIT: '1',
  };
  const { stdout } = await run('bash', [SCRIPT, 'start'], { env, timeout: 180_000 });
  const kubeconfigPath = stdout.trim().split('\n').at(-1) ?? '';
  const kubeconfig = readFileSync(kubeconfigPath, 'utf8');
  const config = parse(kubeconfig) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { token: string } }[];
  };
  const server = config.clusters[0]?.cluster.server ?? '';
  const token = config.users[0]?.user.token ?? '';
  // The serving certificate is self-signed (scripts/kube-apiserver.sh).
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  const client = kubeClientFrom({ kubeconfig });
  return {
    kubeconfigPath,
    kubeconfig,
    client,
    auditLog: join(state, 'audit.log'),
    requests: async () => {
      const text = await (
        await fetch(`${server}/metrics`, { headers: { authorization: `Bearer ${token}` }, dispatcher })
      ).text();
      return requestCounts(text);
    },
    etcdBytes: async () => {
      const text = await (await fetch(`http://127.0.0.1:${env.OPENREGION_ETCD_PORT}/metrics`)).text();
      return Number(/^etcd_mvcc_db_total_size_in_bytes (\S+)/m.exec(text)?.[1] ?? Number.NaN);
    },
    stop: async () => {
      client.close();
      await dispatcher.close();
      await run('bash', [SCRIPT, 'stop'], { env, timeout: 120_000 });
      if (ownState) rmSync(state, { recursive: true, force: true });
    },
  };
}

/** `apiserver_request_total` of JSON clients on resources, summed by verb and by `verb resource`. */
export function requestCounts(metrics: string): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);
  for (const m of metrics.matchAll(/^apiserver_request_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = new Map([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1] ?? '', l[2] ?? '']));
    const resource = labels.get('resource') ?? '';
    if (resource === '' || !(labels.get('contentType') ?? '').includes('json')) continue;
    const verb = labels.get('verb') ?? '';
    const sub = labels.get('subresource') ?? '';
    add(verb, Number(m[2]));
    add(`${verb} ${resource}${sub === '' ? '' : `/${sub}`}`, Number(m[2]));
  }
  return counts;
}

/** What a run of the control plane asked the apiserver, by kind of request: `after` less `before`. */
export function requestsBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): { reads: number; writes: number; watches: number; byVerb: Map<string, number> } {
  const byVerb = new Map<string, number>();
  for (const [key, n] of after) {
    const delta = n - (before.get(key) ?? 0);
    if (delta > 0) byVerb.set(key, delta);
  }
  const sum = (verbs: readonly string[]) => verbs.reduce((total, v) => total + (byVerb.get(v) ?? 0), 0);
  return {
    reads: sum(['GET', 'LIST']),
    writes: sum(['POST', 'PUT', 'PATCH', 'APPLY', 'DELETE', 'DELETECOLLECTION']),
    watches: sum(['WATCH', 'WATCHLIST']),
    byVerb,
  };
}

export interface AuditEvent {
  readonly verb: string;
  readonly user: { readonly username: string };
  readonly requestURI: string;
  readonly stage: string;
  readonly objectRef?: { readonly resource?: string; readonly namespace?: string; readonly subresource?: string };
  readonly stageTimestamp: string;
}

/** The audit log's events, one per request (a watch's at its start: `ResponseStarted`), its rotated files too. */
export function auditEvents(path: string): AuditEvent[] {
  const dir = dirname(path);
  const name = basename(path, '.log');
  return readdirSync(dir)
    .filter((file) => file.startsWith(name) && file.endsWith('.log'))
    .flatMap((file) => readFileSync(join(dir, file), 'utf8').split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter((e) => e.stage === (e.verb === 'watch' ? 'ResponseStarted' : 'ResponseComplete'));
}

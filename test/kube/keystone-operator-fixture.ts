/**
 * The Keystone operator as the namespaced overlay deploys it, outside a pod: a private kube-apiserver 1.20 as the
 * management cluster (the real K-ORC and ESO CRDs, the c5c3 stand-ins), deploy/overlays/keystone-operator rendered
 * for this run's watched namespaces and applied, a ControlPlane in External mode on the emulator's Keystone and KV,
 * K-ORC and ESO played by the bundled stand-ins with the admin's credentials (their own deployments in a cluster),
 * and `serve` started as `openregion` processes with the Deployment's own args and only a token TokenRequest minted
 * for the overlay's ServiceAccount. Used by test/kube/keystone-namespaced.test.ts and bench/keystone-failover.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Emulator } from '../../src/emulator/emulator.ts';
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import { registerBundledActuators, type BundledActuators } from '../../src/keystone/actuators/bundled.ts';
import { installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { discoverStoreType, keystoneCrds, keystoneUserType, pushSecretType } from '../../src/keystone/apis/index.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemClock } from '../../src/util/clock.ts';
import { esoCrds, korcCrds } from '../fixtures/third-party-crds/index.ts';
import { setUpExternalControlPlane } from './control-plane-fixture.ts';
import {
  deploymentArgsOutsidePod,
  freePort,
  kubectl,
  mintToken,
  renderKeystoneOperator,
  tokenKubeconfig,
  type Rendered,
} from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import { startPrivateApiServer, type PrivateApiServer } from './keystone-clusters.ts';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
export const CP_NS = 'openstack';
export const CLUSTERS_NS = 'c5c3-clusters';
const KV_TOKEN = 'keystone-namespaced-kv';

export interface ServeProcess {
  readonly child: ChildProcess;
  /** http://127.0.0.1:PORT of its probe port. */
  readonly health: string;
  output(): string;
  /** Whether /readyz answers 200. */
  ready(): Promise<boolean>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface NamespacedOperator {
  readonly server: PrivateApiServer;
  /** The cluster administrator's client. */
  readonly admin: KubernetesClient;
  /** A client holding only the operator ServiceAccount's token. */
  readonly operator: KubernetesClient;
  readonly emulator: Emulator;
  readonly rendered: Rendered;
  /** Starts `serve` with the Deployment's args (and `extra` after them) and the ServiceAccount's token. */
  serve(extra?: readonly string[]): Promise<ServeProcess>;
  close(): Promise<void>;
}

/**
 * Everything above, the overlay watching `watched` (the ControlPlane's namespace among them), each of `namespaces`
 * created; the ControlPlane assigns `assigned`.
 */
export async function startNamespacedOperator(options: {
  readonly name: string;
  readonly watched: readonly string[];
  readonly namespaces: readonly string[];
  readonly assigned: readonly string[];
}): Promise<NamespacedOperator> {
  const dir = mkdtempSync(join(tmpdir(), `openregion-${options.name}-`));
  const server = await startPrivateApiServer(options.name);
  const processes: ServeProcess[] = [];
  let emulator: Emulator | undefined;
  let standIns: { manager: Manager; actuators: BundledActuators } | undefined;
  const admin = kubeClientFrom({ kubeconfig: server.kubeconfig });
  let operator: KubernetesClient | undefined;
  const close = async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await standIns?.manager.stop();
    await standIns?.actuators.close();
    operator?.close();
    admin.close();
    await emulator?.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    emulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
    await installCrds(admin, [...keystoneCrds(), ...c5c3StandInCrds(), ...korcCrds(), ...esoCrds('v2.9')]);
    await eventually('KeystoneUsers and PushSecrets served', () =>
      admin.list(keystoneUserType).then(() => admin.list(pushSecretType)),
    );
    for (const name of new Set([CP_NS, CLUSTERS_NS, ...options.watched, ...options.namespaces]))
      await admin.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const adminPath = join(dir, 'admin');
    writeFileSync(adminPath, server.kubeconfig, { mode: 0o600 });
    const rendered = await renderKeystoneOperator(options.watched);
    await kubectl(adminPath, ['apply', '--server-side', '-f', '-'], rendered.yaml);
    const token = await mintToken(server.kubeconfig, rendered.namespace, rendered.name('openregion'));
    const operatorKubeconfig = tokenKubeconfig(server.kubeconfig, token, rendered.namespace);
    const operatorPath = join(dir, 'operator');
    writeFileSync(operatorPath, operatorKubeconfig, { mode: 0o600 });
    operator = kubeClientFrom({ kubeconfig: operatorKubeconfig });

    // K-ORC's and ESO's part, played by the bundled stand-ins with the admin's credentials.
    const storeType = await eventually('SecretStore served', () => discoverStoreType(admin, 'SecretStore'));
    const manager = new Manager({ client: admin, clock: systemClock });
    standIns = { manager, actuators: registerBundledActuators(manager, { storeType, clock: systemClock }) };
    await manager.start();
    await setUpExternalControlPlane(admin, {
      namespace: CP_NS,
      name: 'cp',
      namespaceAssignments: options.assigned.map((namespace) => ({ namespace })),
      keystoneAuthUrl: emulator.authUrl,
      adminCloudsYaml: emulator.cloudsYaml('admin'),
      kv: { url: emulator.url, token: KV_TOKEN },
      storeType,
    });

    const serve = async (extra: readonly string[] = []): Promise<ServeProcess> => {
      const port = await freePort();
      const health = `http://127.0.0.1:${String(port)}`;
      const args = deploymentArgsOutsidePod(rendered, operatorPath, `127.0.0.1:${String(port)}`);
      const child = spawn(process.execPath, ['--import', 'tsx', main, ...args, ...extra], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = once(child, 'exit');
      const process_: ServeProcess = {
        child,
        health,
        output: () => output,
        ready: async () => (await fetch(`${health}/readyz`).catch(() => undefined))?.status === 200,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      };
      processes.push(process_);
      return process_;
    };
    return { server, admin, operator, emulator, rendered, serve, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The JSON lines a `serve` process logged with this message. */
export function logged(serve: ServeProcess, msg: string): Record<string, unknown>[] {
  return serve
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record['msg'] === msg);
}

/** The identity a replica stands for election under (its first log line about the controllers' Lease). */
export function identityOf(serve: ServeProcess): string | undefined {
  const record = logged(serve, 'standing for election').find((r) =>
    String(r['lease']).endsWith('/openregion-controllers'),
  );
  return record === undefined ? undefined : String(record['identity']);
}

/** The KeystoneUser controller's finished passes and queue depth, from a replica's /metrics. */
export async function keystonePasses(serve: ServeProcess): Promise<{ passes: number; depth: number } | undefined> {
  const response = await fetch(`${serve.health}/metrics`).catch(() => undefined);
  if (response?.status !== 200) return undefined;
  const text = await response.text();
  let passes = 0;
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{[^}]*controller="keystoneuser"[^}]*\} (\d+)/gm))
    passes += Number(m[1]);
  const depth = Number(/^workqueue_depth\{name="keystoneuser"\} (\d+)/m.exec(text)?.[1] ?? 'NaN');
  return { passes, depth };
}

export interface FailoverFigures {
  /** From the SIGKILL to the standby holding the Lease. */
  readonly leaseMs: number;
  /** From the SIGKILL to the new leader having finished a pass of every order (each name logged `reconciled`). */
  readonly rereadMs: number;
  /** From the new leader's first pass to the pass that completed the set. */
  readonly passesMs: number;
  /** The new leader's passes by then (more than the orders when children's events wake some twice). */
  readonly passes: number;
}

/**
 * SIGKILLs `leader` and times the take-over by `standby` (run with --log-level=debug, which logs each finished
 * pass): the Lease (polled every 50 ms), then every one of the `orders` orders in `namespace`'s orders re-read,
 * told by the distinct names the new leader logged `reconciled` for (its output read every 100 ms).
 */
export async function killLeader(
  admin: KubernetesClient,
  leader: ServeProcess,
  standby: ServeProcess,
  orders: number,
  leaseNamespace: string,
): Promise<FailoverFigures> {
  const standbyIdentity = identityOf(standby);
  if (standbyIdentity === undefined) throw new Error('the standby has not stood for election');
  if (logged(standby, 'reconciled').length > 0) throw new Error('the standby made passes before leading');
  const killedAt = performance.now();
  await leader.stop('SIGKILL');
  let leaseAt: number | undefined;
  let firstPassAt: number | undefined;
  // The output read so far, parsed a line at a time as it grows (a full parse every 100 ms would load this process).
  let offset = 0;
  let passes = 0;
  const names = new Set<string>();
  for (;;) {
    const now = performance.now();
    if (now - killedAt > 1_800_000) throw new Error(`no re-read within 30 minutes: ${standby.output().slice(-2_000)}`);
    if (leaseAt === undefined) {
      const lease = await admin.get(builtin.lease, leaseNamespace, 'openregion-controllers').catch(() => undefined);
      const holder = (lease?.['spec'] as { holderIdentity?: string } | undefined)?.holderIdentity;
      if (holder === standbyIdentity) leaseAt = performance.now();
    }
    const output = standby.output();
    const end = output.lastIndexOf('\n') + 1;
    for (const line of output.slice(offset, end).split('\n')) {
      if (!line.includes('"msg":"reconciled"') || !line.includes('"controller":"keystoneuser"')) continue;
      const record = JSON.parse(line) as Record<string, unknown>;
      passes++;
      names.add(`${String(record['namespace'])}/${String(record['name'])}`);
    }
    offset = Math.max(offset, end);
    if (passes > 0) firstPassAt ??= performance.now();
    if (leaseAt !== undefined && names.size >= orders) {
      const doneAt = performance.now();
      return {
        leaseMs: leaseAt - killedAt,
        rereadMs: doneAt - killedAt,
        passesMs: doneAt - (firstPassAt ?? doneAt),
        passes,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, leaseAt === undefined ? 50 : 100));
  }
}

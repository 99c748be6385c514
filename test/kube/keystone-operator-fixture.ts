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

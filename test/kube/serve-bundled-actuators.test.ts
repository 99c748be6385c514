/**
 * `openregion serve --controllers keystone --bundled-actuators` on a cluster that runs neither K-ORC nor ESO: a
 * private kube-apiserver 1.20 + etcd of this suite's (the stand-in CRDs are cluster-wide) holding openregion's
 * Keystone CRDs and ESO 2.9's CRDs but no ESO controller, and the emulator's Keystone and OpenBao-compatible KV
 * behind a ControlPlane in External mode. serve installs the K-ORC stand-ins, keeps ESO's CRDs as they are, and a
 * KeystoneUser goes to Ready (a clouds.yaml that authenticates, backed up in the KV) and, deleted, takes its
 * Keystone user and KV path with it. Skipped loudly without the kube-apiserver binary; a failure under CI.
 */
import { BUNDLED_CRD_LABEL, c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { Emulator } from '../../src/emulator/emulator.ts';
import { KvClient } from '../../src/keystone/actuators/eso/kv.ts';
import { installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { discoverStoreType, keystoneCrds, keystoneUserType, type KeystoneUser } from '../../src/keystone/apis/index.ts';
import { keystoneUserKind, orderRemoteKey } from '../../src/keystone/order/names.ts';
import { isKubeNotFound } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { loadCloudConfig } from '../../src/openstack/config.ts';
import { findUserByName } from '../../src/openstack/identity.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';
import { systemClock } from '../../src/util/clock.ts';
import { esoCrds } from '../fixtures/third-party-crds/index.ts';
import { setUpExternalControlPlane } from './control-plane-fixture.ts';
import { freePort } from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import { startPrivateApiServer, type PrivateApiServer } from './keystone-clusters.ts';
import { withRealApiServer } from './real-apiserver.ts';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const CP_NS = 'openstack';
const ORDERS_NS = 'tenant';
const KV_TOKEN = 'bundled-kv';
const CONVERGE_MS = 120_000;
const K_ORC_CRDS = ['users.openstack.k-orc.cloud', 'domains.openstack.k-orc.cloud'];

const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const conditionOf = (o: KeystoneUser, type: string) => o.status?.conditions?.find((c) => c.type === type);

/** A session for a clouds.yaml's cloud, read as any OpenStack tool reads the file. */
function sessionFor(cloudsYaml: string, cloud: string, transport: Transport): Session {
  const config = loadCloudConfig(
    {
      env: { OS_CLIENT_CONFIG_FILE: 'clouds.yaml' },
      cwd: '/nonexistent',
      home: '/nonexistent',
      readFile: (path) => (path === 'clouds.yaml' ? cloudsYaml : undefined),
    },
    cloud,
  );
  return new Session({ ...config, transport, clock: systemClock });
}

await withRealApiServer('test/kube/serve-bundled-actuators.test.ts', () => {
  describe('serve --bundled-actuators on a cluster without K-ORC or ESO running, on kube-apiserver 1.20', () => {
    const dir = mkdtempSync(join(tmpdir(), 'openregion-serve-bundled-'));
    const transport = new Transport({ clock: systemClock, random: Math.random });
    let server: PrivateApiServer | undefined;
    let cluster: KubernetesClient;
    let emulator: Emulator;
    let serve: ChildProcess | undefined;
    let output = '';
    let health = '';

    before(async () => {
      emulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
      server = await startPrivateApiServer(`serve-bundled-${String(process.pid)}`);
      const kubeconfigPath = join(dir, 'admin');
      writeFileSync(kubeconfigPath, server.kubeconfig, { mode: 0o600 });
      cluster = kubeClientFrom({ kubeconfig: server.kubeconfig });
      // openregion's CRDs as deploy/crds installs them, and ESO's CRDs with no ESO running: the installer keeps those.
      await installCrds(cluster, [...keystoneCrds(), ...c5c3StandInCrds(), ...esoCrds('v2.9')]);
      for (const name of [CP_NS, ORDERS_NS]) await cluster.create(builtin.namespace, namespace(name));

      const port = await freePort();
      health = `http://127.0.0.1:${String(port)}`;
      serve = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          main,
          'serve',
          `--kubeconfig=${kubeconfigPath}`,
          '--controllers=keystone',
          '--bundled-actuators',
          '--namespace=openregion-system',
          `--health=127.0.0.1:${String(port)}`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    });

    after(async () => {
      if (serve?.exitCode === null) serve.kill('SIGKILL');
      cluster.close();
      await server?.stop();
      await emulator.close();
      await transport.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("starts Ready, installing K-ORC's stand-ins and keeping ESO's CRDs as they were", async () => {
      const started = /"controllers":\["keystone users","K-ORC \(bundled\)","ESO \(bundled\)"\]/;
      // Ready can answer before the start-up line reaches this process's pipe: wait for both.
      await eventually(
        '/readyz and the start-up line',
        async () =>
          (await fetch(`${health}/readyz`).catch(() => undefined))?.status === 200 && started.test(output)
            ? true
            : undefined,
        90_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; serve's output: ${output.slice(-4_000) || '(none)'}`);
      });
      for (const name of K_ORC_CRDS) {
        const crd = await cluster.get(builtin.customResourceDefinition, undefined, name);
        assert.equal(crd.metadata.labels?.[BUNDLED_CRD_LABEL], 'true', `${name} is the stand-in`);
      }
      for (const crd of esoCrds('v2.9')) {
        const live = await cluster.get(builtin.customResourceDefinition, undefined, crd.metadata.name);
        assert.equal(live.metadata.labels?.[BUNDLED_CRD_LABEL], undefined, `${crd.metadata.name} kept`);
        assert.equal(live.metadata.generation, 1, `${crd.metadata.name} untouched`);
      }
    });

    it('a KeystoneUser reaches Ready: a clouds.yaml that authenticates, backed up in the KV; deleted, all gone', async () => {
      const storeType = (await discoverStoreType(cluster, 'SecretStore')) ?? assert.fail('SecretStore served');
      await setUpExternalControlPlane(cluster, {
        namespace: CP_NS,
        name: 'cp',
        namespaceAssignments: [{ namespace: ORDERS_NS }],
        keystoneAuthUrl: emulator.authUrl,
        adminCloudsYaml: emulator.cloudsYaml('admin'),
        kv: { url: emulator.url, token: KV_TOKEN },
        storeType: storeType,
      });
      const name = 'bundled-order';
      const order = () => cluster.get(keystoneUserType, ORDERS_NS, name);
      await cluster.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name, namespace: ORDERS_NS },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      const ready = await eventually(
        `${name} Ready`,
        async () => {
          const o = await order();
          return conditionOf(o, 'Ready')?.status === 'True' ? o : undefined;
        },
        CONVERGE_MS,
      ).catch(async (error: unknown) => {
        const o = await order();
        const tail = output.slice(-4_000) || '(none)';
        throw new Error(
          `${String(error)}; conditions: ${JSON.stringify(o.status?.conditions)}; serve's output: ${tail}`,
        );
      });
      assert.equal(conditionOf(ready, 'UserReady')?.reason, 'UserProvisioned');
      assert.equal(conditionOf(ready, 'DeliveryReady')?.reason, 'Delivered');

      const delivered = await cluster.get(builtin.secret, ORDERS_NS, `${name}-credentials`);
      const data = delivered['data'] as Record<string, string>;
      const cloudsYaml = Buffer.from(data['clouds.yaml'] ?? '', 'base64').toString('utf8');
      const cloud = Object.keys((parse(cloudsYaml) as { clouds: Record<string, unknown> }).clouds)[0] ?? '';
      assert.equal((await sessionFor(cloudsYaml, cloud, transport).token()).user.name, name);
      const kv = new KvClient({ server: emulator.url, mount: 'kv-v2', token: KV_TOKEN });
      const remoteKey = orderRemoteKey(
        CP_NS,
        { kind: keystoneUserKind, cluster: '', namespace: ORDERS_NS, name },
        'credentials',
      );
      assert.equal((await kv.readData(remoteKey))?.['clouds.yaml'], cloudsYaml, 'backed up through the PushSecret');

      await cluster.delete(keystoneUserType, ORDERS_NS, name);
      await eventually(
        `${name} deleted`,
        () =>
          order().then(
            () => undefined,
            (error: unknown) => (isKubeNotFound(error) ? true : undefined),
          ),
        CONVERGE_MS,
      );
      const admin = sessionFor(emulator.cloudsYaml('admin'), 'admin', transport).client('identity');
      assert.equal(await findUserByName(admin, 'default', name), undefined, 'the Keystone user is deleted');
      assert.equal(await kv.readMetadata(remoteKey), undefined, 'the KV path is deleted');
    });

    it('SIGTERM stops it cleanly', async () => {
      const process = serve ?? assert.fail('serve started');
      const exited = once(process, 'exit');
      process.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      assert.equal(code, 0, output);
    });
  });
});

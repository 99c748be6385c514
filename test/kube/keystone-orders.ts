/**
 * The Keystone orders operator as a deployment runs it, on any pair of clusters with the real K-ORC and ESO CRDs
 * (test/fixtures): the runtime Manager with the KeystoneUser reconciler and the bundled K-ORC and ESO actuators, a
 * management cluster and a target cluster registered through its kubeconfig Secret, and the emulator's Keystone and
 * OpenBao-compatible KV behind a ControlPlane in External mode. For each ESO line in the field (2.9 serving
 * SecretStore v1, 0.10.7 serving v1beta1) an order on each cluster goes from order to Ready to deletion: the
 * delivered clouds.yaml authenticates, the backup is in the KV, and the deletion removes the Keystone user, the KV
 * path and every child. Between the lines the ESO CRDs are replaced, as an ESO upgrade or downgrade would.
 */
/* eslint-disable @typescript-eslint/no-floating-promises -- node:test's describe/it return promises the runner awaits itself. */
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { Emulator } from '../../src/emulator/emulator.ts';
import type { Client } from '../../src/kube/client.ts';
import { isKubeNotFound } from '../../src/kube/errors.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { loadCloudConfig } from '../../src/openstack/config.ts';
import { findUserByName, type IdentityClient } from '../../src/openstack/identity.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { KUBECONFIG_SECRET_LABEL } from '../../src/runtime/multicluster.ts';
import { systemClock } from '../../src/util/clock.ts';
import { registerEsoActuator } from '../../src/keystone/actuators/eso/controller.ts';
import { KvClient } from '../../src/keystone/actuators/eso/kv.ts';
import type { CloudCredentials } from '../../src/keystone/actuators/korc/credentials.ts';
import { registerKorcActuators } from '../../src/keystone/actuators/korc/register.ts';
import { cloudsSecret, installCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import {
  ADMIN_CREDENTIAL_READY,
  controlPlaneType,
  discoverStoreType,
  keystoneCrds,
  keystoneUserType,
  korcDomainType,
  korcUserType,
  pushSecretType,
  type ControlPlane,
  type KeystoneUser,
  type SecretStore,
} from '../../src/keystone/apis/index.ts';
import {
  keystoneUserChildNames,
  keystoneUserKind,
  orderRemoteKey,
  type OrderRef,
} from '../../src/keystone/order/names.ts';
import { childSelector } from '../../src/keystone/order/sweep.ts';
import { planeFacts } from '../../src/keystone/user/plane.ts';
import { registerKeystoneUserController } from '../../src/keystone/user/register.ts';
import { ESO_LINES, ESO_STORE_VERSION, esoCrds, korcCrds } from '../fixtures/third-party-crds/index.ts';
import { eventually } from './fixtures.ts';

const CP_NS = 'openstack';
const MANAGEMENT_NS = 'tenant-a';
const TARGET_NS = 'tenant-b';
const TARGET = 'edge-1';
const CLUSTERS_NS = 'c5c3-clusters';
const KV_TOKEN = 'real-crds-kv';
/** A pass on a real server is a few round trips; under CI's load an order may take a while to converge. */
const CONVERGE_MS = 120_000;

const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const secret = (ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: ns, ...(labels === undefined ? {} : { labels }) },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const absent = (read: () => Promise<unknown>) => async () =>
  read().then(
    () => undefined,
    (error: unknown) => (isKubeNotFound(error) ? true : undefined),
  );
const reasonOf = (o: KeystoneUser, type: string) => o.status?.conditions?.find((c) => c.type === type);

/** A management and a target cluster, empty; `close` stops whatever `start` started. */
export interface OrderClusters {
  readonly management: Client;
  readonly target: Client;
  /** What the target's registration Secret carries. */
  readonly targetKubeconfig: string;
  /** A client for the target from its registration kubeconfig, as the manager's provider makes one. */
  readonly clientFor: (kubeconfig: string) => Client;
  close(): Promise<void>;
}

/**
 * Registers the suite on `backend`'s clusters: for each ESO line, an order on the management cluster and one on
 * the registered target, each from order to Ready to deletion.
 */
export function keystoneOrdersWithRealCrds(backend: string, start: () => Promise<OrderClusters>): void {
  describe(`the Keystone operator with the real K-ORC and ESO CRDs, on a management and a target ${backend}`, () => {
    let clusters: OrderClusters;
    let management: Client;
    let target: Client;
    let emulator: Emulator;
    const transport = new Transport({ clock: systemClock, random: Math.random });
    let admin: IdentityClient;
    let kv: KvClient;

    before(async () => {
      clusters = await start();
      ({ management, target } = clusters);
      emulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
      admin = sessionFor(emulator.cloudsYaml('admin'), 'admin').client('identity');
      kv = new KvClient({ server: emulator.url, mount: 'kv-v2', token: KV_TOKEN });
      // A create, not an apply: 1.20 drops the CEL rules it does not know rather than refuse them.
      await installCrds(management, [...keystoneCrds(), ...c5c3StandInCrds(), ...korcCrds()]);
      await installCrds(target, [...keystoneCrds(), ...c5c3StandInCrds()]);
      for (const name of [CP_NS, MANAGEMENT_NS, CLUSTERS_NS])
        await management.create(builtin.namespace, namespace(name));
      await target.create(builtin.namespace, namespace(TARGET_NS));
      await served(target, keystoneUserType);
      await served(management, korcUserType);
      await served(management, keystoneUserType);
    });

    after(async () => {
      await transport.close();
      await emulator.close();
      await clusters.close();
    });

    /** A session for a clouds.yaml's cloud, read as any OpenStack tool reads the file. */
    function sessionFor(cloudsYaml: string, cloud: string): Session {
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

    /** Discovery lists the kind at its version (the reconciler reads discovery for the SecretStore version). */
    const served = (client: Client, type: ResourceType) =>
      eventually(`${type.kind} served`, async () =>
        (await client.servedVersions(type.group, type.plural)).includes(type.version) ? true : undefined,
      );

    for (const line of ESO_LINES) {
      describe(`with ESO ${line}'s CRDs`, () => {
        let manager: Manager;
        let credentials: CloudCredentials | undefined;
        let storeType: ResourceType<SecretStore>;

        before(async () => {
          await installCrds(management, esoCrds(line));
          await served(management, pushSecretType);
          const discovered = await eventually(`the SecretStore version of ESO ${line}`, () =>
            discoverStoreType(management, 'SecretStore'),
          );
          assert.equal(discovered.version, ESO_STORE_VERSION[line]);
          storeType = discovered;
          await setUpControlPlane(storeType);
          manager = new Manager({
            client: management,
            clock: systemClock,
            random: Math.random,
            targetClusters: { namespace: CLUSTERS_NS, clientFor: (kubeconfig) => clusters.clientFor(kubeconfig) },
          });
          credentials = registerKorcActuators(manager, { enabled: true, clock: systemClock, pollMs: 2_000 });
          registerEsoActuator(manager, { enabled: true, storeType });
          registerKeystoneUserController(manager);
          await manager.start();
          await eventually('the target cluster engaged', () =>
            Promise.resolve(manager.client(TARGET) === undefined ? undefined : true),
          );
        });

        after(async () => {
          await manager.stop();
          await credentials?.close();
          // The next line's CRDs replace this line's, as an ESO upgrade or downgrade would.
          for (const crd of esoCrds(line)) {
            await management.delete(builtin.customResourceDefinition, undefined, crd.metadata.name);
          }
          for (const crd of esoCrds(line)) {
            await eventually(
              `${crd.metadata.name} gone`,
              absent(() => management.get(builtin.customResourceDefinition, undefined, crd.metadata.name)),
              CONVERGE_MS,
            );
          }
        });

        it('an order on the management cluster: Ready, a working clouds.yaml, backed up; deleted, all gone', async () => {
          await orderToDeletion(management, {
            kind: keystoneUserKind,
            cluster: '',
            namespace: MANAGEMENT_NS,
            name: `mgmt-${line.replace(/\W/g, '')}`,
          });
        });

        it('an order on the registered target cluster: delivered there, and torn down from there', async () => {
          await orderToDeletion(target, {
            kind: keystoneUserKind,
            cluster: TARGET,
            namespace: TARGET_NS,
            name: `edge-${line.replace(/\W/g, '')}`,
          });
        });
      });
    }

    /** What the ControlPlane's own reconciler would have set up: its credentials, store, domain import, itself. */
    async function setUpControlPlane(storeType: ResourceType): Promise<void> {
      const cp: ControlPlane = {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'ControlPlane',
        metadata: { name: 'cp', namespace: CP_NS },
        spec: {
          namespaceAssignments: [
            { namespace: MANAGEMENT_NS },
            { namespace: TARGET_NS, targetClusterRef: { name: TARGET } },
          ],
          services: { keystone: { mode: 'External', external: { authURL: emulator.authUrl } } },
        },
      };
      const plane = planeFacts(cp);
      const apply = (type: ResourceType, object: KubeObject) =>
        management.apply(type, object, { fieldManager: 'keystone-real-crds', force: true });
      for (const ref of [plane.probeCredentials, plane.managedCredentials]) {
        await apply(builtin.secret, cloudsSecret(CP_NS, ref.secretName, emulator.cloudsYaml(ref.cloudName)));
      }
      await apply(builtin.secret, secret(CP_NS, 'kv-token', { token: KV_TOKEN }));
      await apply(storeType, {
        apiVersion: apiVersionOf(storeType),
        kind: 'SecretStore',
        metadata: { name: plane.store.name, namespace: CP_NS },
        spec: {
          provider: {
            vault: {
              server: emulator.url,
              path: 'kv-v2',
              version: 'v2',
              auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
            },
          },
        },
      });
      await apply(korcDomainType, {
        apiVersion: 'openstack.k-orc.cloud/v1alpha1',
        kind: 'Domain',
        metadata: { name: plane.domainRef, namespace: CP_NS },
        spec: {
          managementPolicy: 'unmanaged',
          cloudCredentialsRef: plane.probeCredentials,
          import: { filter: { name: plane.adminDomainName } },
        },
      });
      await apply(controlPlaneType, cp);
      await management.patch(
        controlPlaneType,
        CP_NS,
        'cp',
        {
          type: 'merge',
          patch: {
            status: {
              conditions: [
                {
                  type: ADMIN_CREDENTIAL_READY,
                  status: 'True',
                  reason: 'Ready',
                  message: 'set up by the test',
                  lastTransitionTime: '2026-01-01T00:00:00Z',
                },
              ],
            },
          },
        },
        { subresource: 'status' },
      );
      const registration = { kubeconfig: clusters.targetKubeconfig, namespaces: TARGET_NS };
      await apply(builtin.secret, secret(CLUSTERS_NS, TARGET, registration, { [KUBECONFIG_SECRET_LABEL]: 'true' }));
    }

    /** Orders `ref` on `client`, waits for Ready and checks the delivery, then deletes it and checks it is all gone. */
    async function orderToDeletion(client: Client, ref: OrderRef): Promise<void> {
      const order = () => client.get(keystoneUserType, ref.namespace, ref.name);
      await client.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name: ref.name, namespace: ref.namespace },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      const ready = await eventually(
        `${ref.cluster || 'management'}: ${ref.name} Ready`,
        async () => {
          const o = await order();
          return reasonOf(o, 'Ready')?.status === 'True' ? o : undefined;
        },
        CONVERGE_MS,
      ).catch(async (error: unknown) => {
        const o = await order();
        throw new Error(`${String(error)}; conditions: ${JSON.stringify(o.status?.conditions)}`);
      });
      assert.equal(reasonOf(ready, 'UserReady')?.reason, 'UserProvisioned');
      assert.equal(reasonOf(ready, 'DeliveryReady')?.reason, 'Delivered');
      assert.equal(ready.status?.passwordGeneration, 1);

      // The Secret is delivered beside the order, on the order's cluster, and its clouds.yaml authenticates.
      const delivered = await client.get(builtin.secret, ref.namespace, `${ref.name}-credentials`);
      const data = delivered['data'] as Record<string, string>;
      const cloudsYaml = Buffer.from(data['clouds.yaml'] ?? '', 'base64').toString('utf8');
      const cloud = Object.keys((parse(cloudsYaml) as { clouds: Record<string, unknown> }).clouds)[0] ?? '';
      const token = await sessionFor(cloudsYaml, cloud).token();
      assert.equal(token.user.name, ref.name);
      const remoteKey = orderRemoteKey(CP_NS, ref, 'credentials');
      assert.equal((await kv.readData(remoteKey))?.['clouds.yaml'], cloudsYaml, 'backed up through the PushSecret');
      const names = keystoneUserChildNames(ref);
      const user = await management.get(korcUserType, CP_NS, names.user);
      assert.equal(user.metadata.namespace, CP_NS, 'the K-ORC User lives in the ControlPlane namespace on management');

      await client.delete(keystoneUserType, ref.namespace, ref.name);
      await eventually(`${ref.name} deleted`, absent(order), CONVERGE_MS);
      assert.equal(await findUserByName(admin, 'default', ref.name), undefined, 'the Keystone user is deleted');
      assert.equal(await kv.readMetadata(remoteKey), undefined, 'the OpenBao path is deleted');
      for (const type of [korcUserType, pushSecretType, builtin.secret]) {
        const left = await management.list(type, { namespace: CP_NS, labelSelector: childSelector(ref) });
        assert.deepEqual(left.items, [], `no ${type.kind} child left`);
      }
      await assert.rejects(client.get(builtin.secret, ref.namespace, `${ref.name}-credentials`), isKubeNotFound);
    }
  });
}

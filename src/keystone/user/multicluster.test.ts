/**
 * An order on a target cluster (upstream TestIntegration_Multicluster_ControlPlacement): a management store and a
 * target store (both embedded, with the schemas), the runtime Manager engaging the target from its registration
 * Secret, and K-ORC and ESO present as their real CRDs only, their status written here as theirs would be. It checks where
 * every object appears, the freeze, and the 10-minute refresh that carries a ControlPlane change to the target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '../../kube/client.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import { Manager } from '../../runtime/manager.ts';
import { KUBECONFIG_SECRET_LABEL } from '../../runtime/multicluster.ts';
import { ManualScheduler, settle } from '../../runtime/scheduler.ts';
import { ManualClock } from '../../util/clock.ts';
import { controlPlaneType, type ControlPlane } from '../apis/controlplane.ts';
import { pushSecretType, secretStoreType } from '../apis/eso.ts';
import { installCrds, realCrds } from '../actuators/testing/real-crds.ts';
import { keystoneUserCrd, keystoneUserType } from '../apis/keystoneuser.ts';
import { KORC_WAITING_FOR_EXTERNAL, korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialCrd, keystoneRoleAssignmentCrd } from '../apis/orders.ts';
import { keystoneUserChildNames, keystoneUserKind } from '../order/names.ts';
import { secretValue } from './children.ts';
import { registerKeystoneUserController } from './register.ts';
import { cond, korcAvailable, korcWaiting } from './testing/fixture.ts';

const CLUSTER = 'edge-1';
const NS = 'tenant-a';
const CP_NS = 'openstack';
const names = keystoneUserChildNames({ kind: keystoneUserKind, cluster: CLUSTER, namespace: NS, name: 'workflow' });
const MINUTE = 60_000;

const namespace = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

describe('An order on a target cluster (management and target stores)', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  const scheduler = new ManualScheduler(clock);
  let management: EmbeddedStore;
  let target: EmbeddedStore;
  let manager: Manager;
  let clientFor: (cluster: string) => Client = () => target;

  before(async () => {
    management = openEmbeddedStore(':memory:', { clock });
    target = openEmbeddedStore(':memory:', { clock });
    await installCrds(management, realCrds({ eso: 'v2.9' }));
    for (const crd of [keystoneUserCrd(), keystoneRoleAssignmentCrd(), keystoneApplicationCredentialCrd()]) {
      await target.create(builtin.customResourceDefinition, crd);
    }
    for (const ns of [CP_NS, NS, 'c5c3-clusters']) await management.create(builtin.namespace, namespace(ns));
    await target.create(builtin.namespace, namespace(NS));
    await management.create(controlPlaneType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'ControlPlane',
      metadata: { name: 'cp', namespace: CP_NS },
      spec: {
        namespaceAssignments: [{ namespace: NS, targetClusterRef: { name: CLUSTER } }],
        services: { keystone: { publicEndpoint: 'https://keystone.example/v3' } },
      },
    } satisfies ControlPlane);
    await writeStatus(management, controlPlaneType, CP_NS, 'cp', {
      conditions: [cond('AdminCredentialReady', 'True')],
    });
    await management.create(secretStoreType, {
      apiVersion: 'external-secrets.io/v1',
      kind: 'SecretStore',
      metadata: { name: 'openbao-tenant-store', namespace: CP_NS },
      spec: {
        provider: {
          vault: {
            server: 'http://127.0.0.1:1',
            path: 'kv-v2',
            auth: { tokenSecretRef: { name: 'kv', key: 'token' } },
          },
        },
      },
    });
    await writeStatus(management, secretStoreType, CP_NS, 'openbao-tenant-store', {
      conditions: [cond('Ready', 'True')],
    });
    manager = new Manager({
      client: management,
      clock,
      scheduler,
      random: () => 0,
      resyncMs: 1000 * 3_600_000,
      targetClusters: { namespace: 'c5c3-clusters', clientFor: (_config, cluster) => clientFor(cluster) },
    });
    registerKeystoneUserController(manager, { clock, randomBytes: (n) => Buffer.alloc(n, 7) });
    await manager.start();
    await management.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: CLUSTER, namespace: 'c5c3-clusters', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
      data: { kubeconfig: Buffer.from('clusters: []\nusers: []\n').toString('base64') },
    });
    await until(() => Promise.resolve(manager.client(CLUSTER) !== undefined), 'the target engaged');
  });

  after(async () => {
    await manager.stop();
    await management.close();
    await target.close();
  });

  const order = () => target.get(keystoneUserType, NS, 'workflow');
  const reason = async (type: string) => (await order()).status?.conditions?.find((c) => c.type === type)?.reason;
  const present = async (
    client: Client,
    type: typeof builtin.secret | typeof korcUserType | typeof pushSecretType,
    ns: string,
    name: string,
  ) =>
    client.get(type, ns, name).then(
      () => true,
      () => false,
    );

  it('places every object where the spec says, and delivers on the target', async () => {
    await target.create(keystoneUserType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneUser',
      metadata: { name: 'workflow', namespace: NS },
      spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS }, rotation: { interval: '0s' } },
    });
    await scheduler.advance(1000);
    await until(() => present(management, korcUserType, CP_NS, names.probe), 'the probe on management');
    assert.equal(await present(target, korcUserType, NS, names.probe), false);
    const probe = await management.get(korcUserType, CP_NS, names.probe);
    assert.equal(probe.metadata.labels?.['c5c3.io/keystoneuser-cluster'], CLUSTER);
    // K-ORC: the import finds nothing; its status write wakes the order through the cluster label.
    await writeStatus(management, korcUserType, CP_NS, names.probe, {
      conditions: korcWaiting(1, KORC_WAITING_FOR_EXTERNAL),
    });
    await until(() => present(management, korcUserType, CP_NS, names.user), 'the managed User on management');
    const user = await management.get(korcUserType, CP_NS, names.user);
    await writeStatus(management, korcUserType, CP_NS, names.user, {
      id: 'kid',
      conditions: korcAvailable(user.metadata.generation ?? 1),
      resource: { appliedPasswordRef: user.spec.resource?.passwordRef },
    });
    await until(() => present(management, pushSecretType, CP_NS, names.backup), 'the PushSecret on management');
    const ps = await management.get(pushSecretType, CP_NS, names.backup);
    await writeStatus(management, pushSecretType, CP_NS, names.backup, {
      conditions: [cond('Ready', 'True')],
      syncedResourceVersion: `${String(ps.metadata.generation)}-pushed`,
    });
    await until(async () => (await reason('Ready')) === 'AllReady', 'the order Ready on the target');
    for (const name of [names.password(1), names.source])
      assert.ok(await present(management, builtin.secret, CP_NS, name));
    assert.ok(await present(target, builtin.secret, NS, 'workflow-credentials'));
    assert.equal(await present(management, builtin.secret, NS, 'workflow-credentials'), false);
    for (const name of [names.password(1), names.source])
      assert.equal(await present(target, builtin.secret, CP_NS, name), false);
    assert.equal((await order()).status?.userID, 'kid');
  });

  it('the 10-minute refresh carries a ControlPlane change to the target\u2019s order', async () => {
    const authUrl = async () => secretValue(await management.get(builtin.secret, CP_NS, names.source), 'auth_url');
    // Let the short requeues of the first test run out (a pass takes a pending one with it, so the last pass may
    // have run as the minute began): what is left is the order's refresh.
    await scheduler.advance(MINUTE);
    const next = scheduler.pending()[0] ?? 0;
    assert.ok(next >= 9 * MINUTE && next <= 10 * MINUTE, `the refresh is due in ${String(next)} ms`);
    const cp = await management.get(controlPlaneType, CP_NS, 'cp');
    await management.update(controlPlaneType, {
      ...cp,
      spec: { ...cp.spec, services: { keystone: { publicEndpoint: 'https://keystone-2.example/v3' } } },
    });
    await scheduler.advance(next - 1);
    assert.equal(await authUrl(), 'https://keystone.example/v3', 'no ControlPlane watch reaches a target order');
    await scheduler.advance(1);
    await until(async () => (await authUrl()) === 'https://keystone-2.example/v3', 'the refresh');
  });

  it('a target that does not serve the kind is engaged without the order watch, until re-registered', async () => {
    const edge2 = openEmbeddedStore(':memory:', { clock });
    await edge2.create(builtin.namespace, namespace(NS));
    const stores = new Map<string, Client>([
      [CLUSTER, target],
      ['edge-2', edge2],
    ]);
    clientFor = (cluster) => stores.get(cluster) ?? target;
    const cp = await management.get(controlPlaneType, CP_NS, 'cp');
    const assignments = [
      ...(cp.spec.namespaceAssignments ?? []),
      { namespace: NS, targetClusterRef: { name: 'edge-2' } },
    ];
    await management.update(controlPlaneType, { ...cp, spec: { ...cp.spec, namespaceAssignments: assignments } });
    const registration = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'edge-2', namespace: 'c5c3-clusters', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
      data: { kubeconfig: Buffer.from('clusters: []\nusers: []\n').toString('base64') },
    };
    await management.create(builtin.secret, registration);
    await until(() => Promise.resolve(manager.client('edge-2') !== undefined), 'edge-2 engaged');
    await edge2.create(builtin.customResourceDefinition, keystoneUserCrd());
    const placed = await edge2.create(keystoneUserType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneUser',
      metadata: { name: 'late', namespace: NS },
      spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
    });
    await scheduler.advance(0);
    await settle();
    const finalizers = async () => (await edge2.get(keystoneUserType, NS, 'late')).metadata.finalizers;
    assert.equal(await finalizers(), undefined, 'not watched: the kind was not served at engagement');
    const live = await management.get(builtin.secret, 'c5c3-clusters', 'edge-2');
    await management.update(builtin.secret, { ...live, metadata: { ...live.metadata, annotations: { touched: '1' } } });
    await until(async () => (await finalizers()) !== undefined, 'the order watched once re-engaged');
    assert.equal(placed.metadata.name, 'late');
    await management.delete(builtin.secret, 'c5c3-clusters', 'edge-2');
    await until(() => Promise.resolve(manager.client('edge-2') === undefined), 'edge-2 disengaged');
    await edge2.close();
  });

  it('the freeze: a withdrawn assignment keeps everything, and repairs nothing', async () => {
    const cp = await management.get(controlPlaneType, CP_NS, 'cp');
    await management.update(controlPlaneType, { ...cp, spec: { ...cp.spec, namespaceAssignments: [] } });
    await scheduler.advance(10 * MINUTE);
    await until(async () => (await reason('UserReady')) === 'NamespaceNotAssigned', 'the freeze');
    await target.delete(builtin.secret, NS, 'workflow-credentials');
    await scheduler.advance(10 * MINUTE);
    await settle();
    assert.equal(await present(target, builtin.secret, NS, 'workflow-credentials'), false, 'not repaired');
    assert.ok(await present(management, korcUserType, CP_NS, names.user), 'nothing swept');
    assert.equal((await order()).status?.secretName, 'workflow-credentials');
  });
});

async function writeStatus(
  client: Client,
  type: ResourceType,
  ns: string,
  name: string,
  status: Record<string, unknown>,
): Promise<void> {
  await client.patch(type, ns, name, { type: 'merge', patch: { status } }, { subresource: 'status' });
}

/** Lets the manager's watches and passes run until `done` holds; bounded, never a timed wait. */
async function until(done: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await done()) return;
    await settle(2);
  }
  throw new Error(`${what} did not happen`);
}

/**
 * The KeystoneUser order end to end against a real Keystone (the dev cloud; the emulator's Keystone under
 * OPENREGION_CONTRACT_TARGET=emulator): the embedded store with openregion's CRDs and the real K-ORC and ESO ones,
 * the runtime Manager with the reconciler and the bundled K-ORC and ESO actuators (K-ORC authenticating with the
 * admin clouds.yaml the ControlPlane's Secrets hold), and the emulator's KV v2 endpoint as OpenBao. The
 * password schedule reads an injected clock, so "on time" is checked without waiting an hour.
 *
 * Every Keystone user it creates is named `ct-<run>-…`, and deleted by the test (or by `after` when a test failed).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { Emulator } from '../../src/emulator/emulator.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../src/kube/embedded/store.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { deleteUser, findUserByName } from '../../src/openstack/identity.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { ManualClock, systemClock } from '../../src/util/clock.ts';
import { registerEsoActuator } from '../../src/keystone/actuators/eso/controller.ts';
import { KvClient } from '../../src/keystone/actuators/eso/kv.ts';
import type { CloudCredentials } from '../../src/keystone/actuators/korc/credentials.ts';
import { registerKorcActuators } from '../../src/keystone/actuators/korc/register.ts';
import { cloudsSecret, installCrds, realCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import {
  controlPlaneType,
  keystoneApplicationCredentialType,
  keystoneUserType,
  korcDomainType,
  korcUserType,
  secretStoreType,
  type KeystoneUser,
} from '../../src/keystone/apis/index.ts';
import {
  keystoneUserChildNames,
  keystoneUserKind,
  orderRemoteKey,
  type OrderRef,
} from '../../src/keystone/order/names.ts';
import { childSelector } from '../../src/keystone/order/sweep.ts';
import { registerKeystoneUserController } from '../../src/keystone/user/register.ts';
import { contractCloud, waitFor, type ContractCloud } from './cloud.ts';

const CP_NS = 'openstack';
const NS = 'tenant-a';
const KV_TOKEN = 'e2e-kv-token';
const HOUR = 3_600_000;

const cloud = await contractCloud();

describe('KeystoneUser end to end against Keystone', { skip: cloud === undefined }, () => {
  const c = cloud as ContractCloud;
  const scheduleClock = new ManualClock(systemClock.now());
  const userName = c.name('ku-workflow');
  const otherName = c.name('ku-other');
  let kvEmulator: Emulator;
  let kv: KvClient;
  let store: EmbeddedStore;
  let manager: Manager;
  let credentials: CloudCredentials | undefined;

  before(async () => {
    kvEmulator = await Emulator.start({ config: { kvToken: KV_TOKEN } });
    kv = new KvClient({ server: kvEmulator.url, mount: 'kv-v2', token: KV_TOKEN });
    store = openEmbeddedStore(':memory:', { clock: systemClock });
    await installCrds(store, realCrds({ eso: 'v2.9' }));
    for (const name of [CP_NS, NS]) {
      await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    for (const name of ['k-orc-clouds-yaml', 'cp-admin-password-cloud']) {
      await store.create(builtin.secret, cloudsSecret(CP_NS, name, c.adminCloudsYaml));
    }
    await store.create(builtin.secret, secret(CP_NS, 'kv-token', { token: KV_TOKEN }));
    await store.create(secretStoreType, {
      apiVersion: 'external-secrets.io/v1',
      kind: 'SecretStore',
      metadata: { name: 'openbao-tenant-store', namespace: CP_NS },
      spec: {
        provider: {
          vault: {
            server: kvEmulator.url,
            path: 'kv-v2',
            version: 'v2',
            auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
          },
        },
      },
    });
    // The admin domain as the ControlPlane imports it; the bundled K-ORC resolves the users' domainRef through it.
    await store.create(korcDomainType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'Domain',
      metadata: { name: 'cp-domain-default', namespace: CP_NS },
      spec: {
        managementPolicy: 'unmanaged',
        cloudCredentialsRef: { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' },
        import: { filter: { name: 'Default' } },
      },
    });
    await store.create(controlPlaneType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'ControlPlane',
      metadata: { name: 'cp', namespace: CP_NS },
      spec: {
        namespaceAssignments: [{ namespace: NS }],
        services: { keystone: { mode: 'External', external: { authURL: c.authUrl } } },
      },
    });
    await store.patch(
      controlPlaneType,
      CP_NS,
      'cp',
      { type: 'merge', patch: { status: { conditions: [condition('AdminCredentialReady')] } } },
      { subresource: 'status' },
    );
    manager = new Manager({ client: store, clock: systemClock, random: Math.random });
    credentials = registerKorcActuators(manager, { enabled: true, clock: systemClock, pollMs: 500 });
    registerEsoActuator(manager, { enabled: true });
    registerKeystoneUserController(manager, { now: () => scheduleClock.now() });
    await manager.start();
  });

  after(async () => {
    await manager.stop();
    await credentials?.close();
    for (const name of [userName, otherName]) {
      const left = await findUserByName(c.admin.client('identity'), 'default', name);
      if (left !== undefined) await deleteUser(c.admin.client('identity'), left.id);
    }
    await store.close();
    await kvEmulator.close();
    await c.close();
  });

  const ref = (name: string): OrderRef => ({ kind: keystoneUserKind, cluster: '', namespace: NS, name });
  const order = (name = 'workflow') => store.get(keystoneUserType, NS, name);
  const reasonOf = (o: KeystoneUser, type: string) => o.status?.conditions?.find((x) => x.type === type)?.reason;
  const ready = (generation: number) => (o: KeystoneUser) =>
    reasonOf(o, 'Ready') === 'AllReady' && o.status?.passwordGeneration === generation;
  const delivered = async (name = 'workflow') => {
    const s = await store.get(builtin.secret, NS, `${name}-credentials`);
    return Buffer.from((s['data'] as Record<string, string>)['clouds.yaml'] ?? '', 'base64').toString('utf8');
  };
  /** Authenticates with a delivered clouds.yaml, unscoped, as the user's own tools would. */
  const authenticates = async (cloudsYaml: string): Promise<boolean> => {
    const auth =
      (parse(cloudsYaml) as { clouds: Record<string, { auth: Record<string, string> }> }).clouds['admin']?.auth ?? {};
    assert.equal(auth['auth_url'], c.authUrl);
    const session = c.sessionFor<'unscoped'>(
      {
        type: 'password',
        user: { name: auth['username'] ?? '', domain: { name: auth['user_domain_name'] ?? '' } },
        password: auth['password'] ?? '',
      },
      { kind: 'unscoped' },
    );
    try {
      await session.token();
      return true;
    } catch {
      return false;
    }
  };
  /** Finished passes of the KeystoneUser controller. */
  const passes = async () =>
    (await manager.metrics.reconcileTotal.get()).values
      .filter((v) => v.labels['controller'] === 'keystoneuser')
      .reduce((sum, v) => sum + v.value, 0);
  /** Wakes the order now (an annotation passes its update predicate), as a due timer would. */
  const poke = async (name = 'workflow') => {
    const o = await order(name);
    await store.update(keystoneUserType, {
      ...o,
      metadata: { ...o.metadata, annotations: { ...o.metadata.annotations, poke: String(scheduleClock.now()) } },
    });
  };

  let firstYaml = '';

  it('an order yields a Keystone user that authenticates with the delivered clouds.yaml, backed up to the KV', async () => {
    await store.create(keystoneUserType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneUser',
      metadata: { name: 'workflow', namespace: NS },
      spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS }, userName, rotation: { interval: '1h' } },
    });
    await waitFor(order, ready(1), { what: 'the order Ready at generation 1' });
    firstYaml = await delivered();
    assert.ok(await authenticates(firstYaml));
    const backup = await kv.readData(orderRemoteKey(CP_NS, ref('workflow'), 'credentials'));
    assert.equal(backup?.['clouds.yaml'], firstYaml);
    assert.equal(backup['username'], userName);
  });

  it('raising passwordGeneration makes the old password fail and the new one work', async () => {
    const o = await order();
    await store.update(keystoneUserType, { ...o, spec: { ...o.spec, passwordGeneration: 2 } });
    await waitFor(order, ready(2), { what: 'generation 2 delivered' });
    const second = await delivered();
    assert.notEqual(second, firstYaml);
    assert.ok(await authenticates(second));
    assert.ok(!(await authenticates(firstYaml)));
    firstYaml = second;
  });

  it('the schedule rotates on time under the injected clock', async () => {
    scheduleClock.advance(HOUR - 60_000);
    const before = await passes();
    await poke();
    await waitFor(passes, (n) => n > before, { what: 'a pass' });
    const user = await store.get(korcUserType, CP_NS, keystoneUserChildNames(ref('workflow')).user);
    assert.equal(
      user.spec.resource?.passwordRef,
      keystoneUserChildNames(ref('workflow')).password(2),
      'not due a minute early',
    );
    scheduleClock.advance(60_000);
    await poke();
    await waitFor(order, ready(3), { what: 'the scheduled generation 3' });
    const third = await delivered();
    assert.ok(await authenticates(third));
    assert.ok(!(await authenticates(firstYaml)));
    firstYaml = third;
  });

  it('an application credential order being deleted holds a due rotation, and its going releases it', async () => {
    await store.create(keystoneApplicationCredentialType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneApplicationCredential',
      metadata: { name: 'ci', namespace: NS, finalizers: ['e2e.test/hold'] },
      spec: {
        controlPlaneRef: { name: 'cp', namespace: CP_NS },
        userRef: { name: 'workflow' },
        projectRef: { name: 'p' },
      },
    });
    await store.delete(keystoneApplicationCredentialType, NS, 'ci');
    scheduleClock.advance(HOUR);
    await poke();
    const held = await waitFor(
      order,
      (o) =>
        /waits for KeystoneApplicationCredential\(s\) \["ci"\]/.test(
          o.status?.conditions?.find((x) => x.type === 'UserReady')?.message ?? '',
        ),
      { what: 'the held rotation' },
    );
    assert.equal(held.status?.passwordGeneration, 3);
    assert.ok(await authenticates(firstYaml), 'the password did not move under the credential\u2019s delete');
    const ac = await store.get(keystoneApplicationCredentialType, NS, 'ci');
    await store.update(keystoneApplicationCredentialType, { ...ac, metadata: { ...ac.metadata, finalizers: [] } });
    await waitFor(order, ready(4), { what: 'the rotation once the credential order is gone' });
    assert.ok(await authenticates(await delivered()));
  });

  it('a delivered Secret the order does not own is refused and left untouched', async () => {
    await store.create(builtin.secret, secret(NS, 'other-credentials', { note: 'mine' }));
    await store.create(keystoneUserType, {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneUser',
      metadata: { name: 'other', namespace: NS },
      spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS }, userName: otherName },
    });
    await waitFor(
      () => order('other'),
      (o) => reasonOf(o, 'DeliveryReady') === 'DeliveryRefused',
      { what: 'the refusal' },
    );
    const untouched = await store.get(builtin.secret, NS, 'other-credentials');
    assert.deepEqual(untouched['data'], { note: Buffer.from('mine').toString('base64') });
    assert.equal(untouched.metadata.ownerReferences, undefined);
  });

  it('deleting the orders removes the Keystone users, the KV paths and every Secret they own', async () => {
    for (const name of ['workflow', 'other']) await store.delete(keystoneUserType, NS, name);
    for (const name of ['workflow', 'other']) {
      await waitFor(
        () =>
          order(name).then(
            () => false,
            () => true,
          ),
        (gone) => gone,
        { what: `the order ${name} gone`, timeoutMs: 180_000 },
      );
    }
    const identity = c.admin.client('identity');
    assert.equal(await findUserByName(identity, 'default', userName), undefined);
    assert.equal(await findUserByName(identity, 'default', otherName), undefined);
    for (const name of ['workflow', 'other']) {
      const remoteKey = orderRemoteKey(CP_NS, ref(name), 'credentials');
      assert.equal(await kv.readMetadata(remoteKey), undefined);
      const children = await store.list(builtin.secret, { namespace: CP_NS, labelSelector: childSelector(ref(name)) });
      assert.deepEqual(children.items, []);
    }
    await assert.rejects(store.get(builtin.secret, NS, 'workflow-credentials'), /not found/);
    assert.ok(await store.get(builtin.secret, NS, 'other-credentials'), 'the Secret it never owned stays');
  });
});

function secret(namespace: string, name: string, data: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

function condition(type: string) {
  return { type, status: 'True', reason: 'Test', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeForbiddenError } from '../../kube/errors.ts';
import type { Secret } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { ESO_GROUP } from '../apis/eso.ts';
import { keystoneUserType, type KeystoneUser } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { CONDITION_USER_READY, PASSWORD_GENERATION_ANNOTATION, UNLATCHED_AT_ANNOTATION } from './constants.ts';
import { secretValue } from './children.ts';
import { CP_NS, userFixture, korcTerminal, korcWaiting, NAME, type UserFixture } from './testing/fixture.ts';

const userReady = (h: UserFixture) => h.condition(CONDITION_USER_READY);
const managedUser = (h: UserFixture) => h.management.get(korcUserType, CP_NS, h.names.user);

async function edit(h: UserFixture, change: (o: KeystoneUser) => KeystoneUser): Promise<void> {
  await h.orderClient.update(keystoneUserType, change(await h.order()));
}

describe('User provisioning', () => {
  for (const userName of ['admin', 'ADMIN', ' Glance ', 'nóva', 'neutron-nova', 'hypervisor-operator']) {
    it(`a reserved name folds to a ServiceAccountCollision and is never provisioned: ${JSON.stringify(userName)}`, async () => {
      const h = userFixture();
      await h.seedAll({ userName });
      await h.pass();
      assert.deepEqual(await h.pass(), { requeueAfterMs: 600_000 });
      const c = await userReady(h);
      assert.equal(c?.reason, 'ServiceAccountCollision');
      assert.match(c.message, /which the ControlPlane creates in domain "Default" itself/);
      assert.deepEqual(await h.names_in(korcUserType), []);
    });
  }

  it('the admin user name comes from the ControlPlane', async () => {
    const h = userFixture();
    await h.seedAll({ userName: 'Root' }, { korc: { adminCredential: { userName: 'root' } } });
    await h.pass();
    await h.pass();
    assert.equal((await userReady(h))?.reason, 'ServiceAccountCollision');
  });

  it('SecretStoreNotReady: without a ready store nothing is created', async () => {
    const h = userFixture();
    await h.seedControlPlane();
    await h.seedStore(false);
    await h.seedOrder();
    await h.pass();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    assert.equal((await userReady(h))?.reason, 'SecretStoreNotReady');
    assert.deepEqual(await h.names_in(korcUserType), []);
  });

  it('the store is read at the version the cluster serves: ESO 0.10 serves SecretStore at v1beta1', async () => {
    const h = userFixture();
    await h.seedControlPlane();
    await h.seedStore(true, 'v1beta1');
    await h.seedOrder();
    await h.pass();
    await h.pass();
    assert.equal((await userReady(h))?.reason, 'ProbingForCollision', 'past the store gate');
  });

  it('a cluster that serves SecretStore at neither v1 nor v1beta1 says so plainly', async () => {
    const h = userFixture();
    await h.seedAll();
    h.fakes.management.serveVersions(ESO_GROUP, 'secretstores', ['v1alpha1']);
    await h.pass();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    const c = await userReady(h);
    assert.equal(c?.reason, 'SecretStoreNotReady');
    assert.equal(
      c.message,
      'this cluster serves no SecretStore at external-secrets.io/v1 or v1beta1 (is the External Secrets Operator installed?); the password could not be backed up',
    );
    assert.deepEqual(await h.names_in(korcUserType), []);
  });

  it('against an External Keystone, a probe K-ORC cannot authenticate reads AuthenticationFailed, not probing', async () => {
    const h = userFixture();
    await h.seedAll(
      {},
      { services: { keystone: { mode: 'External', external: { authURL: 'https://keystone.example/v3' } } } },
    );
    await h.pass();
    await h.pass();
    const probe = await h.management.get(korcUserType, CP_NS, h.names.probe);
    const message = 'providerClient authentication err: POST identity/auth/tokens: HTTP 401: Unauthorized';
    await h.fakes.management.update(korcUserType, {
      ...probe,
      status: { conditions: korcWaiting(probe.metadata.generation ?? 1, message) },
    });
    await h.pass();
    const c = await userReady(h);
    assert.equal(c?.reason, 'AuthenticationFailed');
    assert.match(c.message, /refuses the admin credential; K-ORC reports: providerClient authentication err/);
  });

  it('an existing Keystone user is a collision and is never taken over', async () => {
    const h = userFixture();
    await h.seedAll();
    h.keystoneUsers.add(NAME);
    await h.pass();
    await h.pass();
    await h.korc();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    const c = await userReady(h);
    assert.equal(c?.reason, 'ServiceAccountCollision');
    assert.equal(
      c.message,
      'Keystone user "workflow" in domain "Default" already exists; the order never takes over a user it did not create; choose another userName or remove that user',
    );
    assert.deepEqual(await h.names_in(korcUserType), [h.names.probe]);
  });

  it('once the probe finds nothing it is dropped, and the managed User is created in the admin domain', async () => {
    const h = userFixture();
    await h.seedAll({ userName: 'svc-workflow' });
    await h.pass();
    await h.pass();
    const probe = await h.management.get(korcUserType, CP_NS, h.names.probe);
    assert.deepEqual(probe.spec.import, { filter: { name: 'svc-workflow', domainRef: 'cp-domain-default' } });
    assert.deepEqual(probe.spec.cloudCredentialsRef, { secretName: 'k-orc-clouds-yaml', cloudName: 'admin' });
    await h.korc();
    await h.pass();
    assert.deepEqual(await h.names_in(korcUserType), [h.names.user]);
    const user = await managedUser(h);
    assert.equal(user.spec.managementPolicy, 'managed');
    assert.deepEqual(user.spec.resource, {
      name: 'svc-workflow',
      domainRef: 'cp-domain-default',
      passwordRef: h.names.password(1),
    });
    assert.equal(user.metadata.annotations?.[PASSWORD_GENERATION_ANNOTATION], '1');
    const password = secretValue(await h.secret(h.names.password(1)), 'password');
    assert.equal(password, Buffer.alloc(32, 1).toString('base64url'));
    assert.equal((await userReady(h))?.reason, 'WaitingForServiceAccounts');
  });

  it('UserProvisioned once K-ORC applied the password; status carries the id and the generation', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '720h' } });
    await h.converge();
    const order = await h.order();
    const c = await userReady(h);
    assert.equal(c?.reason, 'UserProvisioned');
    assert.equal(c.message, 'Keystone user "workflow" is provisioned in domain "Default" at password generation 1');
    assert.equal(order.status?.userID, 'ku-user-id');
    assert.equal(order.status.passwordGeneration, 1);
    assert.equal(order.status.lastPasswordRotation, '2026-06-01T00:00:00Z');
    assert.equal(order.status.nextPasswordRotation, '2026-07-01T00:00:00Z');
  });

  it('raising passwordGeneration points the User at a new Secret; the old one goes once K-ORC applied it', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const first = secretValue(await h.secret(h.names.password(1)), 'password');
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, passwordGeneration: 2 } }));
    h.clock.advance(60_000);
    await h.pass();
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(2));
    assert.notEqual(secretValue(await h.secret(h.names.password(2)), 'password'), first);
    assert.ok(await h.secret(h.names.password(1)), 'kept until K-ORC applies the new one');
    assert.equal((await h.order()).status?.lastPasswordRotation, '2026-06-01T00:01:00Z');
    await h.converge();
    await assert.rejects(h.secret(h.names.password(1)), /not found/);
    assert.equal((await h.order()).status?.passwordGeneration, 2);
    // A value below the current one never rolls back.
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, passwordGeneration: 1 } }));
    await h.pass();
    assert.equal((await managedUser(h)).spec.resource?.passwordRef, h.names.password(2));
  });

  it('at the first generation nothing can be superseded: the passes never list the namespace\u2019s Secrets', async () => {
    // Listing them costs every pass the whole namespace (every order's Secrets, decrypted): refused here.
    const h = userFixture({ refuse: { method: 'list', plural: 'secrets', error: () => new Error('Secrets listed') } });
    await h.seedAll();
    await h.converge();
    assert.equal((await userReady(h))?.reason, 'UserProvisioned');
    assert.equal((await h.condition('Ready'))?.status, 'True');
  });

  it('the superseded password is found in the manager\u2019s cache, not by listing the store', async () => {
    let cached: Secret[] = [];
    let refusing = false;
    const h = userFixture({
      refuse: { method: 'list', plural: 'secrets', error: () => new Error('Secrets listed'), when: () => refusing },
      cachedSecrets: () => cached,
    });
    await h.seedAll();
    await h.converge();
    await edit(h, (o) => ({ ...o, spec: { ...o.spec, passwordGeneration: 2 } }));
    await h.pass();
    cached = (await h.management.list(builtin.secret, { namespace: CP_NS })).items;
    refusing = true;
    await h.converge();
    await assert.rejects(h.secret(h.names.password(1)), /not found/);
    assert.ok(await h.secret(h.names.password(2)));
    assert.equal((await h.order()).status?.passwordGeneration, 2);
  });

  it('a stored zero reads as 1', async () => {
    const h = userFixture();
    await h.seedAll({ passwordGeneration: 0 });
    await h.converge();
    assert.equal((await h.order()).status?.passwordGeneration, 1);
  });

  it('a latched transport error is cleared so K-ORC retries; a failed clear is TransportErrorRetryFailed', async () => {
    let refuse = false;
    const h = userFixture({
      refuse: { method: 'patch', plural: 'users', error: () => new KubeForbiddenError('denied'), when: () => refuse },
    });
    await h.seedAll();
    await h.converge();
    const latch = async () => {
      const user = await managedUser(h);
      const message = 'invalid configuration updating resource: dial tcp 10.0.0.1:5000: connection refused';
      await h.fakes.management.update(korcUserType, {
        ...user,
        status: { ...user.status, conditions: korcTerminal(1, 'InvalidConfiguration', message) },
      });
    };
    await latch();
    await h.pass();
    const cleared = await managedUser(h);
    assert.equal(
      cleared.status?.conditions?.find((c) => c.type === 'Progressing'),
      undefined,
    );
    assert.equal(cleared.metadata.annotations?.[UNLATCHED_AT_ANNOTATION], '2026-06-01T00:00:00Z');
    assert.equal((await userReady(h))?.reason, 'WaitingForServiceAccounts');
    await latch();
    h.clock.advance(10 * 60_000);
    refuse = true;
    await h.pass();
    assert.equal((await userReady(h))?.reason, 'TransportErrorRetryFailed');
  });

  it('a terminal K-ORC error is ServiceAccountsFailed', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const user = await managedUser(h);
    await h.fakes.management.update(korcUserType, {
      ...user,
      status: { ...user.status, conditions: korcTerminal(1, 'InvalidConfiguration', 'password rejected by policy') },
    });
    await h.pass();
    const c = await userReady(h);
    assert.equal(c?.reason, 'ServiceAccountsFailed');
    assert.equal(c.message, 'K-ORC reported a terminal error on the user: password rejected by policy');
  });

  it('a live User of the managed name that the order did not create is refused, untouched (ServiceAccountError)', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.fakes.management.create(korcUserType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'User',
      metadata: { name: h.names.user, namespace: CP_NS },
      spec: { cloudCredentialsRef: { secretName: 's', cloudName: 'c' }, resource: { name: 'someone' } },
    });
    await h.pass();
    await h.pass();
    const c = await userReady(h);
    assert.equal(c?.reason, 'ServiceAccountError');
    assert.match(c.message, /refusing to adopt pre-existing User/);
    assert.equal((await managedUser(h)).spec.resource?.name, 'someone');
    await assert.rejects(h.management.get(builtin.secret, CP_NS, h.names.password(1)), /not found/);
  });
});

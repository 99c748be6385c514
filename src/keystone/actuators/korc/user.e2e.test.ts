/**
 * The K-ORC User actuator end to end, in process: the embedded store with the real K-ORC CRDs, and the emulator's
 * Keystone reached over HTTP with the admin cloud the User's cloudCredentialsRef names. Passes are driven directly
 * (deterministic), and once through the Manager to check the registration and the Secret watches.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CloudFixture } from '../../../emulator/testing/cloud.ts';
import { cloudFixture } from '../../../emulator/testing/cloud.ts';
import type { Client } from '../../../kube/client.ts';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { httpError } from '../../../openstack/errors.ts';
import { deleteUser, listUsers, type IdentityClient } from '../../../openstack/identity.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import { Manager } from '../../../runtime/manager.ts';
import type { ReconcileContext, Result } from '../../../runtime/types.ts';
import {
  KORC_USER_FINALIZER,
  KORC_WAITING_FOR_EXTERNAL,
  korcUserType,
  type KorcUser,
  type KorcUserSpec,
} from '../../apis/index.ts';
import { cloudsSecret, storeWithRealCrds } from '../testing/real-crds.ts';
import { CloudCredentials } from './credentials.ts';
import { runPass } from './pass.ts';
import { registerKorcActuators } from './register.ts';
import { userActuator } from './user.ts';

const NS = 'default';
const credentials = { secretName: 'openstack-clouds', cloudName: 'admin' };
let cloud: CloudFixture;
const stores: EmbeddedStore[] = [];
const closing: CloudCredentials[] = [];

before(async () => {
  cloud = await cloudFixture();
});
after(async () => {
  await Promise.all(closing.map((c) => c.close()));
  await Promise.all(stores.map((s) => s.close()));
  await cloud.close();
});

/** A store with the real K-ORC CRDs and the admin cloud the Users' cloudCredentialsRef names. */
async function openStore(): Promise<EmbeddedStore> {
  const store = await storeWithRealCrds(cloud.clock);
  stores.push(store);
  await store.create(builtin.secret, cloudsSecret(NS, credentials.secretName, cloud.emulator.cloudsYaml('admin')));
  return store;
}

const identity = () => cloud.admin.client('identity');
const ctx = (): ReconcileContext => ({ signal: new AbortController().signal, log: silentLogger(), clock: cloud.clock });

/**
 * `lostAnswer`: Keystone did the request named (`POST /users`), but its answer is lost to a 503 once, as a proxy
 * between K-ORC and Keystone may lose it.
 */
function harness(client: Client, options: { lostAnswer?: string } = {}) {
  const cc = new CloudCredentials({ client, clock: cloud.clock });
  closing.push(cc);
  /** Every Keystone request the actuator made, as `METHOD /path/template`. */
  const calls: string[] = [];
  let lose = options.lostAnswer;
  const counted = (identity: IdentityClient): IdentityClient => ({
    serviceType: identity.serviceType,
    scope: identity.scope,
    baseUrl: (signal) => identity.baseUrl(signal),
    request: async <T>(spec: Parameters<IdentityClient['request']>[0]) => {
      const call = `${spec.method} ${spec.path}`;
      calls.push(call);
      const answer = await identity.request<T>(spec);
      if (call !== lose) return answer;
      lose = undefined;
      throw httpError({
        serviceType: 'identity',
        method: spec.method,
        urlTemplate: spec.path,
        status: 503,
        requestID: undefined,
        body: '',
      });
    },
  });
  const actuator = userActuator({
    client,
    identityFor: async (u) => counted(await cc.identity(u.metadata.namespace ?? '', u.spec.cloudCredentialsRef)),
    defaultDomainID: 'default',
  });
  return {
    calls,
    pass: (name: string): Promise<Result> =>
      runPass(actuator, { client, pollMs: 10_000, random: () => 0 }, { cluster: '', namespace: NS, name }, ctx()),
    get: (name: string) => client.get(korcUserType, NS, name),
  };
}

const secret = (name: string, password: string) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  data: { password: Buffer.from(password).toString('base64') },
});

const korcUser = (name: string, spec: KorcUserSpec): KorcUser => ({
  apiVersion: 'openstack.k-orc.cloud/v1alpha1',
  kind: 'User',
  metadata: { name, namespace: NS },
  spec,
});

const managed = (name: string, passwordRef: string): KorcUserSpec => ({
  cloudCredentialsRef: credentials,
  managementPolicy: 'managed',
  resource: { name, passwordRef },
});

async function authenticates(name: string, password: string): Promise<boolean> {
  const session = cloud.session<'unscoped'>(
    { type: 'password', user: { name, domain: { id: 'default' } }, password },
    { kind: 'unscoped' },
  );
  try {
    await session.token();
    return true;
  } catch {
    return false;
  }
}

const usersNamed = async (name: string) => (await listUsers(identity(), { domainID: 'default', name })).length;
const condition = (u: KorcUser, type: string) => u.status?.conditions?.find((c) => c.type === type);

describe('K-ORC User actuator against the emulator', () => {
  it('creates a managed user with the Secret password and no default project', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('alice-pw-1', 'first-Password-1'));
    await store.create(korcUserType, korcUser('alice', managed('svc-alice', 'alice-pw-1')));
    assert.deepEqual(await h.pass('alice'), {});
    const u = await h.get('alice');
    assert.ok(u.metadata.finalizers?.includes(KORC_USER_FINALIZER));
    assert.equal(condition(u, 'Available')?.status, 'True');
    assert.equal(condition(u, 'Available')?.reason, 'Success');
    assert.equal(condition(u, 'Progressing')?.status, 'False');
    assert.equal(condition(u, 'Progressing')?.message, 'OpenStack resource is up to date');
    assert.equal(u.status?.resource?.appliedPasswordRef, 'alice-pw-1');
    assert.equal(u.status.resource.domainID, 'default');
    assert.equal(u.status.resource.defaultProjectID, undefined);
    assert.ok(u.status.id);
    assert.ok(await authenticates('svc-alice', 'first-Password-1'));
    // A later pass with nothing to change writes nothing, so it does not wake itself again.
    cloud.clock.advance(60_000);
    await h.pass('alice');
    assert.equal((await h.get('alice')).metadata.resourceVersion, u.metadata.resourceVersion);
  });

  it('a managed User costs Keystone one lookup by name and the create; the pass its status write wakes, nothing', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('carl-pw-1', 'carl-Password-1'));
    await store.create(korcUserType, korcUser('carl', managed('svc-carl', 'carl-pw-1')));
    await h.pass('carl');
    const u = await h.get('carl');
    assert.equal(condition(u, 'Available')?.status, 'True');
    assert.equal(u.status?.resource?.appliedPasswordRef, 'carl-pw-1');
    assert.equal(u.status.resource.name, 'svc-carl');
    assert.equal(u.status.resource.domainID, 'default');
    // As K-ORC, the create's answer is what status reports: no read by id.
    assert.deepEqual(h.calls.splice(0), ['GET /users', 'POST /users']);
    // Progressing False at this generation: K-ORC's ShouldReconcile leaves it alone, so Keystone is not asked.
    assert.deepEqual(await h.pass('carl'), {});
    assert.deepEqual(h.calls.splice(0), []);
    assert.equal((await h.get('carl')).metadata.resourceVersion, u.metadata.resourceVersion);
    assert.ok(await authenticates('svc-carl', 'carl-Password-1'));
  });

  it('spec.resyncPeriod: left alone until due, then read by id; a user deleted behind its back is created again', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('hana-pw-1', 'hana-Password-1'));
    await store.create(korcUserType, korcUser('hana', { ...managed('svc-hana', 'hana-pw-1'), resyncPeriod: '1h' }));
    const first = await h.pass('hana');
    // K-ORC requeues a resync one period later, plus up to 20 % jitter (none drawn here).
    assert.deepEqual(first, { requeueAfterMs: 3_600_000 });
    const created = (await h.get('hana')).status?.id;
    assert.ok(created);
    h.calls.splice(0);
    cloud.clock.advance(600_000);
    assert.deepEqual(await h.pass('hana'), { requeueAfterMs: 3_000_000 });
    assert.deepEqual(h.calls.splice(0), []);
    await deleteUser(identity(), created);
    cloud.clock.advance(3_000_000);
    await h.pass('hana');
    assert.deepEqual(h.calls.splice(0), ['GET /users/{user_id}', 'GET /users', 'POST /users']);
    const again = await h.get('hana');
    assert.notEqual(again.status?.id, created);
    assert.equal(condition(again, 'Available')?.status, 'True');
    assert.equal(await usersNamed('svc-hana'), 1);
    assert.ok(await authenticates('svc-hana', 'hana-Password-1'));
  });

  it('applies a password only when passwordRef changes', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('bob-pw-1', 'bob-Password-1'));
    await store.create(korcUserType, korcUser('bob', managed('svc-bob', 'bob-pw-1')));
    await h.pass('bob');
    // The same ref with new content: K-ORC does not re-apply.
    const stored = await store.get(builtin.secret, NS, 'bob-pw-1');
    await store.update(builtin.secret, { ...secret('bob-pw-1', 'bob-Password-X'), metadata: stored.metadata });
    await h.pass('bob');
    assert.ok(await authenticates('svc-bob', 'bob-Password-1'));
    assert.ok(!(await authenticates('svc-bob', 'bob-Password-X')));
    // A new ref whose Secret does not exist yet waits.
    const current = await h.get('bob');
    await store.update(korcUserType, { ...current, spec: managed('svc-bob', 'bob-pw-2') });
    await h.pass('bob');
    const waiting = await h.get('bob');
    assert.equal(condition(waiting, 'Progressing')?.message, 'Waiting for Secret/bob-pw-2 to be created');
    assert.equal(waiting.status?.resource?.appliedPasswordRef, 'bob-pw-1');
    await store.create(builtin.secret, secret('bob-pw-2', 'bob-Password-2'));
    await h.pass('bob');
    const moved = await h.get('bob');
    assert.equal(moved.status?.resource?.appliedPasswordRef, 'bob-pw-2');
    assert.equal(condition(moved, 'Available')?.status, 'True');
    assert.ok(await authenticates('svc-bob', 'bob-Password-2'));
    assert.ok(!(await authenticates('svc-bob', 'bob-Password-1')));
  });

  it('an unmanaged import waits with K-ORC message, then adopts; deleting it leaves the user', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(
      korcUserType,
      korcUser('carol', {
        cloudCredentialsRef: credentials,
        managementPolicy: 'unmanaged',
        import: { filter: { name: 'ext-carol' } },
      }),
    );
    assert.deepEqual(await h.pass('carol'), { requeueAfterMs: 10_000 });
    const waiting = await h.get('carol');
    assert.equal(condition(waiting, 'Available')?.status, 'False');
    assert.equal(condition(waiting, 'Available')?.reason, 'Progressing');
    assert.equal(condition(waiting, 'Available')?.message, KORC_WAITING_FOR_EXTERNAL);
    assert.equal(condition(waiting, 'Progressing')?.status, 'True');
    await identity().request({
      method: 'POST',
      path: '/users',
      body: { user: { name: 'ext-carol', domain_id: 'default', password: 'ext-Password-1' } },
    });
    assert.deepEqual(await h.pass('carol'), {});
    const adopted = await h.get('carol');
    assert.equal(condition(adopted, 'Available')?.status, 'True');
    assert.equal(adopted.status?.resource?.name, 'ext-carol');
    await store.delete(korcUserType, NS, 'carol');
    h.calls.splice(0);
    await h.pass('carol');
    await assert.rejects(h.get('carol'));
    // An import owns nothing in Keystone: its finalizer goes without a lookup.
    assert.deepEqual(h.calls, []);
    assert.equal(await usersNamed('ext-carol'), 1);
  });

  it('reaches Keystone with the cloud its cloudCredentialsRef names: none yet is a transient error', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('gwen-pw-1', 'gwen-Password-1'));
    const spec = {
      ...managed('svc-gwen', 'gwen-pw-1'),
      cloudCredentialsRef: { secretName: 'gwen-cloud', cloudName: 'admin' },
    };
    await store.create(korcUserType, korcUser('gwen', spec));
    await assert.rejects(h.pass('gwen'), /Secret "gwen-cloud" not found/);
    const waiting = await h.get('gwen');
    assert.equal(condition(waiting, 'Progressing')?.reason, 'TransientError');
    assert.equal(condition(waiting, 'Progressing')?.message, 'Secret "gwen-cloud" not found');
    assert.equal(await usersNamed('svc-gwen'), 0);
    await store.create(builtin.secret, cloudsSecret(NS, 'gwen-cloud', cloud.emulator.cloudsYaml('admin')));
    await h.pass('gwen');
    assert.equal(condition(await h.get('gwen'), 'Available')?.status, 'True');
    assert.ok(await authenticates('svc-gwen', 'gwen-Password-1'));
  });

  it('deleting a managed User deletes it in Keystone', async () => {
    const store = await openStore();
    const h = harness(store);
    await store.create(builtin.secret, secret('dave-pw-1', 'dave-Password-1'));
    await store.create(korcUserType, korcUser('dave', managed('svc-dave', 'dave-pw-1')));
    await h.pass('dave');
    assert.equal(await usersNamed('svc-dave'), 1);
    await store.delete(korcUserType, NS, 'dave');
    await h.pass('dave');
    await assert.rejects(h.get('dave'));
    assert.equal(await usersNamed('svc-dave'), 0);
  });

  it('a pass interrupted after the Keystone create converges without a duplicate', async () => {
    const store = await openStore();
    let failNextIDWrite = true;
    // The store refuses the first status write of an id: the process "crashed" right after the Keystone create.
    const crashing: Client = {
      ...store,
      get: (type, ns, name) => store.get(type, ns, name),
      list: (type, options) => store.list(type, options),
      watch: (type, options) => store.watch(type, options),
      create: (type, object, options) => store.create(type, object, options),
      update: (type, object, options) => store.update(type, object, options),
      apply: (type, object, options) => store.apply(type, object, options),
      delete: (type, ns, name, options) => store.delete(type, ns, name, options),
      patch: (type, ns, name, patch, options) => {
        const status =
          patch.type === 'merge' ? (patch.patch['status'] as Record<string, unknown> | undefined) : undefined;
        if (failNextIDWrite && status?.['id'] !== undefined) {
          failNextIDWrite = false;
          return Promise.reject(new Error('crashed'));
        }
        return store.patch(type, ns, name, patch, options);
      },
    };
    const h = harness(crashing);
    await store.create(builtin.secret, secret('erin-pw-1', 'erin-Password-1'));
    await store.create(korcUserType, korcUser('erin', managed('svc-erin', 'erin-pw-1')));
    await assert.rejects(h.pass('erin'), /crashed/);
    assert.equal(await usersNamed('svc-erin'), 1);
    assert.equal((await h.get('erin')).status?.id, undefined);
    await h.pass('erin');
    const u = await h.get('erin');
    assert.equal(condition(u, 'Available')?.status, 'True');
    assert.equal(u.status?.resource?.appliedPasswordRef, 'erin-pw-1');
    assert.equal(await usersNamed('svc-erin'), 1);
    assert.ok(await authenticates('svc-erin', 'erin-Password-1'));
  });

  it('a create whose answer is lost converges on the next pass without a duplicate: found by name, adopted', async () => {
    const store = await openStore();
    const h = harness(store, { lostAnswer: 'POST /users' });
    await store.create(builtin.secret, secret('ivan-pw-1', 'ivan-Password-1'));
    await store.create(korcUserType, korcUser('ivan', managed('svc-ivan', 'ivan-pw-1')));
    // A 503 is retryable: the pass fails for the runtime's backoff, Progressing reads TransientError.
    await assert.rejects(h.pass('ivan'), /HTTP 503/);
    assert.equal(condition(await h.get('ivan'), 'Progressing')?.reason, 'TransientError');
    assert.equal(await usersNamed('svc-ivan'), 1);
    h.calls.splice(0);
    await h.pass('ivan');
    // Adopted by name; each step that records something (the id, then the password ref the create set, never
    // re-set) reads the user again by that id. A recovery path only: K-ORC would report the listed user as is.
    assert.deepEqual(h.calls.splice(0), ['GET /users', 'GET /users/{user_id}', 'GET /users/{user_id}']);
    const u = await h.get('ivan');
    assert.equal(condition(u, 'Available')?.status, 'True');
    assert.equal(u.status?.resource?.appliedPasswordRef, 'ivan-pw-1');
    assert.equal(await usersNamed('svc-ivan'), 1);
    assert.ok(await authenticates('svc-ivan', 'ivan-Password-1'));
    await store.delete(korcUserType, NS, 'ivan');
    await h.pass('ivan');
    assert.equal(await usersNamed('svc-ivan'), 0);
  });

  it('through the Manager: off by default; on, a User waits for its Secret and is woken by it', async () => {
    const store = await openStore();
    const manager = new Manager({ client: store, clock: cloud.clock, random: () => 0, resyncMs: 3_600_000 });
    assert.equal(registerKorcActuators(manager, { clock: cloud.clock }), undefined);
    const registered = registerKorcActuators(manager, { enabled: true, clock: cloud.clock });
    assert.ok(registered);
    closing.push(registered);
    await manager.start();
    try {
      await store.create(korcUserType, korcUser('frank', managed('svc-frank', 'frank-pw-1')));
      await until(
        async () =>
          condition(await store.get(korcUserType, NS, 'frank'), 'Progressing')?.message ===
          'Waiting for Secret/frank-pw-1 to be created',
      );
      await store.create(builtin.secret, secret('frank-pw-1', 'frank-Password-1'));
      await until(async () => condition(await store.get(korcUserType, NS, 'frank'), 'Available')?.status === 'True');
      assert.ok(await authenticates('svc-frank', 'frank-Password-1'));
    } finally {
      await manager.stop();
    }
  });
});

/** Waits on real I/O (HTTP to the emulator), bounded. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('condition did not hold');
}

/**
 * The PushSecret actuator end to end, in process: the embedded store with the real ESO CRDs of each line in the
 * field (2.x serving SecretStore v1, 0.10 serving v1beta1), the runtime Manager, and the emulator's KV v2 endpoint
 * over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import { KubeNotFoundError } from '../../../kube/errors.ts';
import type { Secret } from '../../../kube/object.ts';
import { apiVersionOf, builtin, type ResourceType } from '../../../kube/resource-type.ts';
import { Manager } from '../../../runtime/manager.ts';
import { ManualClock } from '../../../util/clock.ts';
import { ESO_LINES, ESO_STORE_VERSION } from '../../../../test/fixtures/third-party-crds/index.ts';
import { PUSH_SECRET_FINALIZER, pushSecretType, type PushSecret, type SecretStore } from '../../apis/eso.ts';
import { discoverStoreType } from '../../apis/store-versions.ts';
import { storeWithRealCrds } from '../testing/real-crds.ts';
import { registerEsoActuator } from './controller.ts';
import { KvClient } from './kv.ts';

const NS = 'tenant';
const REMOTE = 'openstack/keystone/tenant/p/service-accounts/credentials';
const HASH = 'c5c3.io/keystoneuser-push-hash';

/** Polls in real time: the KV round trips are real HTTP. */
async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not happen`);
}

const encoded = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
const secret = (name: string, data: Record<string, string>): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  data: encoded(data),
});

for (const line of ESO_LINES)
  describe(`ESO PushSecret actuator (embedded store with ESO ${line}'s CRDs + emulator KV)`, () => {
    let cloud: CloudFixture;
    let store: EmbeddedStore;
    let manager: Manager;
    let kv: KvClient;
    let storeType: ResourceType<SecretStore>;
    const clock = new ManualClock();

    before(async () => {
      cloud = await cloudFixture({ config: { kvToken: 'tok' } });
      kv = new KvClient({ server: cloud.emulator.url, mount: 'kv-v2', token: 'tok' });
      store = await storeWithRealCrds(clock, { eso: line });
      const discovered = await discoverStoreType(store, 'SecretStore');
      assert.equal(discovered?.version, ESO_STORE_VERSION[line], 'the version this line serves');
      storeType = discovered;
      await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
      await store.create(builtin.secret, secret('kv-token', { token: 'tok' }));
      await store.create(storeType, {
        apiVersion: apiVersionOf(storeType),
        kind: 'SecretStore',
        metadata: { name: 'openbao-tenant-store', namespace: NS },
        spec: {
          provider: {
            vault: {
              server: cloud.emulator.url,
              path: 'kv-v2',
              version: 'v2',
              auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
            },
          },
        },
      });
      manager = new Manager({ client: store, clock, random: () => 0 });
      assert.deepEqual(registerEsoActuator(manager), [], 'off by default');
      assert.equal(registerEsoActuator(manager, { enabled: true, storeType }).length, 2);
      await manager.start();
    });
    after(async () => {
      await manager.stop();
      await store.close();
      await cloud.close();
    });

    const getPs = () => store.get(pushSecretType, NS, 'creds');
    const annotate = async (value: string) => {
      const ps = await getPs();
      await store.update(pushSecretType, { ...ps, metadata: { ...ps.metadata, annotations: { [HASH]: value } } });
    };
    const readyOf = (ps: PushSecret) => ps.status?.conditions?.find((c) => c.type === 'Ready');
    /** The PushSecret once Ready has `status` and syncedResourceVersion is not `notVersion`. */
    const settled = (status: 'True' | 'False', notVersion?: string) =>
      waitFor(async () => {
        const ps = await getPs();
        const synced = ps.status?.syncedResourceVersion;
        const moved = status === 'False' || synced !== notVersion;
        return readyOf(ps)?.status === status && moved ? ps : undefined;
      }, `Ready ${status}`);

    it('validates the SecretStore as ESO does: Ready True, Valid', async () => {
      const ready = await waitFor(async () => {
        const s = await store.get(storeType, NS, 'openbao-tenant-store');
        return s.status?.conditions?.find((c) => c.type === 'Ready');
      }, 'the store validated');
      assert.deepEqual([ready.status, ready.reason, ready.message], ['True', 'Valid', 'store validated']);
    });

    it('pushes the source Secret with managed-by metadata, adds the finalizer, and marks Ready Synced', async () => {
      await store.create(builtin.secret, secret('creds-source', { 'clouds.yaml': 'v1' }));
      await store.create(pushSecretType, {
        apiVersion: 'external-secrets.io/v1alpha1',
        kind: 'PushSecret',
        metadata: { name: 'creds', namespace: NS, annotations: { [HASH]: 'h1' } },
        spec: {
          deletionPolicy: 'Delete',
          secretStoreRefs: [{ name: 'openbao-tenant-store', kind: 'SecretStore' }],
          selector: { secret: { name: 'creds-source' } },
          data: [{ match: { remoteRef: { remoteKey: REMOTE } } }],
        },
      });
      const ps = await settled('True');
      assert.deepEqual(readyOf(ps), {
        type: 'Ready',
        status: 'True',
        reason: 'Synced',
        message: 'PushSecret synced successfully',
        lastTransitionTime: readyOf(ps)?.lastTransitionTime,
      });
      assert.deepEqual(ps.metadata.finalizers, [PUSH_SECRET_FINALIZER]);
      assert.match(ps.status?.syncedResourceVersion ?? '', /^1-[0-9a-f]{32}$/);
      assert.deepEqual(Object.keys(ps.status?.syncedPushSecrets?.['SecretStore/openbao-tenant-store'] ?? {}), [REMOTE]);
      assert.deepEqual(await kv.readData(REMOTE), { 'clouds.yaml': 'v1' });
      assert.deepEqual((await kv.readMetadata(REMOTE))?.customMetadata, { 'managed-by': 'external-secrets' });
    });

    it('a changed source Secret is pushed when the hash annotation is stamped, moving syncedResourceVersion', async () => {
      const before = (await getPs()).status?.syncedResourceVersion;
      const source = await store.get(builtin.secret, NS, 'creds-source');
      await store.update(builtin.secret, { ...source, data: encoded({ 'clouds.yaml': 'v2' }) });
      await annotate('h2');
      const ps = await settled('True', before);
      assert.notEqual(ps.status?.syncedResourceVersion, before);
      assert.deepEqual(await kv.readData(REMOTE), { 'clouds.yaml': 'v2' });
      assert.equal((await kv.readMetadata(REMOTE))?.currentVersion, 2);
    });

    it('a KV failure (wrong token) keeps syncedResourceVersion and sets Ready False, Errored', async () => {
      const before = (await getPs()).status?.syncedResourceVersion;
      const token = await store.get(builtin.secret, NS, 'kv-token');
      await store.update(builtin.secret, { ...token, data: encoded({ token: 'wrong' }) });
      await annotate('h3');
      const failed = await settled('False');
      assert.equal(readyOf(failed)?.reason, 'Errored');
      assert.match(readyOf(failed)?.message ?? '', /^set secret failed: .*HTTP 403: permission denied/);
      assert.equal(failed.status?.syncedResourceVersion, before);
      assert.deepEqual(await kv.readData(REMOTE), { 'clouds.yaml': 'v2' });

      const fixed = await store.get(builtin.secret, NS, 'kv-token');
      await store.update(builtin.secret, { ...fixed, data: encoded({ token: 'tok' }) });
      await annotate('h4');
      const recovered = await settled('True', before);
      assert.notEqual(recovered.status?.syncedResourceVersion, before);
    });

    it("a KV failure from the emulator's route fault control also keeps syncedResourceVersion", async () => {
      const before = (await getPs()).status?.syncedResourceVersion;
      const source = await store.get(builtin.secret, NS, 'creds-source');
      await store.update(builtin.secret, { ...source, data: encoded({ 'clouds.yaml': 'v3' }) });
      assert.equal(
        await cloud.control('POST', '/faults', { route: '/v1/{mount}/data/{path+}', method: 'POST', status: 503 }),
        201,
      );
      await annotate('h5');
      const failed = await settled('False');
      assert.equal(failed.status?.syncedResourceVersion, before);
      assert.match(readyOf(failed)?.message ?? '', /^set secret failed: .*HTTP 503/);
      assert.equal(await cloud.control('DELETE', '/faults'), 204);
      await annotate('h6');
      await settled('True', before);
      assert.deepEqual(await kv.readData(REMOTE), { 'clouds.yaml': 'v3' });
    });

    it('a source Secret gone under deletionPolicy Delete removes the pushed keys and fails the push', async () => {
      await store.create(builtin.secret, secret('orphan-source', { k: 'v' }));
      const orphan = await store.create(pushSecretType, {
        apiVersion: 'external-secrets.io/v1alpha1',
        kind: 'PushSecret',
        metadata: { name: 'orphan', namespace: NS },
        spec: {
          deletionPolicy: 'Delete',
          secretStoreRefs: [{ name: 'openbao-tenant-store', kind: 'SecretStore' }],
          selector: { secret: { name: 'orphan-source' } },
          data: [{ match: { remoteRef: { remoteKey: 'orphan/key' } } }],
        },
      });
      await waitFor(() => kv.readData('orphan/key'), 'the orphan pushed');
      await store.delete(builtin.secret, NS, 'orphan-source');
      const live = await store.get(pushSecretType, NS, orphan.metadata.name);
      await store.update(pushSecretType, { ...live, metadata: { ...live.metadata, annotations: { [HASH]: 'x' } } });
      const failed = await waitFor(async () => {
        const ps = await store.get(pushSecretType, NS, 'orphan');
        return readyOf(ps)?.status === 'False' ? ps : undefined;
      }, 'the orphan failed');
      assert.equal(readyOf(failed)?.message, 'set secret failed: could not get source secret');
      assert.equal(await kv.readMetadata('orphan/key'), undefined);
    });

    it('deletion with deletionPolicy Delete removes the KV path, then the finalizer', async () => {
      await store.delete(pushSecretType, NS, 'creds');
      await waitFor(async () => {
        try {
          await getPs();
          return undefined;
        } catch (error) {
          if (error instanceof KubeNotFoundError) return true;
          throw error;
        }
      }, 'the PushSecret gone');
      assert.equal(await kv.readMetadata(REMOTE), undefined);
    });
  });

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type EmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { Transport } from '../../openstack/transport.ts';
import { ManualClock } from '../../util/clock.ts';
import { API_VERSION, regionType, type Region, type RegionSpec } from '../apis/index.ts';
import { ResourceNotFoundError } from '../provider/errors.ts';
import { createRegionClientSet } from './client-set.ts';
import type { RegionCredentials } from './principals.ts';
import { RegionRegistry, type ClientSetFactory } from './registry.ts';
import { CREDENTIAL_KEYS, RegionConfigError, RegionProviderKindError } from './region-config.ts';
import { openRegionStore } from '../apis/testing/store.ts';

const NS = 'regions';
const clock = new ManualClock();
const transport = new Transport({ clock, random: () => 0 });
let store: EmbeddedStore;
let built: RegionCredentials[];

// Building a client set does no I/O, so the real one is used; the list records each build.
const factory: ClientSetFactory = (credentials) => {
  built.push(credentials);
  return createRegionClientSet(credentials, { transport, clock });
};
const providers = () =>
  RegionRegistry.bootstrap({ namespace: NS, bootstrapClient: store, runtimeClient: store, clientSets: factory });

const b64 = (text: string) => Buffer.from(text).toString('base64');
const secret = (name: string, data: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: NS },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
});
const fullSecret = (name: string, password: string) =>
  secret(name, {
    [CREDENTIAL_KEYS.domainID]: 'dom',
    [CREDENTIAL_KEYS.projectID]: 'proj',
    [CREDENTIAL_KEYS.userID]: 'user',
    [CREDENTIAL_KEYS.password]: password,
  });
const openstackSpec = (secretName: string): RegionSpec => ({
  provider: 'openstack',
  openstack: { endpoint: 'http://keystone.invalid/v3', serviceAccountSecret: { namespace: NS, name: secretName } },
});
const regionObject = (name: string, spec: RegionSpec): Region => ({
  apiVersion: API_VERSION,
  kind: 'Region',
  metadata: { name, namespace: NS },
  spec,
});

before(async () => {
  store = await openRegionStore(clock);
  await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await store.create(builtin.secret, fullSecret('one', 'pw-one'));
  await store.create(builtin.secret, fullSecret('two', 'pw-two'));
  await store.create(regionType, regionObject('one', openstackSpec('one')));
  await store.create(regionType, regionObject('two', openstackSpec('two')));
  await store.create(
    regionType,
    regionObject('kube', { provider: 'kubernetes', kubernetes: { kubeConfigSecret: { namespace: NS, name: 'kc' } } }),
  );
});
after(async () => {
  await store.close();
  await transport.close();
});

describe('RegionRegistry', () => {
  it('bootstrap builds every OpenStack region once, from its Secret; lookups reuse the set', async () => {
    built = [];
    const registry = await providers();
    assert.deepEqual(registry.heldRegions().sort(), ['one', 'two']);
    assert.deepEqual(
      built.map((c) => c.password),
      ['pw-one', 'pw-two'],
    );
    const first = await registry.lookup('one');
    assert.deepEqual(first.clients.credentials, {
      authUrl: 'http://keystone.invalid/v3',
      domainID: 'dom',
      projectID: 'proj',
      userID: 'user',
    });
    assert.equal((await registry.lookup('one')).clients, first.clients);
    assert.equal(built.length, 2, 'no rebuild without a change');
  });

  it('rebuilds only when spec.openstack or the Secret data change', async () => {
    built = [];
    const registry = await providers();
    const held = (await registry.lookup('two')).clients;
    built = [];

    await store.patch(regionType, NS, 'two', { type: 'merge', patch: { metadata: { labels: { unrelated: 'x' } } } });
    const relabelled = await registry.lookup('two');
    assert.equal(relabelled.clients, held, 'a label is not provider configuration');
    assert.equal(relabelled.region.metadata.labels?.['unrelated'], 'x', 'the Region itself is the fresh one');
    assert.equal(built.length, 0);

    await store.patch(regionType, NS, 'two', {
      type: 'merge',
      patch: { spec: { openstack: { compute: { serverGroupPolicy: 'anti-affinity' } } } },
    });
    const reconfigured = await registry.lookup('two');
    assert.notEqual(reconfigured.clients, held);
    assert.equal(reconfigured.config.compute?.serverGroupPolicy, 'anti-affinity');
    assert.equal(built.length, 1);

    await store.patch(builtin.secret, NS, 'two', { type: 'merge', patch: { data: { password: b64('rotated') } } });
    const rotated = await registry.lookup('two');
    assert.notEqual(rotated.clients, reconfigured.clients);
    assert.deepEqual(
      built.map((c) => c.password),
      ['pw-two', 'rotated'],
    );
    assert.equal((await registry.lookup('two')).clients, rotated.clients);
  });

  it('a region created after start-up is built on its first lookup', async () => {
    const registry = await providers();
    await store.create(builtin.secret, fullSecret('late', 'pw-late'));
    await store.create(regionType, regionObject('late', openstackSpec('late')));
    assert.equal((await registry.lookup('late')).region.metadata.name, 'late');
  });

  it('an unknown region is not found; a region of another provider is a wrong kind', async () => {
    const registry = await providers();
    await assert.rejects(registry.lookup('nowhere'), ResourceNotFoundError);
    await assert.rejects(registry.lookup('kube'), (e: unknown) => {
      assert.ok(e instanceof RegionProviderKindError);
      assert.match(e.message, /region kube is served by the kubernetes provider, not openstack/);
      return true;
    });
  });

  it('a missing Secret or key is a configuration error that names it and never a value', async () => {
    const registry = await providers();
    await store.create(regionType, regionObject('nosecret', openstackSpec('absent')));
    await assert.rejects(registry.lookup('nosecret'), /credentials secret regions\/absent not found/);
    await store.create(builtin.secret, secret('partial', { [CREDENTIAL_KEYS.password]: 'pw-partial-value' }));
    await store.create(regionType, regionObject('partial', openstackSpec('partial')));
    await assert.rejects(registry.lookup('partial'), (e: unknown) => {
      assert.ok(e instanceof RegionConfigError);
      assert.match(e.message, /secret regions\/partial has no key domain-id/);
      assert.ok(!e.message.includes('pw-partial-value'));
      return true;
    });
    await assert.rejects(providers(), RegionConfigError, 'bootstrap fails on a broken region');
  });
});

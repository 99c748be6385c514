/** The Volume controller: the identity gate, the provider input, an errored volume, and delete. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import { ManualClock } from '../../util/clock.ts';
import { identityType } from '../apis/identity.ts';
import { API_VERSION, labels } from '../apis/shared.ts';
import { serverClaimFinalizer, volumeType, type Volume, type VolumeSpec } from '../apis/volume.ts';
import { Outcome } from '../provider/outcome.ts';
import { messages } from './decide.ts';
import { identityProvisioner } from './identity.ts';
import { FINALIZER, reconcileProvisioned } from './provisioner.ts';
import {
  FakeIdentityProvider,
  FakeVolumeProvider,
  NAMESPACE,
  ORGANIZATION,
  PROJECT,
  REGION,
  identityObject,
  lookupOf,
  regionStoresClosedAfter,
  ownerLabels,
  passContext,
} from './testing/fakes.ts';
import { volumeProvisioner, sizeGiBOf, volumeInputOf } from './volume.ts';

const volumeObject = (name: string, spec: Partial<VolumeSpec> = {}): Volume => ({
  apiVersion: API_VERSION,
  kind: volumeType.kind,
  metadata: { name, namespace: NAMESPACE, labels: ownerLabels({ [labels.identityID]: 'id-1' }) },
  spec: { volumeClassID: 'type-1', size: '10Gi', networkID: 'net-1', ...spec },
});

const openStore = regionStoresClosedAfter();

async function setup(volume: Volume = volumeObject('vol-1')) {
  const clock = new ManualClock();
  const store = await openStore(clock);
  await store.create(volumeType, volume);
  const identities = new FakeIdentityProvider();
  const provider = new FakeVolumeProvider();
  const ctx = passContext(clock);
  const req = { cluster: '', namespace: NAMESPACE, name: volume.metadata.name };
  const pass = () => reconcileProvisioned(store, volumeProvisioner(store, lookupOf(provider)), req, ctx);
  const identityPass = () =>
    reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(identities)),
      { cluster: '', namespace: NAMESPACE, name: 'id-1' },
      ctx,
    );
  const get = () => store.get(volumeType, NAMESPACE, volume.metadata.name);
  const available = async () => findCondition((await get()).status?.conditions, 'Available');
  return { store, provider, pass, identityPass, get, available };
}

describe('Volume controller', () => {
  it('waits for its identity, then creates with size and class; yields while Cinder creates', async () => {
    const { store, provider, pass, identityPass, get, available } = await setup();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal((await available())?.reason, 'DependencyNotFound');
    assert.deepEqual(provider.calls, []);
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    provider.creates.next(Outcome.yield('C1/accepted'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal((await available())?.reason, 'Provisioning');
    assert.deepEqual(await pass(), {});
    assert.equal((await available())?.reason, 'Provisioned');
    assert.deepEqual((await get()).metadata.finalizers, [FINALIZER]);
    const owner = { organizationID: ORGANIZATION, projectID: PROJECT, regionID: REGION };
    assert.deepEqual(provider.inputs[0], {
      identity: { ...owner, id: 'id-1' },
      volume: { ...owner, id: 'vol-1', networkID: 'net-1', volumeClassID: 'type-1', sizeGiB: 10, tags: [] },
    });
  });

  it('an errored volume reads Errored with the provider fixed message, no requeue', async () => {
    const { store, provider, pass, identityPass, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    provider.creates.next(Outcome.terminal('Errored', 'provider volume entered an error state', new Error('raw')));
    assert.deepEqual(await pass(), {});
    const condition = await available();
    assert.equal(condition?.reason, 'Errored');
    assert.equal(condition.message, 'provider volume entered an error state');
  });

  it('deletes through the provider even when the identity is gone, yielding until the provider is done', async () => {
    const { store, provider, pass, identityPass, get } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await pass();
    const identity = await store.get(identityType, NAMESPACE, 'id-1');
    await store.update(identityType, { ...identity, metadata: { ...identity.metadata, finalizers: [] } });
    await store.delete(identityType, NAMESPACE, 'id-1');
    await store.delete(volumeType, NAMESPACE, 'vol-1');
    provider.deletes.next(Outcome.yield('D4/accepted'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create vol-1', 'delete vol-1', 'delete vol-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });

  it("a server's claim holds the deletion (Deprovisioning, no provider delete) until the server releases it", async () => {
    const { store, provider, pass, identityPass, get, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await pass();
    const claim = serverClaimFinalizer('s-1');
    const made = await get();
    await store.update(volumeType, {
      ...made,
      metadata: { ...made.metadata, finalizers: [...(made.metadata.finalizers ?? []), claim] },
      spec: { ...made.spec, claimRef: { kind: 'Server', id: 's-1' } },
    });
    await store.delete(volumeType, NAMESPACE, 'vol-1');
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(
      [(await available())?.reason, (await available())?.message],
      ['Deprovisioning', messages.referencesHeld],
    );
    assert.deepEqual(provider.calls, ['create vol-1'], 'no delete while a server holds it');
    const held = await get();
    await store.update(volumeType, {
      ...held,
      metadata: { ...held.metadata, finalizers: [FINALIZER] },
      spec: { volumeClassID: held.spec.volumeClassID, size: held.spec.size },
    });
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create vol-1', 'delete vol-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });
});

describe('volume input', () => {
  it('sizes are whole GiB, rounded up; tags and the network label carry over', () => {
    assert.equal(sizeGiBOf('10Gi'), 10);
    assert.equal(sizeGiBOf('1500Mi'), 2);
    assert.equal(sizeGiBOf('1G'), 1);
    assert.equal(sizeGiBOf('1Ti'), 1024);
    assert.equal(sizeGiBOf(2 ** 31), 2);
    assert.equal(sizeGiBOf('0'), undefined);
    const { networkID: _unset, ...spec } = volumeObject('v', { tags: [{ name: 'a.b/c', value: 'd' }] }).spec;
    const base = volumeObject('v');
    const volume: Volume = {
      ...base,
      metadata: { ...base.metadata, labels: { ...base.metadata.labels, [labels.networkID]: 'net-label' } },
      spec,
    };
    assert.deepEqual(volumeInputOf(volume), {
      organizationID: ORGANIZATION,
      projectID: PROJECT,
      regionID: REGION,
      id: 'v',
      networkID: 'net-label',
      volumeClassID: 'type-1',
      sizeGiB: 10,
      tags: [{ name: 'a.b/c', value: 'd' }],
    });
  });
});

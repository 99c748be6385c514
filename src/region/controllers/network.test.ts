/** The Network controller: the identity gate, the provider inputs, status.openstack and delete. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import { ManualClock } from '../../util/clock.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { identityType } from '../apis/identity.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { serverType } from '../apis/server.ts';
import { API_VERSION, labels } from '../apis/shared.ts';
import { volumeType, type Volume } from '../apis/volume.ts';
import { networkType, type Network } from '../apis/network.ts';
import { Outcome } from '../provider/index.ts';
import { messages } from './decide.ts';
import { identityProvisioner } from './identity.ts';
import { networkProvisioner } from './network.ts';
import { FINALIZER, reconcileProvisioned } from './provisioner.ts';
import {
  FakeIdentityProvider,
  FakeNetworkProvider,
  NAMESPACE,
  ORGANIZATION,
  PROJECT,
  REGION,
  identityObject,
  lookupOf,
  networkObject,
  regionStoresClosedAfter,
  ownerLabels,
  passContext,
  securityGroupObject,
  serverObject,
} from './testing/fakes.ts';

const openStore = regionStoresClosedAfter();

function volumeOn(name: string, extra: Record<string, string>, finalizers: string[]): Volume {
  return {
    apiVersion: API_VERSION,
    kind: volumeType.kind,
    metadata: {
      name,
      namespace: NAMESPACE,
      labels: ownerLabels({ [labels.identityID]: 'id-1', ...extra }),
      finalizers,
    },
    spec: { networkID: 'net-1', volumeClassID: 'vc', size: '1Gi' },
  };
}

async function setup(network: Network = networkObject('net-1', 'id-1')) {
  const clock = new ManualClock();
  const store = await openStore(clock);
  await store.create(networkType, network);
  const identities = new FakeIdentityProvider();
  const provider = new FakeNetworkProvider();
  const ctx = passContext(clock);
  const pass = () =>
    reconcileProvisioned(
      store,
      networkProvisioner(store, lookupOf(provider)),
      { cluster: '', namespace: NAMESPACE, name: network.metadata.name },
      ctx,
    );
  const identityPass = (name = 'id-1') =>
    reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(identities)),
      { cluster: '', namespace: NAMESPACE, name },
      ctx,
    );
  const get = () => store.get(networkType, NAMESPACE, network.metadata.name);
  const available = async () => findCondition((await get()).status?.conditions, 'Available');
  return { store, identities, provider, pass, identityPass, get, available };
}

describe('Network controller', () => {
  it('gates on its identity: not found, then not ready, then provisions once it is Available', async () => {
    const { store, identities, provider, pass, identityPass, get, available } = await setup();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal((await available())?.reason, 'DependencyNotFound');

    await store.create(identityType, identityObject('id-1'));
    identities.creates.next(Outcome.yield('project-pending'));
    await identityPass();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal((await available())?.reason, 'DependencyNotReady');
    assert.equal((await get()).metadata.finalizers, undefined, 'no finalizer before the gate opens');
    assert.deepEqual(provider.calls, []);

    await identityPass();
    assert.deepEqual(await pass(), {});
    const network = await get();
    assert.equal(findCondition(network.status?.conditions, 'Available')?.reason, 'Provisioned');
    assert.deepEqual(network.metadata.finalizers, [FINALIZER]);
    assert.deepEqual(network.status?.openstack, { networkID: 'net-net-1', subnetID: 'sub-net-1' });
    const owner = { organizationID: ORGANIZATION, projectID: PROJECT, regionID: REGION };
    assert.deepEqual(provider.inputs, [
      {
        identity: { ...owner, id: 'id-1' },
        network: {
          ...owner,
          id: 'net-1',
          prefix: '192.168.0.0/24',
          reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
          dnsNameservers: [],
          routes: [],
        },
      },
    ]);
  });

  it('an Errored identity: DependencyFailed, no requeue', async () => {
    const { store, identities, pass, identityPass, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    identities.creates.next(Outcome.terminal('Errored', 'the cloud provider rejected the requested configuration'));
    await identityPass();
    assert.deepEqual(await pass(), {});
    assert.equal((await available())?.message, messages.identityFailed);
  });

  it('status.openstack follows the realisation, and is not rewritten when unchanged', async () => {
    const { store, provider, pass, identityPass, get } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    provider.creates.next(Outcome.yield('router-pending'));
    await pass();
    assert.equal((await get()).status?.openstack, undefined, 'a yield records no ids');
    const realised = {
      networkID: 'n1',
      subnetID: 's1',
      vlanID: 101,
      storageRange: { startIP: '192.168.0.16', endIP: '192.168.0.127' },
    };
    provider.creates.next(Outcome.done(realised), Outcome.done(realised));
    await pass();
    const written = await get();
    assert.deepEqual(written.status?.openstack, realised);
    await pass();
    assert.equal((await get()).metadata.resourceVersion, written.metadata.resourceVersion);
  });

  it('deletes through the provider even when its identity is gone, then releases', async () => {
    const { store, identities, provider, pass, identityPass, get } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await pass();
    // The identity vanishes out of band (its own finalizer dropped); the network's delete still asks the provider.
    const identity = await store.get(identityType, NAMESPACE, 'id-1');
    await store.update(identityType, { ...identity, metadata: { ...identity.metadata, finalizers: [] } });
    await store.delete(identityType, NAMESPACE, 'id-1');
    await store.delete(networkType, NAMESPACE, 'net-1');
    provider.deletes.next(Outcome.yield('router-deleting'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal(findCondition((await get()).status?.conditions, 'Available')?.reason, 'Deprovisioning');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create net-1', 'delete net-1', 'delete net-1']);
    assert.equal(provider.inputs.at(-1)?.identity.id, 'id-1');
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
    assert.deepEqual(identities.calls, ['create id-1']);
  });

  it('a held reference blocks the delete (Deprovisioning, blocked; no provider call) until it is released', async () => {
    const { store, provider, pass, identityPass, get, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await pass();
    const reference = 'clusters.kubernetes.unikorn-cloud.org/c1';
    const provisioned = await get();
    await store.update(networkType, {
      ...provisioned,
      metadata: { ...provisioned.metadata, finalizers: [...(provisioned.metadata.finalizers ?? []), reference] },
    });
    await store.delete(networkType, NAMESPACE, 'net-1');
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(
      { reason: (await available())?.reason, message: (await available())?.message },
      { reason: 'Deprovisioning', message: messages.referencesHeld },
      'blocked reads deprovisioning, never Errored',
    );
    assert.deepEqual(provider.calls, ['create net-1'], 'the cloud network is left alone while referenced');
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 }, 'still held: still blocked');

    const held = await get();
    await store.update(networkType, {
      ...held,
      metadata: { ...held.metadata, finalizers: (held.metadata.finalizers ?? []).filter((f) => f !== reference) },
    });
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create net-1', 'delete net-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });

  it('deletes what is on it first, in order, and asks the provider only once it is all gone', async () => {
    const { store, provider, pass, identityPass, get, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await pass();
    const network = await get();
    const hold = ['test.example/hold'];
    const on = { [labels.networkID]: 'net-1' };
    // A server that names the network by label and in its spec, a security group the API made (owner reference
    // only), a volume; a server of the same identity on another network stays.
    await store.create(serverType, {
      ...serverObject(undefined, {}, on),
      metadata: { ...serverObject().metadata, finalizers: hold },
    });
    const owned = securityGroupObject('sg-1', 'id-1');
    const ownerReferences = [
      {
        apiVersion: API_VERSION,
        kind: 'Network',
        name: 'net-1',
        uid: network.metadata.uid ?? '',
        blockOwnerDeletion: true,
      },
    ];
    await store.create(securityGroupType, {
      ...owned,
      metadata: { ...owned.metadata, ownerReferences, finalizers: hold },
    });
    await store.create(volumeType, volumeOn('vol-1', on, hold));
    const elsewhere = serverObject(undefined, { networks: [{ id: 'net-2' }] }, { [labels.networkID]: 'net-2' });
    await store.create(serverType, { ...elsewhere, metadata: { ...elsewhere.metadata, name: 's-2' } });
    await store.delete(networkType, NAMESPACE, 'net-1');

    const deleting = async (type: ResourceType, name: string) =>
      (await store.get(type, NAMESPACE, name)).metadata.deletionTimestamp !== undefined;
    const release = async (type: ResourceType, name: string) => {
      const current = await store.get(type, NAMESPACE, name);
      await store.update(type, { ...current, metadata: { ...current.metadata, finalizers: [] } });
    };

    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.ok(await deleting(serverType, 's-1'), 'the server goes first');
    assert.equal(await deleting(securityGroupType, 'sg-1'), false, 'the security group waits for the server');
    assert.equal(await deleting(volumeType, 'vol-1'), false, 'the volume waits for the server');
    assert.equal((await available())?.message, 'waiting for the resources that use this network to be deleted');
    await release(serverType, 's-1');

    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.ok(await deleting(securityGroupType, 'sg-1'));
    assert.ok(await deleting(volumeType, 'vol-1'));
    assert.deepEqual(provider.calls, ['create net-1'], 'Neutron is not asked while anything is on the network');
    await release(securityGroupType, 'sg-1');
    await release(volumeType, 'vol-1');

    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create net-1', 'delete net-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
    assert.equal(await deleting(serverType, 's-2'), false, 'a server on another network stays');
  });

  it('a network without its identity label: Errored, no provider call', async () => {
    const { provider, pass, available } = await setup(networkObject('net-1', 'id-1', undefined, ownerLabels()));
    assert.deepEqual(await pass(), {});
    assert.equal((await available())?.message, messages.missingLabels);
    assert.deepEqual(provider.calls, []);
  });
});

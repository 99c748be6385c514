/** The Identity controller's own rule: its deletion deletes every resource labelled with it, in order, and waits. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import type { EmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { ManualClock } from '../../util/clock.ts';
import { identityType } from '../apis/identity.ts';
import { networkType } from '../apis/network.ts';
import { validSamples } from '../apis/testing/samples.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { serverType } from '../apis/server.ts';
import { labels } from '../apis/shared.ts';
import { volumeType } from '../apis/volume.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { identityProvisioner } from './identity.ts';
import {
  FakeIdentityProvider,
  NAMESPACE,
  identityObject,
  lookupOf,
  networkObject,
  regionStoresClosedAfter,
  ownerLabels,
  passContext,
  securityGroupObject,
} from './testing/fakes.ts';
import { reconcileProvisioned } from './provisioner.ts';

const openStore = regionStoresClosedAfter();
const open = (clock: ManualClock, without: readonly ResourceType[] = []) => openStore(clock, { without });

/** A store holding the kinds but `without`, and a pass of the identity controller over `id-1` with a fake provider. */
async function identityPasses(without: readonly ResourceType[] = []) {
  const clock = new ManualClock();
  const store = await open(clock, without);
  const provider = new FakeIdentityProvider();
  const pass = () =>
    reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(provider)),
      { cluster: '', namespace: NAMESPACE, name: 'id-1' },
      passContext(clock),
    );
  return { clock, store, provider, pass };
}

function serverUsing(identityID: string): KubeObject {
  const sample = validSamples['Server'];
  assert.ok(sample !== undefined);
  return {
    ...sample,
    metadata: { name: 'srv-1', namespace: NAMESPACE, labels: ownerLabels({ [labels.identityID]: identityID }) },
  };
}

const HOLD = 'test.example/hold';

/** A dependent that keeps its own teardown going (a finalizer) until the test releases it. */
async function held<T extends KubeObject>(store: EmbeddedStore, type: ResourceType<T>, object: T): Promise<T> {
  return store.create(type, { ...object, metadata: { ...object.metadata, finalizers: [HOLD] } });
}

async function release(store: EmbeddedStore, type: ResourceType, name: string): Promise<void> {
  const current = await store.get(type, NAMESPACE, name);
  await store.update(type, { ...current, metadata: { ...current.metadata, finalizers: [] } });
}

describe('Identity deletion and its dependents', () => {
  it('deletes servers, then security groups, then networks, each gone before the next; then the identity', async () => {
    const { store, provider, pass } = await identityPasses();
    const deleting = async (type: ResourceType, name: string) =>
      (await store.get(type, NAMESPACE, name)).metadata.deletionTimestamp !== undefined;
    const condition = async () =>
      findCondition((await store.get(identityType, NAMESPACE, 'id-1')).status?.conditions, 'Available');

    await store.create(identityType, identityObject('id-1'));
    await pass();
    await held(store, networkType, networkObject('net-1', 'id-1'));
    await held(store, securityGroupType, securityGroupObject('sg-1', 'id-1'));
    await held<KubeObject>(store, serverType, serverUsing('id-1'));
    await store.create(networkType, networkObject('net-other', 'id-2'));
    await store.delete(identityType, NAMESPACE, 'id-1');

    const order: [ResourceType, string][] = [
      [serverType, 'srv-1'],
      [securityGroupType, 'sg-1'],
      [networkType, 'net-1'],
    ];
    for (const [i, [type, name]] of order.entries()) {
      assert.deepEqual(await pass(), { requeueAfterMs: 10_000 }, `held while ${name} remains`);
      assert.ok(await deleting(type, name), `${name} is marked for deletion`);
      for (const [laterType, later] of order.slice(i + 1)) {
        assert.equal(await deleting(laterType, later), false, `${later} waits for ${name}`);
      }
      assert.equal((await condition())?.reason, 'Deprovisioning');
      assert.equal((await condition())?.message, 'waiting for the resources that use this identity to be deleted');
      assert.deepEqual(provider.calls, ['create id-1'], 'the provider is not asked to delete yet');
      await release(store, type, name);
    }

    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create id-1', 'delete id-1']);
    await assert.rejects(store.get(identityType, NAMESPACE, 'id-1'), { name: 'KubeNotFoundError' });
    assert.equal(await deleting(networkType, 'net-other'), false, "another identity's network is untouched");
  });

  it('says so when a dependent cannot be deleted, instead of waiting silently', async () => {
    const { store, provider, pass } = await identityPasses([volumeType]);
    await store.create(identityType, identityObject('id-1'));
    await pass();
    await held(store, securityGroupType, securityGroupObject('sg-1', 'id-1'));
    await store.delete(identityType, NAMESPACE, 'id-1');
    await pass();
    const sg = await store.get(securityGroupType, NAMESPACE, 'sg-1');
    const errored = {
      type: 'Available',
      status: 'False',
      reason: 'Errored',
      message: 'x',
      lastTransitionTime: new Date(0).toISOString(),
    } as const;
    await store.update(securityGroupType, { ...sg, status: { conditions: [errored] } }, { subresource: 'status' });

    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    const identity = await store.get(identityType, NAMESPACE, 'id-1');
    assert.equal(
      findCondition(identity.status?.conditions, 'Available')?.message,
      'deletion is blocked: a resource that uses this identity cannot be deleted; its own status says why',
    );
    assert.deepEqual(provider.calls, ['create id-1'], 'the provider is not asked to delete yet');
  });
});

/** The Identity controller's own rule: its deletion waits for every resource labelled with it. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
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
import { messages } from './decide.ts';
import { IDENTITY_DEPENDENTS, countDependents, identityProvisioner } from './identity.ts';
import {
  FakeIdentityProvider,
  NAMESPACE,
  identityObject,
  lookupOf,
  networkObject,
  openRegionStore,
  ownerLabels,
  passContext,
  securityGroupObject,
} from './testing/fakes.ts';
import { reconcileProvisioned } from './provisioner.ts';

const stores: EmbeddedStore[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

async function open(clock: ManualClock, without: Parameters<typeof openRegionStore>[1] = []) {
  const store = await openRegionStore(clock, without);
  stores.push(store);
  return store;
}

function serverUsing(identityID: string): KubeObject {
  const sample = validSamples['Server'];
  assert.ok(sample !== undefined);
  return {
    ...sample,
    metadata: { name: 'srv-1', namespace: NAMESPACE, labels: ownerLabels({ [labels.identityID]: identityID }) },
  };
}

describe('Identity deletion and its dependents', () => {
  it('waits while a network, security group or server names it; then deletes the identity', async () => {
    const clock = new ManualClock();
    const store = await open(clock);
    const provider = new FakeIdentityProvider();
    const pass = () =>
      reconcileProvisioned(
        store,
        identityProvisioner(store, lookupOf(provider)),
        { cluster: '', namespace: NAMESPACE, name: 'id-1' },
        passContext(clock),
      );
    await store.create(identityType, identityObject('id-1'));
    await pass();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await store.create(securityGroupType, securityGroupObject('sg-1', 'id-1'));
    await store.create<KubeObject>(serverType, serverUsing('id-1'));
    await store.create(networkType, networkObject('net-other', 'id-2'));
    await store.delete(identityType, NAMESPACE, 'id-1');

    for (const [type, name] of [
      [networkType, 'net-1'],
      [securityGroupType, 'sg-1'],
      [serverType, 'srv-1'],
    ] as const) {
      assert.deepEqual(await pass(), { requeueAfterMs: 10_000 }, `held while ${name} remains`);
      const identity = await store.get(identityType, NAMESPACE, 'id-1');
      const condition = findCondition(identity.status?.conditions, 'Available');
      assert.equal(condition?.reason, 'Deprovisioning');
      assert.equal(condition.message, messages.dependentsRemain);
      assert.deepEqual(provider.calls, ['create id-1'], 'the provider is not asked to delete yet');
      await store.delete(type, NAMESPACE, name);
    }

    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create id-1', 'delete id-1']);
    await assert.rejects(store.get(identityType, NAMESPACE, 'id-1'), { name: 'KubeNotFoundError' });
  });

  it('counts every dependent kind, and a kind the server does not serve as none', async () => {
    const clock = new ManualClock();
    const store = await open(clock, [volumeType]);
    const identity = await store.create(identityType, identityObject('id-1'));
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await store.create(securityGroupType, securityGroupObject('sg-1', 'id-1'));
    assert.equal(await countDependents(store, identity, IDENTITY_DEPENDENTS), 2);
    assert.ok(IDENTITY_DEPENDENTS.includes(volumeType));
  });
});

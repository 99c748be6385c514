/** The SecurityGroup controller: the identity gate, the rules it hands the provider, and delete. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import type { EmbeddedStore } from '../../kube/embedded/store.ts';
import { ManualClock } from '../../util/clock.ts';
import { identityType } from '../apis/identity.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { serverType } from '../apis/server.ts';
import { Outcome } from '../provider/index.ts';
import { identityProvisioner } from './identity.ts';
import { securityGroupProvisioner } from './security-group.ts';
import {
  FakeIdentityProvider,
  FakeSecurityGroupProvider,
  NAMESPACE,
  identityObject,
  lookupOf,
  openRegionStore,
  passContext,
  securityGroupObject,
  serverObject,
} from './testing/fakes.ts';
import { reconcileProvisioned } from './provisioner.ts';

const stores: EmbeddedStore[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe('SecurityGroup controller', () => {
  it('waits for its identity, provisions its rules, and deletes through the provider', async () => {
    const clock = new ManualClock();
    const store = await openRegionStore(clock);
    stores.push(store);
    const identities = new FakeIdentityProvider();
    const provider = new FakeSecurityGroupProvider();
    const ctx = passContext(clock);
    const req = (name: string) => ({ cluster: '', namespace: NAMESPACE, name });
    const pass = () =>
      reconcileProvisioned(store, securityGroupProvisioner(store, lookupOf(provider)), req('sg-1'), ctx);
    const get = () => store.get(securityGroupType, NAMESPACE, 'sg-1');
    await store.create(
      securityGroupType,
      securityGroupObject('sg-1', 'id-1', [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 } }]),
    );
    await store.create(identityType, identityObject('id-1'));

    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal(findCondition((await get()).status?.conditions, 'Available')?.reason, 'DependencyNotReady');
    assert.deepEqual(provider.calls, []);

    await reconcileProvisioned(store, identityProvisioner(store, lookupOf(identities)), req('id-1'), ctx);
    provider.creates.next(Outcome.yield('rules-pending'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(await pass(), {});
    assert.equal(findCondition((await get()).status?.conditions, 'Available')?.reason, 'Provisioned');
    assert.deepEqual(provider.inputs[0]?.securityGroup.rules, [
      { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' },
    ]);
    assert.equal(provider.inputs.at(0)?.identity.id, 'id-1');

    await store.delete(securityGroupType, NAMESPACE, 'sg-1');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create sg-1', 'create sg-1', 'delete sg-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });

  it('holds its deletion while a server names it, with no provider call, and deletes once none does', async () => {
    const clock = new ManualClock();
    const store = await openRegionStore(clock);
    stores.push(store);
    const provider = new FakeSecurityGroupProvider();
    const ctx = passContext(clock);
    const req = (name: string) => ({ cluster: '', namespace: NAMESPACE, name });
    const pass = () =>
      reconcileProvisioned(store, securityGroupProvisioner(store, lookupOf(provider)), req('sg-1'), ctx);
    await store.create(identityType, identityObject('id-1'));
    await reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(new FakeIdentityProvider())),
      req('id-1'),
      ctx,
    );
    await store.create(securityGroupType, securityGroupObject('sg-1', 'id-1', []));
    assert.deepEqual(await pass(), {});
    await store.create(serverType, serverObject(undefined, { securityGroups: [{ id: 'sg-1' }] }));

    await store.delete(securityGroupType, NAMESPACE, 'sg-1');
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    const held = findCondition((await store.get(securityGroupType, NAMESPACE, 'sg-1')).status?.conditions, 'Available');
    assert.equal(held?.reason, 'Deprovisioning');
    assert.match(held.message, /servers that use this security group/);
    assert.deepEqual(provider.calls, ['create sg-1'], 'Neutron is not asked while a port uses the group');

    await store.delete(serverType, NAMESPACE, 's-1');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create sg-1', 'delete sg-1']);
    await assert.rejects(store.get(securityGroupType, NAMESPACE, 'sg-1'), { name: 'KubeNotFoundError' });
  });
});

/**
 * The three controllers in a Manager over the embedded store, with a manual clock that never advances: every pass
 * after the first is woken by a watch, not by a requeue timer, so these tests prove the watches.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import type { Condition } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { Manager } from '../../runtime/manager.ts';
import { ManualScheduler, settle } from '../../runtime/scheduler.ts';
import { ManualClock } from '../../util/clock.ts';
import { identityType } from '../apis/identity.ts';
import { networkType } from '../apis/network.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { registerRegionControllers } from './index.ts';
import {
  FakeIdentityProvider,
  FakeLoadBalancerProvider,
  FakeServerLifecycle,
  FakeVolumeProvider,
  FakeNetworkProvider,
  FakeSecurityGroupProvider,
  NAMESPACE,
  fakeRegionProvider,
  identityObject,
  lookupOf,
  networkObject,
  regionStoresClosedAfter,
  securityGroupObject,
} from './testing/fakes.ts';

const openStore = regionStoresClosedAfter();

/** Lets the manager's work run until `probe` holds; a bounded number of turns, never a timed wait. */
async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await probe()) return;
    await settle(1);
  }
  throw new Error(`${what} did not happen`);
}

async function setup() {
  const clock = new ManualClock();
  const scheduler = new ManualScheduler(clock);
  const store = await openStore(clock);
  const manager = new Manager({ client: store, clock, scheduler, random: () => 0, resyncMs: 3_600_000 });
  const identities = new FakeIdentityProvider();
  const networks = new FakeNetworkProvider();
  const securityGroups = new FakeSecurityGroupProvider();
  const provider = fakeRegionProvider(
    identities,
    networks,
    securityGroups,
    new FakeLoadBalancerProvider(),
    new FakeVolumeProvider(),
    new FakeServerLifecycle(),
  );
  const controllers = registerRegionControllers(manager, lookupOf(provider));
  const reason = async (type: ResourceType, name: string) => {
    try {
      const object = await store.get(type, NAMESPACE, name);
      const status = object['status'] as { conditions?: Condition[] } | undefined;
      return findCondition(status?.conditions, 'Available')?.reason;
    } catch {
      return 'gone';
    }
  };
  return { store, manager, controllers, identities, networks, securityGroups, reason };
}

describe('registerRegionControllers', () => {
  it('registers one controller per kind', async () => {
    const { controllers } = await setup();
    assert.deepEqual(
      [
        controllers.identity,
        controllers.network,
        controllers.securityGroup,
        controllers.loadBalancer,
        controllers.volume,
        controllers.server,
      ].map((c) => c?.name),
      [
        'region-identity',
        'region-network',
        'region-security-group',
        'region-load-balancer',
        'region-volume',
        'region-server',
      ],
    );
  });

  it('registers only the groups asked for', async () => {
    const clock = new ManualClock();
    const store = await openStore(clock);
    const manager = new Manager({ client: store, clock, scheduler: new ManualScheduler(clock), random: () => 0 });
    const provider = fakeRegionProvider(new FakeVolumeProvider(), new FakeServerLifecycle());
    const only = registerRegionControllers(manager, lookupOf(provider), { groups: ['volumes', 'servers'] });
    assert.deepEqual(Object.keys(only).sort(), ['server', 'volume']);
  });

  it('workloads wait for their identity and are woken when it becomes Available; its deletion deletes them first', async () => {
    const { store, manager, identities, networks, securityGroups, reason } = await setup();
    await manager.start();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await store.create(securityGroupType, securityGroupObject('sg-1', 'id-1'));
    await until(async () => (await reason(networkType, 'net-1')) === 'DependencyNotFound', 'network gated');
    await until(async () => (await reason(securityGroupType, 'sg-1')) === 'DependencyNotFound', 'group gated');

    await store.create(identityType, identityObject('id-1'));
    await until(async () => (await reason(networkType, 'net-1')) === 'Provisioned', 'network woken by its identity');
    await until(async () => (await reason(securityGroupType, 'sg-1')) === 'Provisioned', 'group woken by its identity');
    await settle();
    assert.deepEqual(identities.calls, ['create id-1'], 'its own status writes do not wake the identity again');
    assert.deepEqual(networks.calls, ['create net-1']);
    assert.deepEqual(securityGroups.calls, ['create sg-1']);

    await store.delete(identityType, NAMESPACE, 'id-1');
    await until(async () => (await reason(identityType, 'id-1')) === 'gone', 'identity released after its dependents');
    assert.equal(await reason(networkType, 'net-1'), 'gone', 'the identity deleted its network');
    assert.equal(await reason(securityGroupType, 'sg-1'), 'gone', 'and its security group');
    assert.deepEqual(identities.calls, ['create id-1', 'delete id-1']);
    assert.deepEqual(networks.calls, ['create net-1', 'delete net-1']);
    assert.deepEqual(securityGroups.calls, ['create sg-1', 'delete sg-1']);

    const metrics = await manager.metrics.registry.metrics();
    const count = (labels: string) =>
      metrics.split('\n').find((l) => l.startsWith(`openregion_region_reconcile_rows_total{${labels}}`));
    assert.equal(
      count('controller="region-network",phase="provision",row="gate:DependencyNotFound"'),
      `openregion_region_reconcile_rows_total{controller="region-network",phase="provision",row="gate:DependencyNotFound"} 1`,
    );
    assert.ok(count('controller="region-identity",phase="deprovision",row="dependents-remain"') !== undefined);
    assert.ok(count('controller="region-identity",phase="deprovision",row="done"') !== undefined);
    await manager.stop();
  });
});

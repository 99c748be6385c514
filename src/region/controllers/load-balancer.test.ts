/**
 * The LoadBalancer controller: the identity and network gates, the provider inputs (with the code-applied
 * defaults), status.vipAddress/publicIP, delete, and registration in a Manager whose watches wake a load balancer
 * when its identity and then its network become Available.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import { Manager } from '../../runtime/manager.ts';
import { ManualScheduler, settle } from '../../runtime/scheduler.ts';
import { ManualClock } from '../../util/clock.ts';
import { identityType } from '../apis/identity.ts';
import { loadBalancerType, type LoadBalancer, type LoadBalancerSpec } from '../apis/load-balancer.ts';
import { networkType } from '../apis/network.ts';
import { API_VERSION, labels } from '../apis/shared.ts';
import { Outcome } from '../provider/index.ts';
import { messages } from './decide.ts';
import { identityProvisioner } from './identity.ts';
import {
  DEFAULT_HEALTH_CHECK,
  LOAD_BALANCER_CONTROLLER,
  loadBalancerMessages,
  loadBalancerProvisioner,
  registerLoadBalancerController,
} from './load-balancer.ts';
import { networkProvisioner } from './network.ts';
import { FINALIZER, reconcileProvisioned } from './provisioner.ts';
import {
  FakeIdentityProvider,
  FakeLoadBalancerProvider,
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
} from './testing/fakes.ts';

const SPEC: LoadBalancerSpec = {
  publicIP: true,
  listeners: [
    {
      name: 'web',
      protocol: 'tcp',
      port: 443,
      pool: { members: [{ address: '192.168.0.5', port: 8443 }], healthCheck: { healthyThreshold: 5 } },
    },
    { name: 'dns', protocol: 'udp', port: 53, allowedCIDRs: ['10.0.0.0/8'], pool: { members: [] } },
  ],
};

function lbObject(
  name: string,
  objectLabels = ownerLabels({ [labels.identityID]: 'id-1', [labels.networkID]: 'net-1' }),
): LoadBalancer {
  return {
    apiVersion: API_VERSION,
    kind: loadBalancerType.kind,
    metadata: { name, namespace: NAMESPACE, labels: objectLabels },
    spec: SPEC,
  };
}

const openStore = regionStoresClosedAfter();

async function setup(lb: LoadBalancer = lbObject('lb-1')) {
  const clock = new ManualClock();
  const store = await openStore(clock);
  await store.create(loadBalancerType, lb);
  const identities = new FakeIdentityProvider();
  const networks = new FakeNetworkProvider();
  const provider = new FakeLoadBalancerProvider();
  const ctx = passContext(clock);
  const req = (name: string) => ({ cluster: '', namespace: NAMESPACE, name });
  const pass = () =>
    reconcileProvisioned(store, loadBalancerProvisioner(store, lookupOf(provider)), req(lb.metadata.name), ctx);
  const identityPass = () =>
    reconcileProvisioned(store, identityProvisioner(store, lookupOf(identities)), req('id-1'), ctx);
  const networkPass = () =>
    reconcileProvisioned(store, networkProvisioner(store, lookupOf(networks)), req('net-1'), ctx);
  const get = () => store.get(loadBalancerType, NAMESPACE, lb.metadata.name);
  const available = async () => findCondition((await get()).status?.conditions, 'Available');
  return { store, identities, networks, provider, pass, identityPass, networkPass, get, available };
}

describe('LoadBalancer controller', () => {
  it('gates on its identity, then on its network, then provisions and records the VIP and floating IP', async () => {
    const { store, networks, provider, pass, identityPass, networkPass, get, available } = await setup();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal((await available())?.message, messages.identityNotFound);

    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(
      [(await available())?.reason, (await available())?.message],
      ['DependencyNotFound', loadBalancerMessages.networkNotFound],
    );

    await store.create(networkType, networkObject('net-1', 'id-1'));
    networks.creates.next(Outcome.yield('router-pending'));
    await networkPass();
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(
      [(await available())?.reason, (await available())?.message],
      ['DependencyNotReady', loadBalancerMessages.networkNotReady],
    );
    assert.equal((await get()).metadata.finalizers, undefined, 'no finalizer before the gates open');
    assert.deepEqual(provider.calls, []);

    await networkPass();
    provider.creates.next(Outcome.done({ vipAddress: '192.168.0.200', publicIP: '203.0.113.7' }));
    assert.deepEqual(await pass(), {});
    const lb = await get();
    assert.equal(findCondition(lb.status?.conditions, 'Available')?.reason, 'Provisioned');
    assert.deepEqual(lb.metadata.finalizers, [FINALIZER]);
    assert.deepEqual([lb.status?.vipAddress, lb.status?.publicIP], ['192.168.0.200', '203.0.113.7']);
    const owner = { organizationID: ORGANIZATION, projectID: PROJECT, regionID: REGION };
    assert.deepEqual(provider.inputs, [
      {
        identity: { ...owner, id: 'id-1' },
        loadBalancer: {
          ...owner,
          id: 'lb-1',
          networkID: 'net-1',
          publicIP: true,
          listeners: [
            {
              name: 'web',
              protocol: 'tcp',
              port: 443,
              allowedCIDRs: [],
              idleTimeoutSeconds: 60,
              pool: {
                proxyProtocolV2: false,
                members: [{ address: '192.168.0.5', port: 8443 }],
                healthCheck: { ...DEFAULT_HEALTH_CHECK, healthyThreshold: 5 },
              },
            },
            {
              name: 'dns',
              protocol: 'udp',
              port: 53,
              allowedCIDRs: ['10.0.0.0/8'],
              pool: { proxyProtocolV2: false, members: [] },
            },
          ],
        },
      },
    ]);
  });

  it('a failed network: DependencyFailed with no requeue (its watch wakes the load balancer)', async () => {
    const { store, networks, pass, identityPass, networkPass, available } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    networks.creates.next(Outcome.terminal('Errored', 'the cloud provider rejected the requested configuration'));
    await networkPass();
    assert.deepEqual(await pass(), {});
    assert.deepEqual(
      [(await available())?.reason, (await available())?.message],
      ['DependencyFailed', loadBalancerMessages.networkFailed],
    );
  });

  it('a yield reads Provisioning and requeues; a floating IP that goes away leaves status.publicIP', async () => {
    const { store, provider, pass, identityPass, networkPass, get } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await networkPass();
    provider.creates.next(Outcome.yield('create-pool'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal(findCondition((await get()).status?.conditions, 'Available')?.reason, 'Provisioning');
    assert.equal((await get()).status?.vipAddress, undefined);
    provider.creates.next(Outcome.done({ vipAddress: '192.168.0.200', publicIP: '203.0.113.7' }));
    await pass();
    assert.equal((await get()).status?.publicIP, '203.0.113.7');
    provider.creates.next(Outcome.done({ vipAddress: '192.168.0.200' }));
    await pass();
    const status = (await get()).status ?? assert.fail('a status');
    assert.equal(status.vipAddress, '192.168.0.200');
    assert.ok(!('publicIP' in status), 'the floating IP is gone from status');
  });

  it('deletes through the provider, yielding until it reports done, then releases', async () => {
    const { store, provider, pass, identityPass, networkPass, get } = await setup();
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await networkPass();
    await pass();
    await store.delete(loadBalancerType, NAMESPACE, 'lb-1');
    provider.deletes.next(Outcome.yield('cascade delete accepted'));
    assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
    assert.equal(findCondition((await get()).status?.conditions, 'Available')?.reason, 'Deprovisioning');
    assert.deepEqual(await pass(), {});
    assert.deepEqual(provider.calls, ['create lb-1', 'delete lb-1', 'delete lb-1']);
    await assert.rejects(get(), { name: 'KubeNotFoundError' });
  });

  it("a requested VIP on the network's gateway: Errored naming the rule, no provider call, no requeue", async () => {
    const lb = lbObject('lb-1');
    const { store, provider, pass, identityPass, networkPass, available } = await setup({
      ...lb,
      spec: { ...lb.spec, requestedVIPAddress: '192.168.0.1' },
    });
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await networkPass();
    assert.deepEqual(await pass(), {});
    assert.equal((await available())?.reason, 'Errored');
    assert.match((await available())?.message ?? '', /not its network, gateway or broadcast address/);
    assert.deepEqual(provider.calls, []);
  });

  it('a load balancer without its network label: Errored, no provider call', async () => {
    const { store, provider, pass, identityPass, available } = await setup(
      lbObject('lb-1', ownerLabels({ [labels.identityID]: 'id-1' })),
    );
    await store.create(identityType, identityObject('id-1'));
    await identityPass();
    assert.deepEqual(await pass(), {});
    assert.equal((await available())?.message, messages.missingLabels);
    assert.deepEqual(provider.calls, []);
  });
});

describe('registerLoadBalancerController', () => {
  it('is woken by its identity and then by its network becoming Available, with no timer', async () => {
    const clock = new ManualClock();
    const scheduler = new ManualScheduler(clock);
    const store = await openStore(clock);
    const manager = new Manager({ client: store, clock, scheduler, random: () => 0, resyncMs: 3_600_000 });
    const provider = new FakeLoadBalancerProvider();
    const controller = registerLoadBalancerController(manager, lookupOf(provider));
    assert.equal(controller.name, LOAD_BALANCER_CONTROLLER);
    const identities = new FakeIdentityProvider();
    const networks = new FakeNetworkProvider();
    const ctx = passContext(clock);
    const reason = async () =>
      findCondition((await store.get(loadBalancerType, NAMESPACE, 'lb-1')).status?.conditions, 'Available')?.reason;
    const until = async (probe: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 300; i++) {
        if (await probe()) return;
        await settle(1);
      }
      throw new Error(`${what} did not happen: ${String(await reason())} ${provider.calls.join()}`);
    };
    await manager.start();
    await store.create(loadBalancerType, lbObject('lb-1'));
    await until(async () => (await reason()) === 'DependencyNotFound', 'gated on the identity');
    await store.create(identityType, identityObject('id-1'));
    await reconcileProvisioned(
      store,
      identityProvisioner(store, lookupOf(identities)),
      { cluster: '', namespace: NAMESPACE, name: 'id-1' },
      ctx,
    );
    await until(async () => (await reason()) === 'DependencyNotFound' && provider.calls.length === 0, 'still gated');
    await store.create(networkType, networkObject('net-1', 'id-1'));
    await reconcileProvisioned(
      store,
      networkProvisioner(store, lookupOf(networks)),
      { cluster: '', namespace: NAMESPACE, name: 'net-1' },
      ctx,
    );
    const network = await store.get(networkType, NAMESPACE, 'net-1');
    assert.equal(findCondition(network.status?.conditions, 'Available')?.status, 'True');
    await until(async () => (await reason()) === 'Provisioned', 'woken by its network');
    assert.deepEqual(provider.calls, ['create lb-1']);
    await manager.stop();
  });
});

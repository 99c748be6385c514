import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedStore } from '../../../kube/embedded/store.ts';
import * as neutron from '../../../openstack/network.ts';
import { ManualClock } from '../../../util/clock.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { openRegionStore } from '../../apis/testing/store.ts';
import { vlanAllocationType } from '../../apis/vlan-allocation.ts';
import { ProviderError, ResourceConsistencyError, TransientError } from '../../provider/errors.ts';
import type { NetworkInput } from '../../provider/inputs.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { VlanAllocator } from '../../vlan/allocator.ts';
import { NAMESPACE } from '../../vlan/testing/store.ts';
import { networkName } from '../names.ts';
import { createNetwork, deleteNetwork, listExternalNetworks, type NetworkDeps } from './lifecycle.ts';
import type { RealisedIdentity } from '../realised.ts';
import { clientsFixture, type ClientsFixture } from '../testing/clients.ts';

const PLAIN: RegionOpenstack = { endpoint: 'unused', serviceAccountSecret: { namespace: 'x', name: 'y' } };
const PROVIDER: RegionOpenstack = {
  ...PLAIN,
  network: { providerNetworks: { physicalNetwork: 'physnet1', vlan: { segments: [{ startId: 150, endId: 160 }] } } },
};

let tb: ClientsFixture;
let store: EmbeddedStore;
let identity: RealisedIdentity;
let externalID: string;
let serial = 0;

before(async () => {
  tb = await clientsFixture();
  store = await openRegionStore(new ManualClock(), { only: [vlanAllocationType] });
  identity = await tb.project('net-tests');
  externalID = (await tb.externalNetwork('public', '203.0.113.0/24')).id;
});
after(async () => {
  await store.close();
  await tb.close();
});

const vlans = () =>
  new VlanAllocator({
    client: store,
    namespace: NAMESPACE,
    regionName: 'r1',
    providerNetworks: { physicalNetwork: 'physnet1', vlan: { segments: [{ startId: 150, endId: 160 }] } },
  });

function deps(config: RegionOpenstack = PLAIN): NetworkDeps {
  const signal = new AbortController().signal;
  return config === PROVIDER
    ? { clients: tb.clients, config, vlans: vlans(), signal }
    : { clients: tb.clients, config, signal };
}

function input(overrides: Partial<NetworkInput> = {}): NetworkInput {
  return {
    id: `n${++serial}`,
    organizationID: 'org',
    projectID: 'proj',
    regionID: 'r1',
    prefix: '192.168.10.0/24',
    reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
    dnsNameservers: ['8.8.8.8'],
    routes: [{ prefix: '10.0.0.0/8', nextHop: '192.168.10.254' }],
    ...overrides,
  };
}

function done<T>(outcome: Outcome<T>): T {
  assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
  return (outcome as { value: T }).value;
}

/** Everything Neutron holds for the network, listed as admin across every project. */
async function inNeutron(network: NetworkInput) {
  const admin = tb.admin.client('network');
  const name = networkName(network.id);
  const named = <T extends { name: string }>(items: T[]) => items.filter((i) => i.name === name);
  const routers = named(await neutron.listRouters(admin));
  const ports = (await neutron.listPorts(admin)).filter((p) => routers.some((r) => r.id === p.device_id));
  return {
    networks: named(await neutron.listNetworks(admin)),
    subnets: named(await neutron.listSubnets(admin)),
    routers,
    interfaces: ports.filter((p) => p.device_owner === 'network:router_interface'),
  };
}

const vlanOf = (network: NetworkInput) => vlans().lookup(network.id);

describe('createNetwork', () => {
  it('realises a plain network: network, subnet laid out by the arithmetic, router with gateway and interface', async () => {
    const network = input();
    const realised = done(await createNetwork(deps(), identity, network));
    const found = await inNeutron(network);
    const [made] = found.networks;
    assert.ok(made && found.networks.length === 1);
    assert.equal(made.project_id, identity.projectID);
    assert.equal(made['provider:network_type'], 'vxlan');
    const [subnet] = found.subnets;
    assert.ok(subnet);
    assert.deepEqual(
      { cidr: subnet.cidr, gateway: subnet.gateway_ip, pools: subnet.allocation_pools, dns: subnet.dns_nameservers },
      {
        cidr: '192.168.10.0/24',
        gateway: '192.168.10.1',
        pools: [{ start: '192.168.10.128', end: '192.168.10.254' }],
        dns: ['8.8.8.8'],
      },
    );
    assert.deepEqual(subnet.host_routes, [{ destination: '10.0.0.0/8', nexthop: '192.168.10.254' }]);
    assert.equal(found.routers.length, 1);
    assert.equal(found.routers[0]?.external_gateway_info?.network_id, externalID);
    assert.equal(found.interfaces.length, 1);
    assert.equal(found.interfaces[0]?.fixed_ips[0]?.subnet_id, subnet.id);
    assert.deepEqual(realised, {
      networkID: made.id,
      subnetID: subnet.id,
      storageRange: { startIP: '192.168.10.16', endIP: '192.168.10.127' },
    });
  });

  it('works in the identity project with the privileged client, and reads external networks as the region', async () => {
    const network = input();
    const from = tb.log().length;
    done(await createNetwork(deps(), identity, network));
    done(await deleteNetwork(deps(), identity, network));
    const who = new Set(
      tb
        .log()
        .slice(from)
        .map((line) => line.split(' ').slice(0, 2).join(' ')),
    );
    assert.deepEqual(who, new Set([`privileged ${identity.projectID}`, `region ${tb.clients.credentials.projectID}`]));
    const regionCalls = tb
      .log()
      .slice(from)
      .filter((line) => line.startsWith('region '));
    assert.deepEqual(regionCalls, [`region ${tb.clients.credentials.projectID} GET network /networks`]);
  });

  it('is idempotent: a second pass writes nothing and reports the same', async () => {
    const network = input();
    const first = done(await createNetwork(deps(), identity, network));
    const writes = tb.neutronWrites();
    const second = done(await createNetwork(deps(), identity, network));
    assert.equal(tb.neutronWrites(), writes);
    assert.deepEqual(second, first);
  });

  it('updates DNS servers and routes in place when the spec changes', async () => {
    const network = input();
    const first = done(await createNetwork(deps(), identity, network));
    const changed = { ...network, dnsNameservers: ['1.1.1.1', '9.9.9.9'], routes: [] };
    const writes = tb.neutronWrites();
    const second = done(await createNetwork(deps(), identity, changed));
    assert.equal(tb.neutronWrites(), writes + 1, 'one subnet update');
    assert.equal(second.subnetID, first.subnetID);
    const [subnet] = (await inNeutron(network)).subnets;
    assert.ok(subnet);
    assert.deepEqual(subnet.dns_nameservers, ['1.1.1.1', '9.9.9.9']);
    assert.deepEqual(subnet.host_routes, []);
  });

  it('realises a VLAN provider network with the lowest free VLAN of the segments', async () => {
    const network = input();
    const realised = done(await createNetwork(deps(PROVIDER), identity, network));
    const vlan = await vlanOf(network);
    assert.ok(vlan !== undefined && vlan >= 150 && vlan <= 160);
    assert.equal(realised.vlanID, vlan);
    const [found] = (await inNeutron(network)).networks;
    assert.ok(found);
    assert.equal(found['provider:network_type'], 'vlan');
    assert.equal(found['provider:physical_network'], 'physnet1');
    assert.equal(found['provider:segmentation_id'], vlan);
    assert.deepEqual(done(await createNetwork(deps(PROVIDER), identity, network)), realised);
    done(await deleteNetwork(deps(PROVIDER), identity, network));
  });

  it('VLAN exhaustion writes nothing and is retried (not parked), telling the tenant the region is full', async () => {
    const full = new VlanAllocator({
      client: store,
      namespace: NAMESPACE,
      regionName: 'r-full',
      providerNetworks: { physicalNetwork: 'physnet1', vlan: { segments: [{ startId: 170, endId: 170 }] } },
    });
    await full.allocate('holder');
    const network = input();
    const signal = new AbortController().signal;
    await assert.rejects(
      createNetwork({ clients: tb.clients, config: PROVIDER, vlans: full, signal }, identity, network),
      (error: unknown) => {
        assert.ok(error instanceof ProviderError, String(error));
        assert.match(error.userMessage, /no capacity left for another network; retrying/);
        return true;
      },
    );
    assert.equal((await inNeutron(network)).networks.length, 0);
    await full.free('holder');
  });

  it('keeps the VLAN when the Neutron create fails, and the retry uses it', async () => {
    const network = input();
    await tb.control('POST', '/faults', {
      route: '/network/v2.0/networks',
      method: 'POST',
      count: 1,
      status: 500,
    });
    await assert.rejects(createNetwork(deps(PROVIDER), identity, network), TransientError);
    const kept = await vlanOf(network);
    assert.ok(kept !== undefined);
    assert.equal((await inNeutron(network)).networks.length, 0);
    assert.equal(done(await createNetwork(deps(PROVIDER), identity, network)).vlanID, kept);
    done(await deleteNetwork(deps(PROVIDER), identity, network));
  });

  it('moves past a VLAN a network openregion did not make holds, and frees nothing of the holder', async () => {
    const network = input();
    const next = (await vlans().allocate(`probe-${network.id}`)).segmentationID;
    await vlans().free(`probe-${network.id}`);
    const squatter = await neutron.createNetwork(tb.admin.client('network'), {
      name: 'squatter',
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': next,
    });
    const { vlanID } = done(await createNetwork(deps(PROVIDER), identity, network));
    assert.ok(vlanID !== undefined && vlanID !== next, 'another VLAN than the squatter’s');
    assert.equal(await vlanOf(network), vlanID);
    assert.equal((await inNeutron(network)).networks.length, 1);
    done(await deleteNetwork(deps(PROVIDER), identity, network));
    // The squatter's id was never recorded: once it is gone, the id is the lowest free again.
    await neutron.deleteNetwork(tb.admin.client('network'), squatter.id);
    assert.equal((await vlans().allocate(`probe-${network.id}`)).segmentationID, next);
    await vlans().free(`probe-${network.id}`);
  });

  it('refuses two networks under one name as a consistency error', async () => {
    const network = input();
    const admin = tb.admin.client('network');
    for (let i = 0; i < 2; i++) {
      await admin.request({
        method: 'POST',
        path: '/networks',
        body: { network: { name: networkName(network.id), project_id: identity.projectID } },
      });
    }
    await assert.rejects(createNetwork(deps(), identity, network), ResourceConsistencyError);
    await assert.rejects(deleteNetwork(deps(), identity, network), ResourceConsistencyError);
  });

  it('does not see a network of the same name in another project', async () => {
    const network = input();
    const other = await tb.project('net-other');
    const theirs = done(await createNetwork(deps(), other, network));
    const ours = done(await createNetwork(deps(), identity, network));
    assert.notEqual(ours.networkID, theirs.networkID);
    const found = await inNeutron(network);
    assert.deepEqual(found.networks.map((n) => n.project_id).sort(), [identity.projectID, other.projectID].sort());
    done(await deleteNetwork(deps(), identity, network));
    assert.deepEqual(
      (await inNeutron(network)).networks.map((n) => n.id),
      [theirs.networkID],
    );
  });

  it('is terminal for a layout that cannot exist, before any request', async () => {
    const sent = tb.requests();
    const outcome = await createNetwork(deps(), identity, input({ reservations: { prefixLength: 24 } }));
    assert.equal(outcome.kind, 'terminal');
    assert.equal(tb.requests(), sent);
  });
});

describe('deleteNetwork', () => {
  it('leaves nothing behind and frees the VLAN; deleting again is done', async () => {
    const network = input();
    done(await createNetwork(deps(PROVIDER), identity, network));
    done(await deleteNetwork(deps(PROVIDER), identity, network));
    assert.deepEqual(await inNeutron(network), { networks: [], subnets: [], routers: [], interfaces: [] });
    assert.equal(await vlanOf(network), undefined);
    done(await deleteNetwork(deps(PROVIDER), identity, network));
  });

  it('is done without a request when the identity was never realised', async () => {
    const sent = tb.requests();
    done(await deleteNetwork(deps(PROVIDER), undefined, input()));
    assert.equal(tb.requests(), sent);
  });

  it('frees the VLAN only after Neutron has deleted the network', async () => {
    const network = input();
    done(await createNetwork(deps(PROVIDER), identity, network));
    const vlan = await vlanOf(network);
    await tb.control('POST', '/faults', {
      route: '/network/v2.0/networks/{network_id}',
      method: 'DELETE',
      count: 1,
      status: 503,
    });
    await assert.rejects(deleteNetwork(deps(PROVIDER), identity, network), TransientError);
    assert.equal((await inNeutron(network)).networks.length, 1);
    assert.equal(await vlanOf(network), vlan, 'still held while the network exists');
    done(await deleteNetwork(deps(PROVIDER), identity, network));
    assert.equal(await vlanOf(network), undefined);
  });
});

describe('interrupted passes', () => {
  /** How many provider requests one uninterrupted pass makes. */
  async function requestsOf(pass: () => Promise<unknown>): Promise<number> {
    const start = tb.requests();
    await pass();
    return tb.requests() - start;
  }

  for (const how of ['answer', 'request'] as const) {
    it(`create converges with one of each after losing the ${how} of each request in turn`, async () => {
      const probe = input();
      const calls = await requestsOf(() => createNetwork(deps(PROVIDER), identity, probe));
      done(await deleteNetwork(deps(PROVIDER), identity, probe));
      assert.ok(calls >= 8, `a create pass makes ${calls} requests`);
      for (let n = 1; n <= calls; n++) {
        const network = input();
        tb.interrupt(n, how);
        await assert.rejects(createNetwork(deps(PROVIDER), identity, network), TransientError, `request ${n}`);
        const realised = done(await createNetwork(deps(PROVIDER), identity, network));
        const found = await inNeutron(network);
        assert.deepEqual(
          [found.networks.length, found.subnets.length, found.routers.length, found.interfaces.length],
          [1, 1, 1, 1],
          `request ${n}`,
        );
        assert.equal(found.networks[0]?.['provider:segmentation_id'], realised.vlanID);
        done(await deleteNetwork(deps(PROVIDER), identity, network));
      }
    });

    it(`delete converges with nothing left after losing the ${how} of each request in turn`, async () => {
      const probe = input();
      done(await createNetwork(deps(PROVIDER), identity, probe));
      const calls = await requestsOf(() => deleteNetwork(deps(PROVIDER), identity, probe));
      assert.ok(calls >= 8, `a delete pass makes ${calls} requests`);
      for (let n = 1; n <= calls; n++) {
        const network = input();
        done(await createNetwork(deps(PROVIDER), identity, network));
        tb.interrupt(n, how);
        await assert.rejects(deleteNetwork(deps(PROVIDER), identity, network), TransientError, `request ${n}`);
        done(await deleteNetwork(deps(PROVIDER), identity, network));
        assert.deepEqual(await inNeutron(network), { networks: [], subnets: [], routers: [], interfaces: [] });
        assert.equal(await vlanOf(network), undefined, `request ${n}`);
      }
    });
  }
});

describe('listExternalNetworks', () => {
  it('offers external networks only, narrowed by tags and by an id allowlist whose order it keeps', async () => {
    const tagged = await tb.externalNetwork('tagged', '198.51.100.0/24', ['openregion']);
    const all = await listExternalNetworks(deps());
    assert.ok(all.some((n) => n.id === externalID) && all.some((n) => n.id === tagged.id));
    assert.ok(all.every((n) => n.name !== networkName('x')));
    const byTag = await listExternalNetworks(
      deps({ ...PLAIN, network: { externalNetworks: { selector: { tags: ['openregion'] } } } }),
    );
    assert.deepEqual(byTag, [{ id: tagged.id, name: 'tagged' }]);
    const byIDs = await listExternalNetworks(
      deps({ ...PLAIN, network: { externalNetworks: { selector: { ids: [tagged.id, 'nope', externalID] } } } }),
    );
    assert.deepEqual(
      byIDs.map((n) => n.id),
      [tagged.id, externalID],
    );
  });

  it('leaves a network without a router, retrying, while no external network matches the selector', async () => {
    const network = input();
    const none = deps({ ...PLAIN, network: { externalNetworks: { selector: { tags: ['absent'] } } } });
    await assert.rejects(createNetwork(none, identity, network), TransientError);
    assert.equal((await inNeutron(network)).routers.length, 0);
    done(await deleteNetwork(deps(), identity, network));
  });
});

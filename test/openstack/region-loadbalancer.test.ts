/**
 * Contract (issue 9, Done means 2): a region LoadBalancer through the provider, as the identity's own user, with
 * the region's non-admin credential from `region configure` making the identity and its network:
 * create with two listeners and a public IP → change members and a monitor threshold → remove a listener →
 * delete, leaving nothing behind (listed as admin).
 *
 * The public IP: the dev cloud's Octavia runs the allowed-address-pairs network driver (scripts/devcloud.sh), so the
 * VIP is a real Neutron port in the identity's project, the floating IP points at it, the delete removes the floating
 * IP while the load balancer still stands and only then asks for the cascade, and Octavia removes the VIP port with
 * the load balancer. The emulator's Octavia invents the VIP port id as a noop network driver does; there the test
 * moves the VIP to a real Neutron port first (its control API, standing in for a real network driver) and removes
 * that port itself. Runs on the dev cloud and, with OPENREGION_CONTRACT_TARGET=emulator, on the emulator.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { NotFoundError } from '../../src/openstack/errors.ts';
import * as octavia from '../../src/openstack/loadbalancer.ts';
import * as neutron from '../../src/openstack/network.ts';
import { openstackIdentityType } from '../../src/region/apis/index.ts';
import type {
  IdentityInput,
  LoadBalancerInput,
  LoadBalancerRealisation,
  NetworkInput,
} from '../../src/region/provider/inputs.ts';
import type { Outcome } from '../../src/region/provider/outcome.ts';
import { loadBalancerProviderFor } from '../../src/region/openstack/load-balancer/provider.ts';
import { listenerName, loadBalancerName, monitorName, poolName } from '../../src/region/openstack/names.ts';
import { openstackLookup } from '../../src/region/openstack/provider.ts';
import type { RegionRegistry } from '../../src/region/openstack/registry.ts';
import { cloudTarget, contractCloud } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();
/** A bound on waiting for Octavia to settle, not an assertion about speed. */
const SETTLE_MS = 120_000;

describe(
  'region load balancers (the identity user; the region credential from `region configure`)',
  { skip: !cloud },
  () => {
    const c = cloud as NonNullable<typeof cloud>;
    const ctx = { signal: new AbortController().signal };
    const run = randomUUID().slice(0, 8);
    const owner = { organizationID: `ct-org-${run}`, projectID: `ct-project-${run}`, regionID: REGION };
    const identity: IdentityInput = { ...owner, id: randomUUID() };
    const network: NetworkInput = {
      ...owner,
      id: randomUUID(),
      prefix: '10.30.0.0/24',
      reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
      dnsNameservers: [],
      routes: [],
    };
    let regions: ContractRegions;
    let store: EmbeddedStore;
    let registry: RegionRegistry;
    let identityUserID = '';
    let regionProjectID = '';
    /** Emulator only: the stand-in VIP ports, which its Octavia does not own; they go with the load balancer. */
    const vipPorts: string[] = [];
    const removeVipPorts = async () => {
      for (const id of vipPorts.splice(0)) await neutron.deletePort(c.admin.client('network'), id).catch(() => {});
    };
    const region = () => registry.lookup(REGION);
    const provider = async () => openstackLookup(() => region(), { kube: store })(REGION, ctx.signal);
    const lbProvider = async () => loadBalancerProviderFor(await region(), { kube: store });

    before(async () => {
      regions = await contractRegions(c, [{ id: REGION }]);
      ({ store, registry } = regions);
      await until('identity', async () => (await provider()).createIdentity(ctx, identity));
      await until('network', async () => (await provider()).createNetwork(ctx, identity, network));
      identityUserID = (await store.get(openstackIdentityType, NS, identity.id)).spec.userID ?? '';
      regionProjectID = regions.credentials.projectID;
    });

    after(async () => {
      // Whatever a failed test left behind goes, in dependency order, whatever state it stopped in.
      await until('delete load balancer', async () =>
        (await lbProvider()).deleteLoadBalancer(ctx, identity, spec),
      ).catch(() => {});
      await removeVipPorts();
      await until('delete network', async () => (await provider()).deleteNetwork(ctx, identity, network)).catch(
        () => {},
      );
      await until('delete identity', async () => (await provider()).deleteIdentity(ctx, identity)).catch(() => {});
      await regions.close();
      await c.close();
    });

    /** Runs passes until one is not a yield; returns the yields' reasons and the last outcome. */
    async function until<T>(
      what: string,
      pass: () => Promise<Outcome<T>>,
    ): Promise<{ outcome: Outcome<T>; rows: string[] }> {
      const rows: string[] = [];
      const deadline = Date.now() + SETTLE_MS;
      for (;;) {
        const outcome = await pass();
        if (outcome.kind !== 'yield') {
          assert.equal(outcome.kind, 'done', `${what}: ${JSON.stringify(outcome)}`);
          return { outcome, rows };
        }
        rows.push(outcome.reason);
        if (Date.now() > deadline) throw new Error(`${what}: still yielding after ${rows.join(', ')}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    const check = { intervalSeconds: 10, timeoutSeconds: 5, healthyThreshold: 3, unhealthyThreshold: 3 };
    let spec: LoadBalancerInput = {
      ...owner,
      id: randomUUID(),
      networkID: network.id,
      publicIP: true,
      listeners: [
        {
          name: 'http',
          protocol: 'tcp',
          port: 80,
          allowedCIDRs: ['10.0.0.0/8'],
          idleTimeoutSeconds: 120,
          pool: { proxyProtocolV2: true, members: [{ address: '10.30.0.10', port: 8080 }], healthCheck: check },
        },
        {
          name: 'dns',
          protocol: 'udp',
          port: 53,
          allowedCIDRs: [],
          pool: { proxyProtocolV2: false, members: [{ address: '10.30.0.11', port: 53 }], healthCheck: check },
        },
      ],
    };

    /** What Octavia and Neutron hold for the load balancer, listed as admin. */
    async function inCloud() {
      const admin = c.admin.client('load-balancer');
      const prefix = `${loadBalancerName(spec.id)}-`;
      const lbs = (await octavia.listLoadBalancers(admin)).filter((l) => l.name === loadBalancerName(spec.id));
      const listeners = (await octavia.listListeners(admin)).filter((l) => l.name.startsWith(prefix));
      const pools = (await octavia.listPools(admin)).filter((p) => p.name.startsWith(prefix));
      const monitors = (await octavia.listHealthMonitors(admin)).filter((m) => m.name.startsWith(prefix));
      const members = new Map<string, string[]>();
      for (const pool of pools) {
        const listed = await octavia.listMembers(admin, pool.id);
        members.set(pool.name, listed.map((m) => `${m.address}:${String(m.protocol_port)}`).sort());
      }
      const record = await store.get(openstackIdentityType, NS, identity.id);
      const fips = await neutron.listFloatingIps(c.admin.client('network'), { projectId: record.spec.projectID });
      return { lbs, listeners, pools, monitors, members, fips, projectID: record.spec.projectID };
    }

    const converge = () =>
      until('create load balancer', async () => (await lbProvider()).createLoadBalancer(ctx, identity, spec));

    it('creates the load balancer with two listeners and a public IP, as the identity user', async () => {
      // The first passes make the load balancer; then the VIP port decides what the floating IP step can do.
      lbRequestsFrom = regions.transport.requests.length;
      const first = await (await lbProvider()).createLoadBalancer(ctx, identity, spec);
      assert.deepEqual(first, { kind: 'yield', reason: 'create-load-balancer' });
      const [lb] = await waitForActive();
      if (cloudTarget === 'emulator') {
        await realVipPort(lb);
      } else {
        // Octavia's network driver made the VIP port in Neutron, in the identity's project.
        const port = await neutron.getPort(c.admin.client('network'), lb?.vip_port_id ?? '');
        assert.deepEqual(
          [port.project_id, port.device_owner, port.fixed_ips.map((ip) => ip.ip_address)],
          [lb?.project_id, 'Octavia', [lb?.vip_address]],
        );
      }
      const { outcome } = await converge();
      const realised = (outcome as { value: LoadBalancerRealisation }).value;
      const found = await inCloud();
      assert.equal(found.lbs.length, 1);
      assert.equal(found.lbs[0]?.project_id, found.projectID, 'in the identity project');
      assert.equal(realised.vipAddress, found.lbs[0]?.vip_address);
      assert.equal(found.fips.length, 1);
      assert.equal(found.fips[0]?.port_id, found.lbs[0]?.vip_port_id);
      assert.equal(realised.publicIP, found.fips[0]?.floating_ip_address);
      const names = (items: { name: string }[]) => items.map((i) => i.name).sort();
      assert.deepEqual(names(found.listeners), [listenerName(spec.id, 'dns'), listenerName(spec.id, 'http')].sort());
      assert.deepEqual(names(found.pools), [poolName(spec.id, 'dns'), poolName(spec.id, 'http')].sort());
      assert.deepEqual(names(found.monitors), [monitorName(spec.id, 'dns'), monitorName(spec.id, 'http')].sort());
      const pool = (name: string) => found.pools.find((p) => p.name === poolName(spec.id, name));
      assert.deepEqual([pool('http')?.protocol, pool('dns')?.protocol], ['PROXYV2', 'UDP']);
      const monitor = (name: string) => found.monitors.find((m) => m.name === monitorName(spec.id, name));
      assert.deepEqual([monitor('http')?.type, monitor('dns')?.type], ['TCP', 'UDP-CONNECT']);
      const http = found.listeners.find((l) => l.name === listenerName(spec.id, 'http'));
      assert.deepEqual([http?.protocol, http?.protocol_port, http?.allowed_cidrs], ['TCP', 80, ['10.0.0.0/8']]);
      assert.deepEqual([http?.timeout_client_data, http?.timeout_member_data], [120_000, 120_000]);
      assert.deepEqual(found.members.get(poolName(spec.id, 'http')), ['10.30.0.10:8080']);
      // A converged pass is done at once, writing nothing.
      const writes = regions.transport.requests.filter(
        (r) => r.method !== 'GET' && r.urlTemplate !== '/auth/tokens',
      ).length;
      assert.equal((await (await lbProvider()).createLoadBalancer(ctx, identity, spec)).kind, 'done');
      assert.equal(
        regions.transport.requests.filter((r) => r.method !== 'GET' && r.urlTemplate !== '/auth/tokens').length,
        writes,
      );
    });

    it('changes members, a monitor threshold, allowed CIDRs and an idle timeout in place', async () => {
      const [http, dns] = spec.listeners;
      assert.ok(http && dns);
      const before = await inCloud();
      spec = {
        ...spec,
        listeners: [
          {
            ...http,
            allowedCIDRs: ['10.0.0.0/8', '172.16.0.0/12'],
            idleTimeoutSeconds: 300,
            pool: {
              ...http.pool,
              members: [
                { address: '10.30.0.10', port: 8080 },
                { address: '10.30.0.12', port: 8080 },
              ],
              healthCheck: { ...check, unhealthyThreshold: 5 },
            },
          },
          { ...dns, allowedCIDRs: ['192.168.0.0/16'] },
        ],
      };
      const { rows } = await converge();
      assert.ok(rows.includes('replace-members') && rows.includes('update-monitor'), rows.join(', '));
      const now = await inCloud();
      const listener = (name: string) =>
        now.listeners.find((l) => l.name === listenerName(spec.id, name)) ?? assert.fail(`listener ${name}`);
      assert.deepEqual([...(listener('http').allowed_cidrs ?? [])].sort(), ['10.0.0.0/8', '172.16.0.0/12']);
      assert.deepEqual(
        [listener('http').timeout_client_data, listener('http').timeout_member_data],
        [300_000, 300_000],
      );
      assert.deepEqual(listener('dns').allowed_cidrs, ['192.168.0.0/16']);
      assert.deepEqual(
        now.listeners.map((l) => l.id).sort(),
        before.listeners.map((l) => l.id).sort(),
        'the same listeners',
      );
      assert.deepEqual(now.members.get(poolName(spec.id, 'http')), ['10.30.0.10:8080', '10.30.0.12:8080']);
      const monitor = now.monitors.find((m) => m.name === monitorName(spec.id, 'http')) ?? assert.fail('a monitor');
      assert.equal(monitor.max_retries_down, 5);
      const was = before.monitors.find((m) => m.name === monitor.name);
      assert.equal(monitor.id, was?.id, 'the same monitor');
    });

    it('removes a listener with its pool and monitor', async () => {
      spec = { ...spec, listeners: spec.listeners.filter((l) => l.name !== 'dns') };
      const { rows } = await converge();
      assert.ok(rows.includes('delete-listener') && rows.includes('delete-pool'), rows.join(', '));
      const now = await inCloud();
      assert.deepEqual(
        now.listeners.map((l) => l.name),
        [listenerName(spec.id, 'http')],
      );
      assert.deepEqual(
        now.pools.map((p) => p.name),
        [poolName(spec.id, 'http')],
      );
      assert.deepEqual(
        now.monitors.map((m) => m.name),
        [monitorName(spec.id, 'http')],
      );
    });

    it('deletes everything (the floating IP first), leaving nothing behind', async () => {
      const before = await inCloud();
      const vipPortID = before.lbs[0]?.vip_port_id ?? '';
      assert.deepEqual(
        before.fips.map((f) => f.port_id),
        [vipPortID],
      );
      // The first pass removes the floating IP and nothing else: the load balancer and its VIP port still stand.
      const first = await (await lbProvider()).deleteLoadBalancer(ctx, identity, spec);
      assert.deepEqual(first, { kind: 'yield', reason: 'floating IP deleted' });
      const between = await inCloud();
      assert.deepEqual(between.fips, []);
      assert.deepEqual(
        between.lbs.map((l) => [l.id, l.provisioning_status]),
        [[before.lbs[0]?.id, 'ACTIVE']],
      );
      assert.equal((await neutron.getPort(c.admin.client('network'), vipPortID)).id, vipPortID);
      const { rows } = await until('delete load balancer', async () =>
        (await lbProvider()).deleteLoadBalancer(ctx, identity, spec),
      );
      assert.equal(rows[0], 'cascade delete accepted', rows.join(', '));
      const now = await inCloud();
      assert.deepEqual([now.lbs, now.listeners, now.pools, now.monitors, now.fips], [[], [], [], [], []]);
      assertPrincipals(now.projectID);
      // A real network driver deletes its VIP port with the load balancer; the emulator's stand-in goes here.
      if (cloudTarget !== 'emulator') {
        await assert.rejects(neutron.getPort(c.admin.client('network'), vipPortID), NotFoundError);
      }
      await removeVipPorts();
      // The network and the identity go too: nothing of the load balancer holds them.
      await until('delete network', async () => (await provider()).deleteNetwork(ctx, identity, network));
      await until('delete identity', async () => (await provider()).deleteIdentity(ctx, identity));
      const admin = c.admin.client('network');
      assert.deepEqual(await neutron.listNetworks(admin, { name: `network-${network.id}` }), []);
      assert.deepEqual(await neutron.listPorts(admin, { projectId: now.projectID }), []);
    });

    /** Where the load balancer's own requests start in the transport's record. */
    let lbRequestsFrom = 0;

    /**
     * Every load balancer and floating IP request went as the identity's own user in its project; the only other
     * caller is the region account listing external networks in its own project (the floating IP's network).
     */
    function assertPrincipals(projectID: string | undefined): void {
      const requests = regions.transport.requests.slice(lbRequestsFrom).filter((r) => r.caller !== undefined);
      const asRegion = requests.filter((r) => r.caller?.userID !== identityUserID);
      const asIdentity = requests.filter((r) => r.caller?.userID === identityUserID);
      assert.ok(asIdentity.filter((r) => r.serviceType === 'load-balancer').length > 20, 'the pass went to Octavia');
      assert.deepEqual([...new Set(asIdentity.map((r) => r.caller?.scope))], [`project:${projectID ?? ''}`]);
      assert.ok(asIdentity.some((r) => r.method === 'POST' && r.urlTemplate === '/floatingips'));
      assert.ok(asIdentity.some((r) => r.method === 'DELETE' && r.urlTemplate === '/floatingips/{floatingip_id}'));
      const regionCalls = new Set(
        asRegion.map((r) => `${r.caller?.scope ?? ''} ${r.method} ${r.serviceType} ${r.urlTemplate}`),
      );
      assert.deepEqual([...regionCalls], [`project:${regionProjectID} GET network /networks`]);
    }

    /** Waits until the load balancer is ACTIVE, as admin. */
    async function waitForActive(): Promise<octavia.LoadBalancer[]> {
      const deadline = Date.now() + SETTLE_MS;
      for (;;) {
        const { lbs } = await inCloud();
        if (lbs[0]?.provisioning_status === 'ACTIVE') return lbs;
        if (Date.now() > deadline) throw new Error('the load balancer never went ACTIVE');
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    /** Emulator only: the VIP on a real Neutron port of the network's subnet, as a real network driver has it. */
    async function realVipPort(lb: octavia.LoadBalancer | undefined): Promise<void> {
      assert.ok(lb);
      const admin = c.admin.client('network');
      const [subnet] = await neutron.listSubnets(admin, { name: `network-${network.id}` });
      assert.ok(subnet);
      const port = await neutron.createPort(admin, {
        network_id: subnet.network_id,
        name: `octavia-lb-${lb.id}`,
        device_owner: 'Octavia',
        fixed_ips: [{ subnet_id: subnet.id }],
        project_id: lb.project_id,
      } as neutron.PortCreate);
      const origin = new URL(c.authUrl).origin;
      const answer = await fetch(`${origin}/_emulator/octavia/loadbalancers/${lb.id}/vip-port`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ port_id: port.id, vip_address: port.fixed_ips[0]?.ip_address }),
      });
      assert.equal(answer.status, 204);
      vipPorts.push(port.id);
    }
  },
);

/**
 * The clients fixture (clients.ts: request log, interruption) with what a load balancer needs around it: an
 * identity with its own user holding the roles identity creation grants, a realised region Network in its project,
 * and the loops the load balancer tests share — passes until done (settling Octavia between them, moving the VIP to
 * a real Neutron port when a public IP is asked for: the emulator's VIP ports, a noop network driver's, exist nowhere
 * in Neutron, see src/emulator/octavia/controls.ts), deletes until gone, and what Octavia holds, read as admin.
 */
import assert from 'node:assert/strict';
import { createUser, ensureRole, grantRole } from '../../../openstack/identity.ts';
import * as octavia from '../../../openstack/loadbalancer.ts';
import * as neutron from '../../../openstack/network.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { TransientError } from '../../provider/errors.ts';
import type { LoadBalancerInput, LoadBalancerRealisation, NetworkInput } from '../../provider/inputs.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { DEFAULT_IDENTITY_ROLES } from '../identity/lifecycle.ts';
import { createLoadBalancer, deleteLoadBalancer, type LoadBalancerDeps } from '../load-balancer/lifecycle.ts';
import { loadBalancerName } from '../names.ts';
import { createNetwork } from '../network/lifecycle.ts';
import type { UserIdentity } from '../realised.ts';
import { clientsFixture, type ClientsFixture } from './clients.ts';

const CONFIG: RegionOpenstack = { endpoint: 'unused', serviceAccountSecret: { namespace: 'x', name: 'y' } };

export interface LoadBalancerFixture extends ClientsFixture {
  /** The identity the load balancers run as: its own user (password `pw`) holds member and load-balancer_member. */
  readonly identity: UserIdentity;
  /** A realised region Network in the identity's project (network, subnet, router to the external network). */
  readonly network: NetworkInput;
  deps(signal?: AbortSignal): LoadBalancerDeps;
  /** A fresh two-listener spec (see twoListeners) with a new id. */
  newSpec(overrides?: Partial<LoadBalancerInput>): LoadBalancerInput;
  /** Passes until one does not yield; a pass that throws a TransientError is retried (an interruption). */
  converge(spec: LoadBalancerInput): Promise<{ outcome: Outcome<LoadBalancerRealisation>; rows: string[] }>;
  converged(spec: LoadBalancerInput): Promise<LoadBalancerRealisation>;
  /** Delete passes until done; the yields' reasons. */
  removeAll(spec: LoadBalancerInput): Promise<string[]>;
  inOctavia(spec: LoadBalancerInput): Promise<InOctavia>;
  /** Octavia writes sent by the provider's clients so far. */
  octaviaWrites(): number;
  /** Forces the provisioning status of a load balancer or one of its children. */
  provisioning(id: string, status: string): Promise<void>;
  /** Lets every pending Octavia transition settle (the emulator's delays are at most 300 ms). */
  settle(): void;
}

interface InOctavia {
  readonly lbs: octavia.LoadBalancer[];
  readonly listeners: octavia.Listener[];
  readonly pools: octavia.Pool[];
  readonly monitors: octavia.HealthMonitor[];
  /** `address:port` of each pool's members, by pool name. */
  readonly members: Map<string, string[]>;
}

export const byName = <T extends { name: string }>(items: readonly T[], name: string): T =>
  items.find((i) => i.name === name) ?? assert.fail(`no ${name}`);

/** One emulator with an identity named `name` and its network. */
export async function loadBalancerFixture(name: string): Promise<LoadBalancerFixture> {
  const tb = await clientsFixture();
  await tb.externalNetwork('public', '203.0.113.0/24');
  const deps = (signal = new AbortController().signal): LoadBalancerDeps => ({
    clients: tb.clients,
    config: CONFIG,
    signal,
  });
  const identity = await ownUser(tb, name);
  const network = await realisedNetwork(tb, identity, `${name}-net`);
  const adminOctavia = () => tb.admin.client('load-balancer');
  const settle = () => {
    tb.clock.advance(1_000);
  };
  let serial = 0;
  // Load balancers whose VIP sits on a real Neutron port, and that port (removed with them, as Octavia would).
  const realVips = new Map<string, string>();

  const ensureRealVip = async (spec: LoadBalancerInput): Promise<void> => {
    const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
    if (found === undefined || realVips.has(found.id)) return;
    realVips.set(found.id, (await realVipPort(tb, identity, network, found.id)).id);
  };

  const converge: LoadBalancerFixture['converge'] = async (spec) => {
    const rows: string[] = [];
    for (let pass = 0; pass < 40; pass++) {
      let outcome: Outcome<LoadBalancerRealisation> | undefined;
      try {
        outcome = await createLoadBalancer(deps(), identity, spec);
      } catch (error) {
        if (!(error instanceof TransientError)) throw error;
        rows.push('error');
      }
      if (outcome !== undefined && outcome.kind !== 'yield') return { outcome, rows };
      if (outcome !== undefined) rows.push(outcome.reason);
      if (spec.publicIP) await ensureRealVip(spec);
      settle();
    }
    throw new Error(`no convergence: ${rows.join(', ')}`);
  };

  return {
    ...tb,
    identity,
    network,
    deps,
    newSpec: (overrides = {}) => twoListeners(`${name}-lb${String(++serial)}`, network.id, overrides),
    converge,
    converged: async (spec) => {
      const { outcome } = await converge(spec);
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
      return (outcome as { value: LoadBalancerRealisation }).value;
    },
    removeAll: async (spec) => {
      const rows: string[] = [];
      for (let pass = 0; pass < 20; pass++) {
        const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
        const outcome = await deleteLoadBalancer(deps(), identity, spec);
        if (outcome.kind === 'done') return rows;
        assert.equal(outcome.kind, 'yield', JSON.stringify(outcome));
        const reason = (outcome as { reason: string }).reason;
        const port = found === undefined ? undefined : realVips.get(found.id);
        if (port !== undefined && reason.startsWith('cascade')) {
          await neutron.deletePort(tb.admin.client('network'), port);
        }
        rows.push(reason);
        settle();
      }
      throw new Error('delete did not finish');
    },
    inOctavia: async (spec) => {
      const admin = adminOctavia();
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
      return { lbs, listeners, pools, monitors, members };
    },
    octaviaWrites: () =>
      tb.accounting
        .counts()
        .reduce((n, c) => n + (c.serviceType === 'load-balancer' && c.method !== 'GET' ? c.requests : 0), 0),
    provisioning: async (id, status) => {
      const answer = await tb.control('POST', `/octavia/provisioning/${id}`, { status });
      if (answer !== 204) throw new Error(`provisioning control: ${String(answer)}`);
    },
    settle,
  };
}

/** A project with the identity's own user (password `pw`) holding the roles identity creation grants. */
async function ownUser(tb: ClientsFixture, id: string): Promise<UserIdentity> {
  const keystone = tb.admin.client('identity');
  const { projectID } = await tb.project(id);
  const user = await createUser(keystone, { name: `unikorn-identity-${id}`, domain_id: 'default', password: 'pw' });
  for (const role of DEFAULT_IDENTITY_ROLES) {
    await grantRole(keystone, { userId: user.id, projectId: projectID, roleId: await ensureRole(keystone, role) });
  }
  return { identityID: id, projectID, credentials: { projectID, userID: user.id, password: 'pw' } };
}

/** A realised region Network in the identity's project. */
async function realisedNetwork(tb: ClientsFixture, identity: UserIdentity, id: string): Promise<NetworkInput> {
  const input: NetworkInput = {
    id,
    organizationID: 'org',
    projectID: 'proj',
    regionID: 'r1',
    prefix: '192.168.20.0/24',
    reservations: { prefixLength: 25, providerReservedPrefixLength: 28 },
    dnsNameservers: [],
    routes: [],
  };
  const deps = { clients: tb.clients, config: CONFIG, signal: new AbortController().signal };
  const made = await createNetwork(deps, identity, input);
  if (made.kind !== 'done') throw new Error(`network ${id}: ${made.kind}`);
  return input;
}

/** Moves the load balancer's VIP to a new Neutron port on the network's subnet, as a real network driver has it. */
async function realVipPort(
  tb: ClientsFixture,
  identity: UserIdentity,
  network: NetworkInput,
  loadBalancerID: string,
): Promise<neutron.Port> {
  // Its own session, so the port is neither counted nor interrupted with the provider's requests.
  const own = tb.session<'project'>(
    { type: 'password', user: { id: identity.credentials.userID }, password: identity.credentials.password },
    { kind: 'project', project: { id: identity.projectID } },
  );
  const net = own.client('network');
  const [subnet] = await neutron.listSubnets(net, { name: `network-${network.id}` });
  if (subnet === undefined) throw new Error('no subnet');
  const port = await neutron.createPort(net, {
    network_id: subnet.network_id,
    name: `octavia-lb-${loadBalancerID}`,
    device_owner: 'Octavia',
    fixed_ips: [{ subnet_id: subnet.id }],
  });
  const address = port.fixed_ips[0]?.ip_address;
  const status = await tb.control('POST', `/octavia/loadbalancers/${loadBalancerID}/vip-port`, {
    port_id: port.id,
    vip_address: address,
  });
  if (status !== 204) throw new Error(`vip-port control: ${String(status)}`);
  return port;
}

/** A spec with two TCP listeners, one with a health check, and a public IP. */
function twoListeners(id: string, networkID: string, overrides: Partial<LoadBalancerInput> = {}): LoadBalancerInput {
  return {
    id,
    organizationID: 'org',
    projectID: 'proj',
    regionID: 'r1',
    networkID,
    publicIP: false,
    listeners: [
      {
        name: 'http',
        protocol: 'tcp',
        port: 80,
        allowedCIDRs: ['10.0.0.0/8'],
        idleTimeoutSeconds: 120,
        pool: {
          proxyProtocolV2: false,
          members: [{ address: '192.168.20.10', port: 8080 }],
          healthCheck: { intervalSeconds: 10, timeoutSeconds: 5, healthyThreshold: 3, unhealthyThreshold: 3 },
        },
      },
      {
        name: 'dns',
        protocol: 'udp',
        port: 53,
        allowedCIDRs: [],
        pool: { proxyProtocolV2: false, members: [{ address: '192.168.20.11', port: 53 }] },
      },
    ],
    ...overrides,
  };
}

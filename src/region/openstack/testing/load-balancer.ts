/**
 * Test support for the load balancer provider on the emulator: the network testbed (request log, interruption)
 * plus what a load balancer needs around it — an identity with its own user holding the roles identity creation
 * grants, a realised region Network in its project, and a real Neutron port standing in for the VIP port (the
 * noop network driver's VIP ports exist nowhere in Neutron; see src/emulator/octavia/controls.ts).
 */
import { createUser, ensureRole, grantRole } from '../../../openstack/identity.ts';
import * as neutron from '../../../openstack/network.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import type { LoadBalancerInput, NetworkInput } from '../../provider/inputs.ts';
import { createNetwork } from '../network/lifecycle.ts';
import { DEFAULT_IDENTITY_ROLES } from '../identity/lifecycle.ts';
import { testbed, type Testbed } from './clients.ts';
import type { LoadBalancerDeps } from '../load-balancer/lifecycle.ts';
import type { UserIdentity } from '../realised.ts';

const CONFIG: RegionOpenstack = { endpoint: 'unused', serviceAccountSecret: { namespace: 'x', name: 'y' } };

export interface LbTestbed extends Testbed {
  deps(signal?: AbortSignal): LoadBalancerDeps;
  /** A project with the identity's own user (password `pw`) holding `member` and `load-balancer_member`. */
  ownUser(id: string): Promise<UserIdentity>;
  /** A realised region Network in the identity's project (network, subnet, router to the external network). */
  network(identity: UserIdentity, id: string): Promise<NetworkInput>;
  /** Moves the load balancer's VIP to a new Neutron port on the network's subnet, as a real network driver has it. */
  realVipPort(identity: UserIdentity, network: NetworkInput, loadBalancerID: string): Promise<neutron.Port>;
  /** Forces the provisioning status of a load balancer or one of its children. */
  provisioning(id: string, status: string): Promise<void>;
  /** Lets every pending Octavia transition settle (the emulator's delays are at most 300 ms). */
  settle(): void;
}

export async function lbTestbed(): Promise<LbTestbed> {
  const tb = await testbed();
  await tb.externalNetwork('public', '203.0.113.0/24');
  const keystone = tb.cloud.admin.client('identity');
  const roleID = (name: string) => ensureRole(keystone, name);
  const deps = (signal = new AbortController().signal): LoadBalancerDeps => ({
    clients: tb.clients,
    config: CONFIG,
    signal,
  });
  return {
    ...tb,
    deps,
    ownUser: async (id) => {
      const { projectID } = await tb.identity(id);
      const user = await createUser(keystone, { name: `unikorn-identity-${id}`, domain_id: 'default', password: 'pw' });
      for (const role of DEFAULT_IDENTITY_ROLES) {
        await grantRole(keystone, { userId: user.id, projectId: projectID, roleId: await roleID(role) });
      }
      return { identityID: id, projectID, credentials: { projectID, userID: user.id, password: 'pw' } };
    },
    network: async (identity, id) => {
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
      const made = await createNetwork({ clients: tb.clients, config: CONFIG, signal: deps().signal }, identity, input);
      if (made.kind !== 'done') throw new Error(`network ${id}: ${made.kind}`);
      return input;
    },
    realVipPort: async (identity, network, loadBalancerID) => {
      // Its own session, so the port is neither counted nor interrupted with the provider's requests.
      const own = tb.cloud.session<'project'>(
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
      const status = await tb.cloud.control('POST', `/octavia/loadbalancers/${loadBalancerID}/vip-port`, {
        port_id: port.id,
        vip_address: address,
      });
      if (status !== 204) throw new Error(`vip-port control: ${String(status)}`);
      return port;
    },
    provisioning: async (id, status) => {
      const answer = await tb.cloud.control('POST', `/octavia/provisioning/${id}`, { status });
      if (answer !== 204) throw new Error(`provisioning control: ${String(answer)}`);
    },
    settle: () => {
      tb.cloud.clock.advance(1_000);
    },
  };
}

/** A spec with two TCP listeners, one with a health check, and a public IP. */
export function twoListeners(
  id: string,
  networkID: string,
  overrides: Partial<LoadBalancerInput> = {},
): LoadBalancerInput {
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

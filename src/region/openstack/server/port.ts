/**
 * A server's port, `server-{id}`, on its network's Neutron network, in the identity's project: made before the
 * server (Nova is handed the port, one NIC), its security groups and allowed address pairs converged in place every
 * pass, re-found by exact name so an interrupted pass never leaves a second one (the first pass has nothing to
 * re-find, ADR 0030).
 */
import { exactlyNamed } from '../../../openstack/exact.ts';
import * as neutron from '../../../openstack/network.ts';
import { ResourceKind, ResourceNotFoundError, TransientError } from '../../provider/errors.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { networkName, securityGroupName, serverPortName } from '../names.ts';
import type { IdentityClient } from '../principals.ts';
import type { UserIdentity } from '../realised.ts';

type Neutron = IdentityClient<'network'>;

/** The port named exactly `server-{id}` (Neutron's name filter is exact, but post-filtered all the same). */
export async function findServerPort(
  client: Neutron,
  identity: UserIdentity,
  serverID: string,
): Promise<neutron.Port | undefined> {
  const name = serverPortName(serverID);
  return exactlyNamed(await neutron.listPorts(client, { name, projectID: identity.projectID }), name, 'port');
}

/** The port, and whether this call made it (a port just made carries no floating IP yet). */
interface EnsuredPort {
  readonly port: neutron.Port;
  readonly created: boolean;
}

export async function ensureServerPort(
  client: Neutron,
  identity: UserIdentity,
  server: ServerInput,
): Promise<EnsuredPort> {
  const mine = { projectID: identity.projectID };
  const securityGroups: string[] = [];
  for (const id of server.securityGroupIDs) {
    const group = await neutron.findSecurityGroupByName(client, securityGroupName(id), mine);
    if (group === undefined) {
      throw new ResourceNotFoundError(`security group ${id} has no Neutron group`, {
        resource: ResourceKind.SecurityGroup,
      });
    }
    securityGroups.push(group.id);
  }
  const desired = { security_groups: securityGroups, allowed_address_pairs: addressPairs(server) };
  // Never provisioned: the port cannot exist yet, so there is nothing to re-find (ADR 0030).
  const existing = server.neverProvisioned === true ? undefined : await findServerPort(client, identity, server.id);
  if (existing === undefined) {
    const network = await neutronNetworkOf(client, identity, server);
    const subnetID = server.neutronNetwork?.subnetID ?? (await addressableSubnet(client, identity, network, server)).id;
    const port = await neutron.createPort(client, {
      network_id: network,
      name: serverPortName(server.id),
      fixed_ips: [{ subnet_id: subnetID }],
      ...desired,
    });
    return { port, created: true };
  }
  if (existing.fixed_ips.length === 0) {
    // Made while the network's subnet was still being created: Nova refuses a port without an address.
    const subnet = await addressableSubnet(client, identity, existing.network_id, server);
    const port = await neutron.updatePort(client, existing.id, { ...desired, fixed_ips: [{ subnet_id: subnet.id }] });
    return { port, created: false };
  }
  const port = portConverged(existing, desired) ? existing : await neutron.updatePort(client, existing.id, desired);
  return { port, created: false };
}

/** The Neutron network as the Network's status records it, or re-found by its deterministic name. */
async function neutronNetworkOf(client: Neutron, identity: UserIdentity, server: ServerInput): Promise<string> {
  const recorded = server.neutronNetwork?.networkID;
  if (recorded !== undefined) return recorded;
  const network = await neutron.findNetworkByName(client, networkName(server.networkID), {
    projectID: identity.projectID,
  });
  if (network === undefined) {
    throw new ResourceNotFoundError(`network ${server.networkID} has no Neutron network`, {
      resource: ResourceKind.Network,
    });
  }
  return network.id;
}

/**
 * The subnet a server's port takes its address from. A server may be created while its network is still being
 * provisioned; a port made before the subnet exists has no address, so wait (a transient retry) until it does.
 */
async function addressableSubnet(
  client: Neutron,
  identity: UserIdentity,
  neutronNetworkID: string,
  server: ServerInput,
): Promise<neutron.Subnet> {
  const subnets = await neutron.listSubnets(client, { networkID: neutronNetworkID, projectID: identity.projectID });
  const subnet = subnets.find((s) => s.ip_version === 4);
  if (subnet === undefined) throw new TransientError(`network ${server.networkID} has no subnet yet`);
  return subnet;
}

/** The spec's pairs as Neutron takes them; a pair without a MAC uses the port's own. */
export function addressPairs(server: Pick<ServerInput, 'allowedAddressPairs'>): neutron.AllowedAddressPair[] {
  return server.allowedAddressPairs.map((p) =>
    p.macAddress === undefined ? { ip_address: p.cidr } : { ip_address: p.cidr, mac_address: p.macAddress },
  );
}

/**
 * Whether the port already has the groups and pairs (as sets; Neutron fills in a pair's MAC with the port's own,
 * so a desired pair without one matches a stored pair with any).
 */
export function portConverged(
  port: Pick<neutron.Port, 'security_groups' | 'allowed_address_pairs'>,
  desired: {
    readonly security_groups: readonly string[];
    readonly allowed_address_pairs: readonly neutron.AllowedAddressPair[];
  },
): boolean {
  const sameGroups =
    new Set(port.security_groups).size === new Set(desired.security_groups).size &&
    desired.security_groups.every((g) => port.security_groups.includes(g));
  const pairKey = (p: neutron.AllowedAddressPair, mac: boolean) =>
    `${p.ip_address}|${mac ? (p.mac_address ?? '') : ''}`;
  const stored = port.allowed_address_pairs;
  const samePairs =
    stored.length === desired.allowed_address_pairs.length &&
    desired.allowed_address_pairs.every((want) =>
      stored.some(
        (have) => pairKey(have, want.mac_address !== undefined) === pairKey(want, want.mac_address !== undefined),
      ),
    );
  return sameGroups && samePairs;
}

export const privateIPOf = (port: neutron.Port): string | undefined =>
  port.fixed_ips.find((ip) => !ip.ip_address.includes(':'))?.ip_address;

/**
 * The subnet arithmetic of a region Network, without I/O (docs/spec/upstream-region.md §Network, upstream `gatewayIP`,
 * `dhcpRange`, `storageRange`). A network's prefix starts with a reservation of `reservations.prefixLength`; Neutron's
 * DHCP pool is everything after it, and the reservation minus its provider part (`providerReservedPrefixLength`) is the
 * storage range handed to file storage attachments:
 *
 *   base  .1 gateway   [provider part]   [storage range ... reservation end]   [DHCP pool ... size-2]   broadcast
 *
 * Also the in-place subnet update: DNS servers and host routes follow the spec; the rest is fixed at creation.
 */
import type { HostRoute, SubnetUpdate } from '../../../openstack/network.ts';
import { formatIPv4, formatPrefix, parsePrefix, prefixSize } from '../../../util/ipv4.ts';
import type { NetworkInput } from '../../provider/inputs.ts';
import { gatewayAddress } from '../../apis/network.ts';

interface AddressRange {
  readonly start: string;
  readonly end: string;
}

export interface SubnetPlan {
  /** The network prefix with host bits cleared, as Neutron stores it. */
  readonly cidr: string;
  readonly gatewayIP: string;
  readonly allocationPool: AddressRange;
  /** Absent when the provider part takes the whole reservation (the two prefix lengths are equal). */
  readonly storageRange?: { readonly startIP: string; readonly endIP: string };
}

/** The network's prefix or reservations cannot be laid out (the CRD's validation should have refused them). */
export class InvalidSubnetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSubnetError';
  }
}

/** Longest reservation allowed: a /30 still leaves the gateway and one storage address. */
const MAX_RESERVATION = 30;

export function planSubnet(prefix: string, reservations: NetworkInput['reservations']): SubnetPlan {
  const network = parsePrefix(prefix);
  if (network === undefined) throw new InvalidSubnetError(`${prefix} is not an IPv4 prefix`);
  const { prefixLength, providerReservedPrefixLength: providerLength } = reservations;
  if (!Number.isInteger(prefixLength) || prefixLength <= network.length || prefixLength > MAX_RESERVATION) {
    throw new InvalidSubnetError(`reservation /${prefixLength} does not fit inside ${prefix}`);
  }
  if (
    providerLength !== undefined &&
    (!Number.isInteger(providerLength) || providerLength < prefixLength || providerLength > MAX_RESERVATION)
  ) {
    throw new InvalidSubnetError(`provider reservation /${providerLength} does not fit inside /${prefixLength}`);
  }
  const { base } = network;
  const size = prefixSize(network);
  const reserved = 2 ** (32 - prefixLength);
  const plan = {
    cidr: formatPrefix(network),
    gatewayIP: formatIPv4(gatewayAddress(network)),
    // The last address is the broadcast address.
    allocationPool: { start: formatIPv4(base + reserved), end: formatIPv4(base + size - 2) },
  };
  // Equal lengths: the provider keeps the whole reservation, so there is no storage range (upstream's opt-out).
  if (providerLength === prefixLength) return plan;
  const storageStart = providerLength === undefined ? 2 : 2 ** (32 - providerLength);
  return {
    ...plan,
    storageRange: { startIP: formatIPv4(base + storageStart), endIP: formatIPv4(base + reserved - 1) },
  };
}

/** The host routes a network's spec asks for, in Neutron's shape. */
export const hostRoutes = (routes: NetworkInput['routes']): HostRoute[] =>
  routes.map((r) => ({ destination: r.prefix, nexthop: r.nextHop }));

const routeKey = (r: HostRoute): string => `${r.destination} ${r.nexthop}`;

/**
 * The update that brings a subnet's DNS servers and host routes to the spec, or undefined when they already match.
 * DNS servers are an ordered list (resolvers are tried in order); host routes are a set.
 */
export function subnetUpdate(
  current: { readonly dns_nameservers: readonly string[]; readonly host_routes: readonly HostRoute[] },
  network: Pick<NetworkInput, 'dnsNameservers' | 'routes'>,
): SubnetUpdate | undefined {
  const routes = hostRoutes(network.routes);
  const sameDns =
    current.dns_nameservers.length === network.dnsNameservers.length &&
    current.dns_nameservers.every((server, i) => server === network.dnsNameservers[i]);
  const have = new Set(current.host_routes.map(routeKey));
  const want = new Set(routes.map(routeKey));
  const sameRoutes = have.size === want.size && [...want].every((k) => have.has(k));
  if (sameDns && sameRoutes) return undefined;
  return { dns_nameservers: [...network.dnsNameservers], host_routes: routes };
}

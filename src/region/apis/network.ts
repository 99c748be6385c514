/**
 * Network: a tenant IPv4 network (Neutron network, subnet and router; a VLAN segment on provider networks).
 * Reservations carve infrastructure space from the start of the prefix and are fixed at creation.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import {
  Conditions,
  ID,
  IPv4Address,
  IPv4Prefix,
  Provider,
  commonSpec,
  envelope,
  regionResourceType,
  prefixRules,
  type FieldRule,
} from './shared.ts';
import { isHostOf, parseIPv4, parsePrefix, unusableRangeOf, type Prefix } from '../../util/ipv4.ts';

export const networkType = regionResourceType<Network>('Network', 'networks');

export const DEFAULT_RESERVED_PREFIX_LENGTH = 25;
export const DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH = 28;

const NetworkReservations = Type.Object(
  {
    prefixLength: Type.Integer({
      minimum: 0,
      maximum: 30,
      default: DEFAULT_RESERVED_PREFIX_LENGTH,
      description: 'How much of the network to reserve from its start; longer than the network prefix.',
    }),
    providerReservedPrefixLength: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 30,
        default: DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
        description: 'The provider part of the reservation; equal to prefixLength leaves no storage range.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.providerReservedPrefixLength) || self.providerReservedPrefixLength >= self.prefixLength',
        message: 'providerReservedPrefixLength must not be shorter than prefixLength',
      },
    ],
  },
);
type NetworkReservations = Type.Static<typeof NetworkReservations>;

/**
 * A tenant network's prefix length: at most a /24 (upstream's API: "minimum network prefix size is /24"; the
 * platform reservation takes its first /25) and at least a /8, the largest private block; 0.0.0.0/0 is no network.
 */
const NETWORK_PREFIX_LENGTH = { longest: 24, shortest: 8 } as const;

const USABLE_MESSAGE =
  'a network must lie in usable unicast space: not 0.0.0.0/8, 127.0.0.0/8, 169.254.0.0/16, 224.0.0.0/4 or 240.0.0.0/4';

const networkPrefixRules = {
  tooSmall: { rule: 'minimumPrefixSize', message: 'minimum network prefix size is /24' },
  tooLarge: { rule: 'maximumPrefixSize', message: 'maximum network prefix size is /8' },
  nextHop: { rule: 'inNetwork', message: "a route's next hop must be a host address of the network prefix" },
  usable: { rule: 'usableAddressSpace', message: USABLE_MESSAGE },
} as const satisfies Record<string, FieldRule>;

/** The rule a network prefix breaks, if any (a prefix that does not parse is the schema's to refuse). */
export function networkPrefixProblem(prefix: string): FieldRule | undefined {
  const parsed = parsePrefix(prefix);
  if (parsed === undefined) return undefined;
  const { length } = parsed;
  if (length > NETWORK_PREFIX_LENGTH.longest) return networkPrefixRules.tooSmall;
  if (length < NETWORK_PREFIX_LENGTH.shortest) return networkPrefixRules.tooLarge;
  if (unusableRangeOf(parsed) !== undefined) return networkPrefixRules.usable;
  return undefined;
}

/** The rule a static route's next hop breaks on a network of `prefix`, if any: the router reaches it on the subnet. */
export function nextHopProblem(nextHop: string, prefix: string): FieldRule | undefined {
  const network = parsePrefix(prefix);
  const address = parseIPv4(nextHop);
  if (network === undefined || address === undefined) return undefined; // the schema's to refuse
  return isHostOf(network, address) ? undefined : networkPrefixRules.nextHop;
}

/** A network's gateway is its first host address: the router's port on the subnet. */
export const gatewayAddress = (network: Prefix): number => network.base + 1;

// The same rules in CEL for the CRD, which request validation's refinements do not reach.
// Each string is split once: a part of a split has no known length, so splitting it again costs CEL's whole budget.
const LENGTH = "int(self.prefix.split('/')[1])";
const OCTET = (i: number) => `int(self.prefix.split('.')[${String(i)}])`;
/** 2^(8-n) for n network bits of an octet: what a partly covered octet must be a multiple of. */
const MULTIPLE = (covered: string) => `[256, 128, 64, 32, 16, 8, 4, 2, 1][${covered}]`;
const IN_BOUNDS = `${LENGTH} >= ${String(NETWORK_PREFIX_LENGTH.shortest)} && ${LENGTH} <= ${String(NETWORK_PREFIX_LENGTH.longest)}`;
/** Within the bounds the first octet is all network and the last all host; the middle two may be split. */
const NO_HOST_BITS = [
  `self.prefix.split('.')[3].startsWith('0/')`,
  `${OCTET(2)} % (${LENGTH} <= 16 ? 256 : ${MULTIPLE(`${LENGTH} - 16`)}) == 0`,
  `${OCTET(1)} % (${LENGTH} >= 16 ? 1 : ${MULTIPLE(`${LENGTH} - 8`)}) == 0`,
].join(' && ');
/**
 * Within the bounds a prefix lies inside one /8, so util/ipv4.ts's unusable ranges come down to its first octet, and
 * to its second for 169.254.0.0/16 (a prefix shorter than /16 covers 169.254 when its block reaches 254).
 */
const USABLE = [
  `${OCTET(0)} != 0`,
  `${OCTET(0)} != 127`,
  `${OCTET(0)} < 224`,
  `!(${OCTET(0)} == 169 && (${LENGTH} >= 16 ? ${OCTET(1)} == 254 : ${OCTET(1)} + ${MULTIPLE(`${LENGTH} - 8`)} > 254))`,
].join(' && ');
const networkPrefixValidations = [
  { rule: `${LENGTH} <= ${String(NETWORK_PREFIX_LENGTH.longest)}`, message: networkPrefixRules.tooSmall.message },
  { rule: `${LENGTH} >= ${String(NETWORK_PREFIX_LENGTH.shortest)}`, message: networkPrefixRules.tooLarge.message },
  { rule: `!(${IN_BOUNDS}) || (${NO_HOST_BITS})`, message: prefixRules.canonical.message },
  { rule: `!(${IN_BOUNDS}) || (${USABLE})`, message: USABLE_MESSAGE },
].map((v) => ({ ...v, fieldPath: '.prefix' }));

const Route = Type.Object({
  prefix: IPv4Prefix('The destination.'),
  nextHop: IPv4Address('The gateway.'),
});

export const NetworkSpec = Type.Object(
  {
    ...commonSpec,
    provider: Type.Optional(Provider),
    prefix: IPv4Prefix('The network prefix, e.g. 192.168.0.0/24.'),
    reservations: Type.Optional(NetworkReservations),
    dnsNameservers: Type.Optional(Type.Array(IPv4Address('A nameserver.'), { description: 'DNS nameservers.' })),
    routes: Type.Optional(Type.Array(Route, { description: 'Static routes.' })),
  },
  {
    'x-kubernetes-validations': [
      ...networkPrefixValidations,
      {
        rule: "!has(self.reservations) || self.reservations.prefixLength > int(self.prefix.split('/')[1])",
        message: 'reservations.prefixLength must be longer than the network prefix length',
        fieldPath: '.reservations.prefixLength',
      },
      { rule: 'self.prefix == oldSelf.prefix', message: 'prefix is immutable', fieldPath: '.prefix' },
      {
        rule: 'has(self.reservations) == has(oldSelf.reservations) && (!has(self.reservations) || self.reservations == oldSelf.reservations)',
        message: 'reservations are immutable',
        fieldPath: '.reservations',
      },
    ],
  },
);
export type NetworkSpec = Type.Static<typeof NetworkSpec>;

export const NetworkStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  /** Owned by the network reconciler; IDs re-derivable by name, kept for display. */
  openstack: Type.Optional(
    Type.Object({
      networkID: Type.Optional(ID('The Neutron network.')),
      subnetID: Type.Optional(ID('The Neutron subnet.')),
      vlanID: Type.Optional(Type.Integer({ minimum: 1, maximum: 4094, description: 'The allocated VLAN.' })),
      storageRange: Type.Optional(
        Type.Object({ startIP: IPv4Address('First address.'), endIP: IPv4Address('Last address.') }),
      ),
    }),
  ),
});
export type NetworkStatus = Type.Static<typeof NetworkStatus>;

export const NetworkSchema = envelope('A tenant IPv4 network.', {
  spec: NetworkSpec,
  status: Type.Optional(NetworkStatus),
});

export type Network = Resource<NetworkSpec, NetworkStatus>;

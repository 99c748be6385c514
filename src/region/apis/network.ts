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
} from './shared.ts';

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

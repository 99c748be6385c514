/** Networks (upstream `networkV2*`): a v2 network is its own tenancy unit, with an identity made for it. */
import Type from 'typebox';
import {
  ID,
  Ipv4Address,
  Ipv4Prefix,
  ProjectScopedResourceReadMetadata,
  ResourceWriteMetadata,
  TenancyID,
} from './common.ts';

/** Upstream spells the next hop `nexthop` (the CRD: `nextHop`). */
const Route = Type.Object(
  { prefix: Ipv4Prefix('The destination prefix.'), nexthop: Ipv4Address('The next hop.') },
  { additionalProperties: false },
);

const NetworkReservations = Type.Object(
  {
    prefixLength: Type.Integer({
      minimum: 0,
      maximum: 30,
      description: 'How much of the network to reserve from its start; longer than the network prefix.',
    }),
    providerReservedPrefixLength: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 30, description: 'The provider carve-out of the reservation.' }),
    ),
  },
  { additionalProperties: false },
);

const specProperties = {
  dnsNameservers: Type.Array(Ipv4Address('A nameserver.'), { maxItems: 16, description: 'DNS nameservers.' }),
  routes: Type.Optional(Type.Array(Route, { maxItems: 64, description: 'Static routes.' })),
};

export const NetworkV2Spec = Type.Object(specProperties, {
  additionalProperties: false,
  description: "A network's specification.",
});
export type NetworkV2Spec = Type.Static<typeof NetworkV2Spec>;

export const NetworkV2CreateSpec = Type.Object(
  {
    ...specProperties,
    organizationId: TenancyID('The organization to provision the resource in.'),
    projectId: TenancyID('The project to provision the resource in.'),
    regionId: ID('The region to provision the resource in.'),
    prefix: Ipv4Prefix('The network prefix, at least a /24; immutable.'),
    reservations: Type.Optional(NetworkReservations),
  },
  { additionalProperties: false },
);
export type NetworkV2CreateSpec = Type.Static<typeof NetworkV2CreateSpec>;

export const NetworkV2Create = Type.Object({ metadata: ResourceWriteMetadata, spec: NetworkV2CreateSpec });
export type NetworkV2Create = Type.Static<typeof NetworkV2Create>;

export const NetworkV2Update = Type.Object({ metadata: ResourceWriteMetadata, spec: NetworkV2Spec });
export type NetworkV2Update = Type.Static<typeof NetworkV2Update>;

const NetworkV2Status = Type.Object({
  regionId: Type.String(),
  prefix: Type.String(),
  reservations: Type.Optional(NetworkReservations),
});

export const NetworkV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: NetworkV2Spec,
  status: NetworkV2Status,
});
export type NetworkV2Read = Type.Static<typeof NetworkV2Read>;

/** Load balancers (upstream `loadBalancerV2*`): Octavia on one network, listeners with one pool each. */
import Type from 'typebox';
import {
  ID,
  Ipv4Address,
  Ipv4Prefix,
  PortNumber,
  ProjectScopedResourceReadMetadata,
  ResourceWriteMetadata,
} from './common.ts';

const LoadBalancerMemberV2 = Type.Object(
  { address: Ipv4Address('The member address.'), port: PortNumber('The member port.') },
  { additionalProperties: false },
);

const LoadBalancerHealthCheckV2 = Type.Object(
  {
    intervalSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    healthyThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    unhealthyThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  },
  { additionalProperties: false },
);

const LoadBalancerPoolV2 = Type.Object(
  {
    proxyProtocolV2: Type.Optional(Type.Boolean({ description: 'Send PROXY protocol v2; fixed per listener.' })),
    members: Type.Array(LoadBalancerMemberV2, { maxItems: 256, description: 'The pool members.' }),
    healthCheck: Type.Optional(LoadBalancerHealthCheckV2),
  },
  { additionalProperties: false },
);

export const LoadBalancerListenerV2 = Type.Object(
  {
    name: Type.String({ maxLength: 63, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', description: 'A DNS label.' }),
    protocol: Type.Enum(['tcp', 'udp'], { description: 'The listener protocol; immutable per listener.' }),
    port: PortNumber('The listener port; immutable per listener.'),
    allowedCidrs: Type.Optional(Type.Array(Ipv4Prefix('An allowed source prefix.'), { maxItems: 64 })),
    idleTimeoutSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 86400, description: 'TCP only; 60 when omitted.' }),
    ),
    pool: LoadBalancerPoolV2,
  },
  { additionalProperties: false },
);
export type LoadBalancerListenerV2 = Type.Static<typeof LoadBalancerListenerV2>;

const specProperties = {
  publicIP: Type.Optional(Type.Boolean({ description: 'Whether to allocate a public IP.' })),
  listeners: Type.Array(LoadBalancerListenerV2, { minItems: 1, maxItems: 32, description: 'The listeners.' }),
};

export const LoadBalancerV2Spec = Type.Object(specProperties, { additionalProperties: false });
export type LoadBalancerV2Spec = Type.Static<typeof LoadBalancerV2Spec>;

const LoadBalancerV2CreateSpec = Type.Object(
  {
    ...specProperties,
    networkId: ID('The network the load balancer belongs to.'),
    vipAddress: Type.Optional(Ipv4Address('A requested VIP within the network prefix.')),
  },
  { additionalProperties: false },
);
type LoadBalancerV2CreateSpec = Type.Static<typeof LoadBalancerV2CreateSpec>;

export const LoadBalancerV2Create = Type.Object({ metadata: ResourceWriteMetadata, spec: LoadBalancerV2CreateSpec });
export type LoadBalancerV2Create = Type.Static<typeof LoadBalancerV2Create>;

export const LoadBalancerV2Update = Type.Object({ metadata: ResourceWriteMetadata, spec: LoadBalancerV2Spec });
export type LoadBalancerV2Update = Type.Static<typeof LoadBalancerV2Update>;

export const LoadBalancerV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: LoadBalancerV2Spec,
  status: Type.Object({
    regionId: Type.String(),
    networkId: Type.String(),
    vipAddress: Type.Optional(Type.String()),
    publicIP: Type.Optional(Type.String()),
  }),
});
export type LoadBalancerV2Read = Type.Static<typeof LoadBalancerV2Read>;

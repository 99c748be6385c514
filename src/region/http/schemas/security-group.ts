/** Security groups (upstream `securityGroupV2*`): rules for servers on one network. */
import Type from 'typebox';
import { ID, Ipv4Prefix, PortNumber, ProjectScopedResourceReadMetadata, ResourceWriteMetadata } from './common.ts';

export const SecurityGroupRuleV2 = Type.Object(
  {
    direction: Type.Enum(['ingress', 'egress'], { description: 'The direction of the rule.' }),
    protocol: Type.Enum(['any', 'icmp', 'tcp', 'udp', 'vrrp'], { description: 'The layer 3+ protocol.' }),
    port: Type.Optional(PortNumber('Layer 4 only; all ports when omitted.')),
    portMax: Type.Optional(PortNumber('The last port of a range starting at port.')),
    prefix: Type.Optional(Ipv4Prefix('The remote prefix; 0.0.0.0/0 when omitted.')),
  },
  { additionalProperties: false },
);
export type SecurityGroupRuleV2 = Type.Static<typeof SecurityGroupRuleV2>;

const specProperties = {
  rules: Type.Array(SecurityGroupRuleV2, { maxItems: 256, description: 'The rules; none denies all ingress.' }),
};

export const SecurityGroupV2Spec = Type.Object(specProperties, { additionalProperties: false });
export type SecurityGroupV2Spec = Type.Static<typeof SecurityGroupV2Spec>;

const SecurityGroupV2CreateSpec = Type.Object(
  { ...specProperties, networkId: ID('The network the security group belongs to.') },
  { additionalProperties: false },
);

export const SecurityGroupV2Create = Type.Object({ metadata: ResourceWriteMetadata, spec: SecurityGroupV2CreateSpec });
export type SecurityGroupV2Create = Type.Static<typeof SecurityGroupV2Create>;

export const SecurityGroupV2Update = Type.Object({ metadata: ResourceWriteMetadata, spec: SecurityGroupV2Spec });
export type SecurityGroupV2Update = Type.Static<typeof SecurityGroupV2Update>;

export const SecurityGroupV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: SecurityGroupV2Spec,
  status: Type.Object({ regionId: Type.String(), networkId: Type.String() }),
});
export type SecurityGroupV2Read = Type.Static<typeof SecurityGroupV2Read>;

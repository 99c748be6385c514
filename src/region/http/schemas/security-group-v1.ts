/**
 * Security groups as upstream's v1 API writes and reads them (`securityGroupWrite`, `securityGroupRead`): rules
 * with a port object (one number or a range) and a `cidr`, in an identity rather than on a network.
 */
import Type from 'typebox';
import { Ipv4Prefix, PortNumber, ProjectScopedResourceReadMetadata, ResourceWriteMetadata } from './common.ts';

const RulePort = Type.Object(
  {
    number: Type.Optional(PortNumber('The port.')),
    range: Type.Optional(
      Type.Object(
        { start: PortNumber('The first port.'), end: PortNumber('The last port.') },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, description: 'One port or a range; tcp and udp only; all ports when omitted.' },
);

export const SecurityGroupRuleV1 = Type.Object(
  {
    direction: Type.Enum(['ingress', 'egress'], { description: 'The direction of the rule.' }),
    protocol: Type.Enum(['any', 'icmp', 'tcp', 'udp', 'vrrp'], { description: 'The layer 3+ protocol.' }),
    port: Type.Optional(RulePort),
    cidr: Type.Optional(Ipv4Prefix('The remote prefix; 0.0.0.0/0 when omitted.')),
  },
  { additionalProperties: false },
);
export type SecurityGroupRuleV1 = Type.Static<typeof SecurityGroupRuleV1>;

const Spec = Type.Object(
  { rules: Type.Array(SecurityGroupRuleV1, { maxItems: 256, description: 'The rules; none denies all ingress.' }) },
  { additionalProperties: false },
);

export const SecurityGroupWrite = Type.Object({ metadata: ResourceWriteMetadata, spec: Spec });
export type SecurityGroupWrite = Type.Static<typeof SecurityGroupWrite>;

export const SecurityGroupRead = Type.Object({ metadata: ProjectScopedResourceReadMetadata, spec: Spec });
export type SecurityGroupRead = Type.Static<typeof SecurityGroupRead>;

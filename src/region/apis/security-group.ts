/** SecurityGroup: Neutron security group rules (OSI layer 3 and above) for servers on one network. */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { Conditions, IPv4Prefix, Port, commonSpec, envelope, regionResourceType } from './shared.ts';

export const securityGroupType = regionResourceType<SecurityGroup>('SecurityGroup', 'securitygroups');

const SecurityGroupRulePort = Type.Object(
  {
    number: Type.Optional(Port('One port.')),
    range: Type.Optional(
      Type.Object(
        { start: Port('The first port.'), end: Port('The last port.') },
        { 'x-kubernetes-validations': [{ rule: 'self.start <= self.end', message: 'start must not exceed end' }] },
      ),
    ),
  },
  {
    'x-kubernetes-validations': [
      { rule: 'has(self.number) != has(self.range)', message: 'exactly one of number or range is required' },
    ],
  },
);

export const SecurityGroupRule = Type.Object(
  {
    direction: Type.Enum(['ingress', 'egress'], { description: 'The traffic direction.' }),
    protocol: Type.Enum(['any', 'icmp', 'tcp', 'udp', 'vrrp'], { description: 'The layer 3+ protocol.' }),
    port: Type.Optional(SecurityGroupRulePort),
    cidr: Type.Optional(IPv4Prefix('The remote prefix; anywhere when omitted.')),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.port) || self.protocol == 'tcp' || self.protocol == 'udp'",
        message: 'ports apply to tcp and udp only',
        fieldPath: '.port',
      },
    ],
  },
);
export type SecurityGroupRule = Type.Static<typeof SecurityGroupRule>;

const SecurityGroupSpec = Type.Object({
  ...commonSpec,
  rules: Type.Optional(
    Type.Array(SecurityGroupRule, { maxItems: 256, description: 'The rules (at most 256); none denies all ingress.' }),
  ),
});
type SecurityGroupSpec = Type.Static<typeof SecurityGroupSpec>;

const SecurityGroupStatus = Type.Object({ conditions: Type.Optional(Conditions) });
type SecurityGroupStatus = Type.Static<typeof SecurityGroupStatus>;

export const SecurityGroupSchema = envelope('A security group.', {
  spec: SecurityGroupSpec,
  status: Type.Optional(SecurityGroupStatus),
});

export type SecurityGroup = Resource<SecurityGroupSpec, SecurityGroupStatus>;

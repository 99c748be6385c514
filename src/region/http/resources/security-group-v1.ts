/**
 * v1 security groups, pure: a v1 rule is the CRD rule itself (port number or range, cidr); the rules beyond the
 * schema are v2's (ports on tcp and udp only, a range in order), and the group lives in its identity, on no
 * network, as upstream's v1 has it.
 */
import type { Identity, SecurityGroup, SecurityGroupRule } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { SecurityGroupRead, SecurityGroupRuleV1, SecurityGroupWrite } from '../schemas/security-group-v1.ts';
import { readMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { defined } from '../../../util/defined.ts';

const LAYER4 = new Set(['tcp', 'udp']);

export function ruleV1Violations(rules: readonly SecurityGroupRuleV1[]): FieldViolation[] {
  return rules.flatMap((rule, i) => {
    const at = `/spec/rules/${String(i)}/port`;
    const { port } = rule;
    if (port === undefined) return [];
    if (!LAYER4.has(rule.protocol)) return [violation(at, 'layer4Only', 'ports apply to tcp and udp only')];
    if ((port.number === undefined) === (port.range === undefined)) {
      return [violation(at, 'oneOf', 'a port is either a number or a range')];
    }
    if (port.range !== undefined && port.range.end < port.range.start) {
      return [violation(`${at}/range/end`, 'notBeforeStart', 'end must not be less than start')];
    }
    return [];
  });
}

const rulesOf = (rules: readonly SecurityGroupRuleV1[]): SecurityGroupRule[] =>
  rules.map((r) => ({
    direction: r.direction,
    protocol: r.protocol,
    ...(r.port === undefined ? {} : { port: { ...r.port } }),
    ...defined({ cidr: r.cidr }),
  }));

export function securityGroupV1For(
  id: string,
  body: SecurityGroupWrite,
  identity: Identity,
  principal: Principal,
): SecurityGroup {
  const { organizationID, projectID, regionID } = tenancyOf(identity);
  const tenancy = { organizationID, projectID, regionID, identityID: identity.metadata.name };
  return resource('SecurityGroup', newMetadata(id, body.metadata, tenancy, principal, identity), {
    rules: rulesOf(body.spec.rules),
    ...defined({ tags: body.metadata.tags }),
  }) as SecurityGroup;
}

export function updatedSecurityGroupV1Spec(body: SecurityGroupWrite, current: SecurityGroup): SecurityGroup['spec'] {
  const { rules: _r, tags: _t, ...kept } = current.spec;
  return {
    ...kept,
    rules: rulesOf(body.spec.rules),
    ...defined({ tags: body.metadata.tags }),
  };
}

export function securityGroupV1Read(securityGroup: SecurityGroup): SecurityGroupRead {
  const rules = (securityGroup.spec.rules ?? []).map((r): SecurityGroupRuleV1 => ({
    direction: r.direction,
    protocol: r.protocol,
    ...(r.port === undefined ? {} : { port: { ...r.port } }),
    ...defined({ cidr: r.cidr }),
  }));
  return { metadata: readMetadataOf(securityGroup), spec: { rules } };
}

/** v2 security groups, pure: rule checks, the SecurityGroup a request makes (on its network), and the read. */
import type { Network, SecurityGroup, SecurityGroupRule } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import type { SecurityGroupRuleV2, SecurityGroupV2Read, SecurityGroupV2Spec } from '../schemas/security-group.ts';
import { readMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { defined } from '../../../util/defined.ts';

const LAYER4 = new Set(['tcp', 'udp']);

export function validateRules(rules: readonly SecurityGroupRuleV2[]): FieldViolation[] {
  const errors: FieldViolation[] = [];
  rules.forEach((rule, i) => {
    const at = `/spec/rules/${String(i)}`;
    if (!LAYER4.has(rule.protocol)) {
      if (rule.port !== undefined)
        errors.push(violation(`${at}/port`, 'layer4Only', 'ports apply to tcp and udp only'));
      if (rule.portMax !== undefined) {
        errors.push(violation(`${at}/portMax`, 'layer4Only', 'ports apply to tcp and udp only'));
      }
      return;
    }
    if (rule.portMax !== undefined && rule.port === undefined) {
      errors.push(violation(`${at}/portMax`, 'requiresPort', 'portMax needs port, the start of the range'));
    }
    if (rule.portMax !== undefined && rule.port !== undefined && rule.portMax < rule.port) {
      errors.push(violation(`${at}/portMax`, 'notBeforePort', 'portMax must not be less than port'));
    }
  });
  return errors;
}

export function rulesOf(rules: readonly SecurityGroupRuleV2[]): SecurityGroupRule[] {
  return rules.map((r) => {
    const port =
      r.port === undefined
        ? undefined
        : r.portMax === undefined || r.portMax === r.port
          ? { number: r.port }
          : { range: { start: r.port, end: r.portMax } };
    return {
      direction: r.direction,
      protocol: r.protocol,
      ...defined({ port, cidr: r.prefix }),
    };
  });
}

export function securityGroupFor(
  id: string,
  metadata: ResourceWriteMetadata,
  spec: SecurityGroupV2Spec,
  network: Network,
  principal: Principal,
): SecurityGroup {
  const tenancy = { ...tenancyOf(network), networkID: network.metadata.name };
  return resource('SecurityGroup', newMetadata(id, metadata, tenancy, principal, network), {
    rules: rulesOf(spec.rules),
    ...defined({ tags: metadata.tags }),
  }) as SecurityGroup;
}

export function securityGroupRead(securityGroup: SecurityGroup): SecurityGroupV2Read {
  const tenancy = tenancyOf(securityGroup);
  const rules = (securityGroup.spec.rules ?? []).map((r): SecurityGroupRuleV2 => {
    const port = r.port?.number ?? r.port?.range?.start;
    const portMax = r.port?.range?.end;
    return {
      direction: r.direction,
      protocol: r.protocol,
      ...defined({ port, portMax, prefix: r.cidr }),
    };
  });
  return {
    metadata: readMetadataOf(securityGroup),
    spec: { rules },
    status: { regionId: tenancy.regionID, networkId: tenancy.networkID },
  };
}

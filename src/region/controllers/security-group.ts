/**
 * The SecurityGroup controller: realises a security group and its rules through the provider's
 * SecurityGroupProvider, inside the project of the Identity it names by label. A workload (workload.ts): it
 * provisions once its Identity is Available.
 */
import type { Client } from '../../kube/client.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import {
  securityGroupType,
  type SecurityGroup,
  type SecurityGroupRule as SecurityGroupRuleSpec,
} from '../apis/security-group.ts';
import type { ProviderLookup, SecurityGroupProvider } from '../provider/contract.ts';
import type { SecurityGroupInput, SecurityGroupRule } from '../provider/inputs.ts';
import type { RegistrationOptions } from './metrics.ts';
import { IDENTITY_INDEX, byIdentity } from './watches.ts';
import { ownershipOf } from './ownership.ts';
import { provisionerReconciler, type Provisioner } from './provisioner.ts';
import { workloadController, workloadProvisioner } from './workload.ts';

export const SECURITY_GROUP_CONTROLLER = 'region-security-group';

/** "Anywhere", what an omitted rule CIDR means. */
const ANY_IPV4 = '0.0.0.0/0';

export function securityGroupInputOf(securityGroup: SecurityGroup): SecurityGroupInput | undefined {
  const ownership = ownershipOf(securityGroup);
  if (ownership === undefined) return undefined;
  return { ...ownership, id: securityGroup.metadata.name, rules: (securityGroup.spec.rules ?? []).map(ruleOf) };
}

function ruleOf(rule: SecurityGroupRuleSpec): SecurityGroupRule {
  const base = { direction: rule.direction, protocol: rule.protocol, cidr: rule.cidr ?? ANY_IPV4 };
  const { port } = rule;
  if (port?.number !== undefined) return { ...base, port: { number: port.number } };
  if (port?.range !== undefined) return { ...base, port: { start: port.range.start, end: port.range.end } };
  return base;
}

export function securityGroupProvisioner(
  client: Client,
  lookup: ProviderLookup<SecurityGroupProvider>,
): Provisioner<SecurityGroup, SecurityGroupProvider, undefined> {
  return workloadProvisioner(client, lookup, {
    type: securityGroupType,
    inputOf: securityGroupInputOf,
    create: (provider, ctx, identity, input) => provider.createSecurityGroup(ctx, identity, input),
    delete: (provider, ctx, identity, input) => provider.deleteSecurityGroup(ctx, identity, input),
  });
}

/** Needs the identity index on SecurityGroups (registerRegionControllers registers it). */
export function registerSecurityGroupController(
  manager: Manager,
  lookup: ProviderLookup<SecurityGroupProvider>,
  { controller: options = {}, observe }: RegistrationOptions = {},
): Controller {
  manager.index(securityGroupType, IDENTITY_INDEX, byIdentity);
  return workloadController(manager, SECURITY_GROUP_CONTROLLER, securityGroupType)
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => securityGroupProvisioner(client, lookup), observe));
}

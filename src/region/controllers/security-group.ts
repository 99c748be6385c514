/**
 * The SecurityGroup controller: realises a security group and its rules through the provider's
 * SecurityGroupProvider, inside the project of the Identity it names by label. A workload (workload.ts): it
 * provisions once its Identity is Available.
 */
import type { Client } from '../../kube/client.ts';
import { ignoreNotFound } from '../../kube/errors.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import {
  securityGroupType,
  type SecurityGroup,
  type SecurityGroupRule as SecurityGroupRuleSpec,
} from '../apis/security-group.ts';
import { serverType, serversUsingSecurityGroup } from '../apis/server.ts';
import { labels } from '../apis/shared.ts';
import type { ProviderLookup, SecurityGroupProvider } from '../provider/contract.ts';
import type { SecurityGroupInput, SecurityGroupRule } from '../provider/inputs.ts';
import type { RegistrationOptions } from './metrics.ts';
import { serversGate } from './decide.ts';
import { IDENTITY_INDEX, byIdentity } from './watches.ts';
import { identityIDOf, ownershipOf } from './ownership.ts';
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
  const workload = workloadProvisioner(client, lookup, {
    type: securityGroupType,
    inputOf: securityGroupInputOf,
    create: (provider, ctx, identity, input) => provider.createSecurityGroup(ctx, identity, input),
    delete: (provider, ctx, identity, input) => provider.deleteSecurityGroup(ctx, identity, input),
  });
  return { ...workload, holdDeletion: async (group) => serversGate(await serversUsing(client, group)) };
}

/**
 * The servers that name the group, read fresh (a stale list would send the delete into Neutron's 409s). A server
 * can name only a group of its own identity, so that label narrows the read.
 */
async function serversUsing(client: Client, group: SecurityGroup): Promise<string[]> {
  const identityID = identityIDOf(group);
  if (identityID === undefined) return [];
  const servers = await ignoreNotFound(
    client.list(serverType, {
      namespace: group.metadata.namespace ?? '',
      labelSelector: `${labels.identityID}=${identityID}`,
    }),
  );
  return serversUsingSecurityGroup(servers?.items ?? [], group.metadata.name).map((s) => s.metadata.name);
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

/**
 * A region SecurityGroup in Neutron (docs/spec/upstream-region.md §Deterministic names): the group `securitygroup-{id}`
 * in the identity's project, made with the PRIVILEGED client (region credentials bound to that project,
 * docs/spec/upstream-region.md §Trust / scoping), its rules converged by synthetic key (decide.ts). The group is
 * re-found by exact name before it is created, so an interrupted pass converges with one group; rules are re-read every
 * pass, so an interrupted rule change finishes on the next.
 */
import * as neutron from '../../../openstack/network.ts';
import { ResourceKind } from '../../provider/errors.ts';
import type { SecurityGroupInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { securityGroupName } from '../names.ts';
import type { PrivilegedClient, RegionClientSet } from '../principals.ts';
import type { RealisedIdentity } from '../realised.ts';
import { planRules, ruleCreate } from './decide.ts';
import { gone, Steps } from '../steps.ts';

/** What security group calls need; a NetworkDeps will do. */
export interface SecurityGroupDeps {
  readonly clients: RegionClientSet;
  readonly signal: AbortSignal;
}

export async function createSecurityGroup(
  deps: SecurityGroupDeps,
  identity: RealisedIdentity,
  securityGroup: SecurityGroupInput,
): Promise<Outcome<undefined>> {
  const client = deps.clients.privileged(identity.projectID).client('network');
  const step = new Steps(deps.signal, 'create security group', ResourceKind.SecurityGroup);
  try {
    const group = await step.run('ensure group', () => ensureGroup(client, identity, securityGroup));
    const rules = await step.run('list rules', () =>
      neutron.listSecurityGroupRules(client, { securityGroupID: group.id }),
    );
    const plan = planRules(securityGroup.rules, rules);
    for (const id of plan.remove) {
      await step.run('delete rule', () => gone(neutron.deleteSecurityGroupRule(client, id)));
    }
    for (const rule of plan.add) {
      await step.run('create rule', () =>
        neutron.createSecurityGroupRule(client, { security_group_id: group.id, ...ruleCreate(rule) }),
      );
    }
    return Outcome.ok();
  } catch (error) {
    return step.fail(error);
  }
}

export async function deleteSecurityGroup(
  deps: SecurityGroupDeps,
  identity: RealisedIdentity | undefined,
  securityGroup: SecurityGroupInput,
): Promise<Outcome<undefined>> {
  // Never realised: there is no project, so there can be no group.
  if (identity === undefined) return Outcome.ok();
  const client = deps.clients.privileged(identity.projectID).client('network');
  const step = new Steps(deps.signal, 'delete security group', ResourceKind.SecurityGroup);
  try {
    const group = await step.run('find group', () => findGroup(client, identity, securityGroup));
    // A group a port still uses answers 409: a conflict, retried until the server lets go of it.
    if (group !== undefined) await step.run('delete group', () => gone(neutron.deleteSecurityGroup(client, group.id)));
    return Outcome.ok();
  } catch (error) {
    return step.fail(error);
  }
}

type Neutron = PrivilegedClient<'network'>;

function findGroup(
  client: Neutron,
  identity: RealisedIdentity,
  securityGroup: SecurityGroupInput,
): Promise<neutron.SecurityGroup | undefined> {
  return neutron.findSecurityGroupByName(client, securityGroupName(securityGroup.id), {
    projectID: identity.projectID,
  });
}

async function ensureGroup(
  client: Neutron,
  identity: RealisedIdentity,
  securityGroup: SecurityGroupInput,
): Promise<neutron.SecurityGroup> {
  const existing = await findGroup(client, identity, securityGroup);
  if (existing !== undefined) return existing;
  return neutron.createSecurityGroup(client, { name: securityGroupName(securityGroup.id) });
}

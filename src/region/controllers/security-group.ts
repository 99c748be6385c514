/**
 * The SecurityGroup controller: realises a security group and its rules through the provider's
 * SecurityGroupProvider, inside the project of the Identity it names by label, once that Identity is Available.
 * Its delete always goes to the provider, which treats a never-realised identity as proof that nothing exists.
 */
import type { Client } from '../../kube/client.ts';
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { ReconcileContext, Request, Result } from '../../runtime/types.ts';
import { identityType } from '../apis/identity.ts';
import { securityGroupType, type SecurityGroup } from '../apis/security-group.ts';
import type { ProviderLookup, SecurityGroupProvider } from '../provider/contract.ts';
import { gateOnIdentity } from './gate.ts';
import { securityGroupInputOf, workloadIdentityOf } from './inputs.ts';
import type { RowObserver } from './metrics.ts';
import { provisionerReconciler, reconcileProvisioned, type Provisioner } from './provisioner.ts';
import { becameAvailable, specOrDeletionChanged, usersOf } from './watches.ts';

export const SECURITY_GROUP_CONTROLLER = 'region-security-group';

export function securityGroupProvisioner(
  client: Client,
  lookup: ProviderLookup<SecurityGroupProvider>,
): Provisioner<SecurityGroup, SecurityGroupProvider, undefined> {
  return {
    type: securityGroupType,
    lookup,
    bind(securityGroup) {
      const identity = workloadIdentityOf(securityGroup);
      const input = securityGroupInputOf(securityGroup);
      if (identity === undefined || input === undefined) return undefined;
      return {
        regionID: input.regionID,
        gate: () => gateOnIdentity(client, securityGroup),
        provision: async (provider, ctx) => ({ outcome: await provider.createSecurityGroup(ctx, identity, input) }),
        deprovision: (provider, ctx) => provider.deleteSecurityGroup(ctx, identity, input),
      };
    },
  };
}

export function reconcileSecurityGroup(
  client: Client,
  lookup: ProviderLookup<SecurityGroupProvider>,
  req: Request,
  ctx: ReconcileContext,
  observe?: RowObserver,
): Promise<Result> {
  return reconcileProvisioned(client, securityGroupProvisioner(client, lookup), req, ctx, observe);
}

/** Needs the identity index on SecurityGroups (registerRegionControllers registers it). */
export function registerSecurityGroupController(
  manager: Manager,
  lookup: ProviderLookup<SecurityGroupProvider>,
  options: ControllerOptions = {},
  observe?: RowObserver,
): Controller {
  return manager
    .controller(SECURITY_GROUP_CONTROLLER)
    .for(securityGroupType, { clusters: 'management', predicates: [specOrDeletionChanged] })
    .watches(identityType, usersOf(manager.list.bind(manager), securityGroupType), {
      clusters: 'management',
      predicates: [becameAvailable],
    })
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => securityGroupProvisioner(client, lookup), observe));
}

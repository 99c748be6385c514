/** The contract's SecurityGroupProvider for one region: a group and its rules in the identity's project. */
import type { Client } from '../../../kube/client.ts';
import type { SecurityGroupProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { IdentityRecords } from '../identity/record.ts';
import { realisedForCreate } from '../realised.ts';
import type { RegionContext } from '../registry.ts';
import { createSecurityGroup, deleteSecurityGroup, type SecurityGroupDeps } from './lifecycle.ts';

interface SecurityGroupProviderDeps {
  /** Where OpenstackIdentity records are kept. */
  readonly kube: Client;
}

export function securityGroupProviderFor(
  region: RegionContext,
  deps: SecurityGroupProviderDeps,
): SecurityGroupProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const groupDeps = (signal: AbortSignal): SecurityGroupDeps => ({ clients: region.clients, signal });
  const forCreate = async (identity: IdentityInput) =>
    realisedForCreate(await records.realised(identity.id), identity.id);

  return {
    createSecurityGroup: async (ctx, identity, securityGroup) =>
      createSecurityGroup(groupDeps(ctx.signal), await forCreate(identity), securityGroup),
    deleteSecurityGroup: async (ctx, identity, securityGroup) =>
      deleteSecurityGroup(groupDeps(ctx.signal), await records.realised(identity.id), securityGroup),
  };
}

/**
 * The contract's LoadBalancerProvider for one region: resolves the identity's own user from its OpenstackIdentity
 * record (the one place its password lives) and runs the pass as that user. A record without a project, user and
 * password means the identity's user was never made, so no load balancer of it can exist: a delete is done.
 */
import type { Client } from '../../../kube/client.ts';
import type { LoadBalancerProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { ResourceKind, TransientError } from '../../provider/errors.ts';
import { IdentityRecords, identityCredentialsOf } from '../identity/record.ts';
import type { RegionContext } from '../registry.ts';
import { createLoadBalancer, deleteLoadBalancer, type OwnUserIdentity } from './lifecycle.ts';

export interface LoadBalancerProviderDeps {
  /** Where OpenstackIdentity records live (the region service's namespace comes from the RegionContext). */
  readonly kube: Client;
}

export function loadBalancerProviderFor(region: RegionContext, deps: LoadBalancerProviderDeps): LoadBalancerProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const ownUser = async (identity: IdentityInput): Promise<OwnUserIdentity | undefined> => {
    const record = await records.get(identity.id);
    const credentials = record === undefined ? undefined : identityCredentialsOf(record);
    return credentials === undefined
      ? undefined
      : { identityID: identity.id, projectID: credentials.projectID, credentials };
  };
  const lbDeps = (signal: AbortSignal) => ({ clients: region.clients, config: region.config, signal });
  return {
    createLoadBalancer: async (ctx, identity, loadBalancer) => {
      const user = await ownUser(identity);
      // As provider.ts has it: the controller gates on the identity, so reaching here first is transient.
      if (user === undefined) {
        throw new TransientError(`identity ${identity.id} has no user in its project yet`, {
          resource: ResourceKind.Identity,
        });
      }
      return createLoadBalancer(lbDeps(ctx.signal), user, loadBalancer);
    },
    deleteLoadBalancer: async (ctx, identity, loadBalancer) =>
      deleteLoadBalancer(lbDeps(ctx.signal), await ownUser(identity), loadBalancer),
  };
}

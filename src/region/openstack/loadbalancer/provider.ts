/**
 * The contract's LoadBalancerProvider for one region: resolves the identity's own user from its OpenstackIdentity
 * record (the one place its password lives) and runs the pass as that user.
 */
import type { Client } from '../../../kube/client.ts';
import type { LoadBalancerProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { IdentityRecords, identityCredentialsOf } from '../identity-record.ts';
import type { RegionContext } from '../providers.ts';
import { createLoadBalancer, deleteLoadBalancer, type OwnUserIdentity } from './loadbalancer.ts';

export interface LoadBalancerProviderDeps {
  /** Where OpenstackIdentity records live (the region service's namespace comes from the RegionContext). */
  readonly kube: Client;
}

/** The message of a create whose identity has no user yet: the controller's identity gate makes this rare. */
export const IDENTITY_NOT_REALISED = 'identity-not-realised';

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
      // The identity's user is made before its identity is Available; until then there is no one to act as.
      if (user === undefined) return Outcome.yield(IDENTITY_NOT_REALISED);
      return createLoadBalancer(lbDeps(ctx.signal), user, loadBalancer);
    },
    deleteLoadBalancer: async (ctx, identity, loadBalancer) =>
      deleteLoadBalancer(lbDeps(ctx.signal), await ownUser(identity), loadBalancer),
  };
}

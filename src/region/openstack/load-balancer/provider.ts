/**
 * The contract's LoadBalancerProvider for one region: resolves the identity's own user from its OpenstackIdentity
 * record (the one place its password lives) and runs the pass as that user. A record without a project, user and
 * password means the identity's user was never made, so no load balancer of it can exist: a delete is done.
 */
import type { Client } from '../../../kube/client.ts';
import type { LoadBalancerProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { IdentityRecords } from '../identity/record.ts';
import { realisedForCreate } from '../realised.ts';
import type { RegionContext } from '../registry.ts';
import { createLoadBalancer, deleteLoadBalancer } from './lifecycle.ts';

interface LoadBalancerProviderDeps {
  /** Where OpenstackIdentity records live (the region service's namespace comes from the RegionContext). */
  readonly kube: Client;
}

export function loadBalancerProviderFor(region: RegionContext, deps: LoadBalancerProviderDeps): LoadBalancerProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const ownUser = (identity: IdentityInput) => records.withUser(identity.id);
  const lbDeps = (signal: AbortSignal) => ({ clients: region.clients, config: region.config, signal });
  return {
    createLoadBalancer: async (ctx, identity, loadBalancer) =>
      createLoadBalancer(lbDeps(ctx.signal), realisedForCreate(await ownUser(identity), identity.id), loadBalancer),
    deleteLoadBalancer: async (ctx, identity, loadBalancer) =>
      deleteLoadBalancer(lbDeps(ctx.signal), await ownUser(identity), loadBalancer),
  };
}

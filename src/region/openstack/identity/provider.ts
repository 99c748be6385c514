/** The contract's IdentityProvider for one region: a project, a user and its credentials per identity. */
import type { IdentityProvider } from '../../provider/contract.ts';
import type { RegionContext } from '../registry.ts';
import { createIdentity, deleteIdentity, type IdentityDeps } from './lifecycle.ts';

export function identityProviderFor(region: RegionContext, deps: IdentityDeps): IdentityProvider {
  return {
    createIdentity: (ctx, identity) => createIdentity(region, deps, ctx, identity),
    deleteIdentity: (ctx, identity) => deleteIdentity(region, deps, ctx, identity),
  };
}

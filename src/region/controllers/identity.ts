/**
 * The Identity controller: realises an identity through the provider's IdentityProvider (Keystone project, user,
 * application credential and the rest, all the provider's business). Deleting an identity deletes the provider
 * project every workload of it lives in, so the deletion first deletes every resource labelled with the identity,
 * in cascade order (cascade.ts), and waits until they are gone; otherwise their cloud resources would leak out of
 * reach.
 */
import type { Client } from '../../kube/client.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { identityType, type Identity } from '../apis/identity.ts';
import { identityDependentTypes } from '../apis/index.ts';
import type { IdentityInput } from '../provider/inputs.ts';
import type { IdentityProvider, ProviderLookup } from '../provider/contract.ts';
import { cascade, cascadeVerdict, identityDependents } from './cascade.ts';
import { ownershipOf } from './ownership.ts';
import type { RegistrationOptions } from './metrics.ts';
import { provisionerReconciler, type Provisioner } from './provisioner.ts';
import { deleted, identityOf, specOrDeletionChanged } from './watches.ts';

export const IDENTITY_CONTROLLER = 'region-identity';

export function identityInputOf(identity: Identity): IdentityInput | undefined {
  const ownership = ownershipOf(identity);
  return ownership === undefined ? undefined : { ...ownership, id: identity.metadata.name };
}

export function identityProvisioner(
  client: Client,
  lookup: ProviderLookup<IdentityProvider>,
): Provisioner<Identity, IdentityProvider, undefined> {
  return {
    type: identityType,
    lookup,
    bind(identity) {
      const input = identityInputOf(identity);
      if (input === undefined) return undefined;
      return {
        regionID: input.regionID,
        provision: async (provider, ctx) => ({ outcome: await provider.createIdentity(ctx, input) }),
        deprovision: (provider, ctx) => provider.deleteIdentity(ctx, input),
      };
    },
    holdDeletion: async (identity) => cascadeVerdict(await cascade(client, identityDependents(identity)), 'identity'),
  };
}

export function registerIdentityController(
  manager: Manager,
  lookup: ProviderLookup<IdentityProvider>,
  { controller: options = {}, observe }: RegistrationOptions = {},
): Controller {
  const builder = manager
    .controller(IDENTITY_CONTROLLER)
    .for(identityType, { clusters: 'management', predicates: [specOrDeletionChanged] });
  // A held deletion re-checks every 10 s anyway; the watches make it prompt.
  for (const type of identityDependentTypes) {
    builder.watches(type, identityOf, { clusters: 'management', predicates: [deleted] });
  }
  return builder
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => identityProvisioner(client, lookup), observe));
}

/**
 * The Network controller: realises a tenant network through the provider's NetworkProvider, inside the project of
 * the Identity it names by label, and records the provider's ids in `status.openstack` (for display; the provider
 * re-finds everything by name). It provisions only once that Identity is Available; its delete always goes to the
 * provider, which treats a never-realised identity as proof that nothing exists.
 */
import type { Client } from '../../kube/client.ts';
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { ReconcileContext, Request, Result } from '../../runtime/types.ts';
import { identityType } from '../apis/identity.ts';
import { networkType, type Network } from '../apis/network.ts';
import type { NetworkProvider, ProviderLookup } from '../provider/contract.ts';
import type { NetworkRealisation } from '../provider/inputs.ts';
import { gateOnIdentity } from './gate.ts';
import { networkInputOf, networkStatusOf, workloadIdentityOf } from './inputs.ts';
import type { RowObserver } from './metrics.ts';
import { provisionerReconciler, reconcileProvisioned, type Provisioner } from './provisioner.ts';
import { becameAvailable, specOrDeletionChanged, usersOf } from './watches.ts';

export const NETWORK_CONTROLLER = 'region-network';

export function networkProvisioner(
  client: Client,
  lookup: ProviderLookup<NetworkProvider>,
): Provisioner<Network, NetworkProvider, NetworkRealisation> {
  return {
    type: networkType,
    lookup,
    bind(network) {
      const identity = workloadIdentityOf(network);
      const input = networkInputOf(network);
      if (identity === undefined || input === undefined) return undefined;
      return {
        regionID: input.regionID,
        gate: () => gateOnIdentity(client, network),
        provision: async (provider, ctx) => ({ outcome: await provider.createNetwork(ctx, identity, input) }),
        deprovision: (provider, ctx) => provider.deleteNetwork(ctx, identity, input),
      };
    },
    realised: (realisation) => ({ openstack: networkStatusOf(realisation) }),
  };
}

export function reconcileNetwork(
  client: Client,
  lookup: ProviderLookup<NetworkProvider>,
  req: Request,
  ctx: ReconcileContext,
  observe?: RowObserver,
): Promise<Result> {
  return reconcileProvisioned(client, networkProvisioner(client, lookup), req, ctx, observe);
}

/** Needs the identity index on Networks (registerRegionControllers registers it). */
export function registerNetworkController(
  manager: Manager,
  lookup: ProviderLookup<NetworkProvider>,
  options: ControllerOptions = {},
  observe?: RowObserver,
): Controller {
  return manager
    .controller(NETWORK_CONTROLLER)
    .for(networkType, { clusters: 'management', predicates: [specOrDeletionChanged] })
    .watches(identityType, usersOf(manager.list.bind(manager), networkType), {
      clusters: 'management',
      predicates: [becameAvailable],
    })
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => networkProvisioner(client, lookup), observe));
}

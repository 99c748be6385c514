/**
 * The Network controller: realises a tenant network through the provider's NetworkProvider, inside the project of
 * the Identity it names by label, and records the provider's ids in `status.openstack` (for display; the provider
 * re-finds everything by name). A workload (workload.ts): it provisions once its Identity is Available. Its delete
 * waits while another service holds a reference on it (upstream core: such a reference blocks deletion), then
 * deletes what is on it (servers and load balancers, then security groups and volumes; cascade.ts) and waits until
 * they are gone, so Neutron is never asked to delete a network that is still in use.
 */
import type { Client } from '../../kube/client.ts';
import type { Controller } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import {
  DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  DEFAULT_RESERVED_PREFIX_LENGTH,
  networkType,
  type Network,
  type NetworkStatus,
} from '../apis/network.ts';
import type { NetworkProvider, ProviderLookup } from '../provider/contract.ts';
import type { NetworkInput, NetworkRealisation } from '../provider/inputs.ts';
import { or } from '../../runtime/predicates.ts';
import { referencesOf } from '../apis/shared.ts';
import { CASCADE_STAGES, cascade, cascadeVerdict, networkDependents } from './cascade.ts';
import { referencesGate } from './decide.ts';
import type { RegistrationOptions } from './metrics.ts';
import { ownershipOf } from './ownership.ts';
import { provisionerReconciler, type Provisioner } from './provisioner.ts';
import { IDENTITY_INDEX, byIdentity, deleted, networkOf, referenceReleased, specOrDeletionChanged } from './watches.ts';
import { workloadController, workloadProvisioner } from './workload.ts';
import { defined } from '../../util/defined.ts';

export const NETWORK_CONTROLLER = 'region-network';

export function networkInputOf(network: Network): NetworkInput | undefined {
  const ownership = ownershipOf(network);
  if (ownership === undefined) return undefined;
  const { spec } = network;
  // The API server applies these schema defaults; the embedded store and older objects may not carry them.
  const reservations = {
    prefixLength: spec.reservations?.prefixLength ?? DEFAULT_RESERVED_PREFIX_LENGTH,
    providerReservedPrefixLength:
      spec.reservations?.providerReservedPrefixLength ?? DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  };
  return {
    ...ownership,
    id: network.metadata.name,
    prefix: spec.prefix,
    reservations,
    dnsNameservers: spec.dnsNameservers ?? [],
    routes: (spec.routes ?? []).map((r) => ({ prefix: r.prefix, nextHop: r.nextHop })),
  };
}

/** `Network.status.openstack` from the provider's realisation; absent fields stay absent. */
export function networkStatusOf(realisation: NetworkRealisation): NonNullable<NetworkStatus['openstack']> {
  const { networkID, subnetID, vlanID, storageRange } = realisation;
  return {
    networkID,
    subnetID,
    ...defined({ vlanID }),
    ...(storageRange === undefined
      ? {}
      : { storageRange: { startIP: storageRange.startIP, endIP: storageRange.endIP } }),
  };
}

export function networkProvisioner(
  client: Client,
  lookup: ProviderLookup<NetworkProvider>,
): Provisioner<Network, NetworkProvider, NetworkRealisation> {
  const workload = workloadProvisioner(client, lookup, {
    type: networkType,
    inputOf: networkInputOf,
    create: (provider, ctx, identity, input) => provider.createNetwork(ctx, identity, input),
    delete: (provider, ctx, identity, input) => provider.deleteNetwork(ctx, identity, input),
    realised: (realisation) => ({ openstack: networkStatusOf(realisation) }),
  });
  // Another service's reference (the reference API's finalizer) blocks the delete until it is released.
  const holdDeletion = async (network: Network) =>
    referencesGate(referencesOf(network)) ??
    cascadeVerdict(await cascade(client, networkDependents(network)), 'network');
  return { ...workload, holdDeletion };
}

/** Needs the identity index on Networks (registerRegionControllers registers it). */
export function registerNetworkController(
  manager: Manager,
  lookup: ProviderLookup<NetworkProvider>,
  { controller: options = {}, observe }: RegistrationOptions = {},
): Controller {
  manager.index(networkType, IDENTITY_INDEX, byIdentity);
  const builder = workloadController(manager, NETWORK_CONTROLLER, networkType, [
    or(specOrDeletionChanged, referenceReleased),
  ]);
  // A held deletion re-checks every 10 s anyway; the watches make it prompt.
  for (const type of CASCADE_STAGES.flat().filter((t) => t !== networkType)) {
    builder.watches(type, networkOf, { clusters: 'management', predicates: [deleted] });
  }
  return builder
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => networkProvisioner(client, lookup), observe));
}

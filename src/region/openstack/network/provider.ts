/**
 * The contract's NetworkProvider for one region: a network, its subnet and router in the identity's project, made
 * with the privileged credential; a VLAN provider network when the region names a physical network.
 */
import type { Client } from '../../../kube/client.ts';
import type { NetworkProvider } from '../../provider/contract.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { VlanAllocator } from '../../vlan/allocator.ts';
import type { InventoryCaches } from '../inventory/caches.ts';
import { IdentityRecords } from '../identity/record.ts';
import { realisedForCreate } from '../realised.ts';
import type { RegionContext } from '../registry.ts';
import { createNetwork, deleteNetwork, listExternalNetworks, type NetworkDeps } from './lifecycle.ts';

interface NetworkProviderDeps {
  /** Where OpenstackIdentity and VLANAllocation records are kept. */
  readonly kube: Client;
  /** The external networks a region exports are read through its inventory cache. */
  readonly inventory: InventoryCaches;
}

export function networkProviderFor(region: RegionContext, deps: NetworkProviderDeps): NetworkProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const physicalNetwork = region.config.network?.providerNetworks?.physicalNetwork;
  const vlans =
    physicalNetwork === undefined
      ? undefined
      : new VlanAllocator({
          client: deps.kube,
          namespace: region.namespace,
          regionName: region.region.metadata.name,
          providerNetworks: { ...region.config.network?.providerNetworks, physicalNetwork },
        });
  const networkDeps = (signal: AbortSignal): NetworkDeps => ({
    clients: region.clients,
    config: region.config,
    vlans,
    signal,
  });
  const forCreate = async (identity: IdentityInput) =>
    realisedForCreate(await records.realised(identity.id), identity.id);

  return {
    createNetwork: async (ctx, identity, network) =>
      createNetwork(networkDeps(ctx.signal), await forCreate(identity), network),
    deleteNetwork: async (ctx, identity, network) =>
      deleteNetwork(networkDeps(ctx.signal), await records.realised(identity.id), network),
    listExternalNetworks: (ctx) =>
      listExternalNetworks(networkDeps(ctx.signal), async () => {
        return (await deps.inventory.for(region).externalNetworks.list()).items;
      }),
  };
}

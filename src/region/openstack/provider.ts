/**
 * The OpenStack provider for one region: the capabilities built so far, composed over one RegionContext. It grows a
 * capability at a time (identities, networks, security groups, servers, load balancers, volumes and the inventory), and
 * controllers look up only the capability they drive, so nothing here pretends to implement what it does not.
 *
 * Workload calls resolve the identity's OpenstackIdentity record first: no record, or one without a project, means
 * the identity was never realised, so a delete is done and a create waits for the identity (the controllers gate on
 * it; reaching here anyway is a transient state, not a user error).
 */
import type { Client } from '../../kube/client.ts';
import { systemClock, type Clock } from '../../util/clock.ts';
import type { Logger } from 'pino';
import { TransientError } from '../provider/errors.ts';
import type { ProviderLookup, RegionProvider } from '../provider/contract.ts';
import type { IdentityInput } from '../provider/inputs.ts';
import { Outcome } from '../provider/outcome.ts';
import { identityProviderFor } from './identity/lifecycle.ts';
import type { IdentitySecretSource } from './identity/secrets.ts';
import { IdentityRecords } from './identity/record.ts';
import { createNetwork, deleteNetwork, listExternalNetworks, type NetworkDeps } from './network/lifecycle.ts';
import type { RegionContext } from './registry.ts';
import { realisedForCreate } from './realised.ts';
import { RegionConfigError, RegionProviderKindError } from './region-config.ts';
import { InventoryCaches } from './inventory/caches.ts';
import { inventoryProviderFor } from './inventory/provider.ts';
import { loadBalancerProviderFor } from './load-balancer/provider.ts';
import { createSecurityGroup, deleteSecurityGroup } from './security-group/lifecycle.ts';
import { serverProviderFor } from './server/provider.ts';
import { volumeProviderFor } from './volume/provider.ts';
import { VlanAllocator } from '../vlan/allocator.ts';

interface ProviderDeps {
  /** Where OpenstackIdentity and VLANAllocation records are kept (the region service's store). */
  readonly kube: Client;
  /** Flavor, volume type and image caches, one per process, kept per region client set. */
  readonly inventory: InventoryCaches;
  readonly secrets?: IdentitySecretSource | undefined;
  readonly log?: Logger | undefined;
  /** Defaults to the system clock. */
  readonly clock?: Clock | undefined;
  /** Told each server decision-table row a call took (R1–R4″, the rebuild answer), e.g. to count them. */
  readonly observeServerRow?: ((row: string) => void) | undefined;
}

function openstackProvider(region: RegionContext, deps: ProviderDeps): RegionProvider {
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
    ...identityProviderFor(region, deps),
    ...volumeProviderFor(region, deps),
    ...loadBalancerProviderFor(region, deps),
    ...serverProviderFor(region, {
      kube: deps.kube,
      clock: deps.clock ?? systemClock,
      log: deps.log,
      observeRow: deps.observeServerRow,
    }),
    ...inventoryProviderFor(region, { caches: deps.inventory, log: deps.log }),
    createNetwork: async (ctx, identity, network) =>
      createNetwork(networkDeps(ctx.signal), await forCreate(identity), network),
    deleteNetwork: async (ctx, identity, network) =>
      deleteNetwork(networkDeps(ctx.signal), await records.realised(identity.id), network),
    listExternalNetworks: (ctx) => listExternalNetworks(networkDeps(ctx.signal)),
    createSecurityGroup: async (ctx, identity, securityGroup) =>
      createSecurityGroup(networkDeps(ctx.signal), await forCreate(identity), securityGroup),
    deleteSecurityGroup: async (ctx, identity, securityGroup) =>
      deleteSecurityGroup(networkDeps(ctx.signal), await records.realised(identity.id), securityGroup),
  };
}

/**
 * What the controllers look providers up with, over the region registry's lookup. An unknown region stays
 * ResourceNotFoundError; a broken region configuration is transient (an operator's fix recovers it); a region
 * another provider serves answers every lifecycle call with a terminal outcome.
 */
export function openstackLookup(
  lookup: (regionID: string, signal: AbortSignal) => Promise<RegionContext>,
  deps: Omit<ProviderDeps, 'inventory'> & { readonly inventory?: InventoryCaches },
): ProviderLookup<RegionProvider> {
  // Without caches of the caller's, one set for this lookup: flavors and volume types cached, no image cache.
  const clock = deps.clock ?? systemClock;
  const full = { ...deps, inventory: deps.inventory ?? new InventoryCaches({ clock, imageCache: false }) };
  return async (regionID, signal) => {
    try {
      return openstackProvider(await lookup(regionID, signal), full);
    } catch (error) {
      if (error instanceof RegionProviderKindError) return refusingProvider(error);
      if (error instanceof RegionConfigError) throw new TransientError('region configuration', { cause: error });
      throw error;
    }
  };
}

function refusingProvider(cause: RegionProviderKindError): RegionProvider {
  const refused = () => Promise.resolve(Outcome.terminal('Errored', 'the region is not an OpenStack region', cause));
  const rejected = () => Promise.reject(cause);
  return {
    createIdentity: refused,
    deleteIdentity: refused,
    createNetwork: refused,
    deleteNetwork: refused,
    listExternalNetworks: rejected,
    createSecurityGroup: refused,
    deleteSecurityGroup: refused,
    createLoadBalancer: refused,
    deleteLoadBalancer: refused,
    createServer: refused,
    rebootServer: refused,
    startServer: refused,
    stopServer: refused,
    deleteServer: refused,
    updateServerState: rejected,
    pollServers: rejected,
    createConsoleSession: rejected,
    getConsoleOutput: rejected,
    createSnapshot: rejected,
    createVolume: refused,
    deleteVolume: refused,
    attachVolume: refused,
    detachVolume: refused,
    region: rejected,
    flavors: rejected,
    volumeClasses: rejected,
    queryImages: () => {
      throw cause;
    },
    getImage: rejected,
    createImage: rejected,
    deleteImage: rejected,
    recordSnapshot: () => undefined,
  };
}

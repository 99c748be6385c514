/**
 * The OpenStack provider for one region: each kind's capability (`<kind>/provider.ts`), composed over one RegionContext. It grows a
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
import { isNotFound, UnauthorizedError } from '../../openstack/errors.ts';
import { getProject } from '../../openstack/identity.ts';
import { CredentialsRejectedError, ResourceKind, TransientError } from '../provider/errors.ts';
import type { CallContext, ProviderLookup, RegionProvider } from '../provider/contract.ts';
import type {
  IdentityInput,
  LoadBalancerInput,
  NetworkInput,
  SecurityGroupInput,
  ServerInput,
  VolumeInput,
} from '../provider/inputs.ts';
import { Outcome } from '../provider/outcome.ts';
import { identityProviderFor } from './identity/provider.ts';
import type { IdentitySecretSource } from './identity/secrets.ts';
import { IdentityRecords } from './identity/record.ts';
import { networkProviderFor } from './network/provider.ts';
import type { RegionContext } from './registry.ts';
import { RegionConfigError, RegionProviderKindError } from './region-config.ts';
import { InventoryCaches } from './inventory/caches.ts';
import { inventoryProviderFor } from './inventory/provider.ts';
import { loadBalancerProviderFor } from './load-balancer/provider.ts';
import { securityGroupProviderFor } from './security-group/provider.ts';
import { serverProviderFor } from './server/provider.ts';
import { volumeProviderFor } from './volume/provider.ts';

interface ProviderDeps {
  /** Where OpenstackIdentity and VLANAllocation records are kept (the region service's store). */
  readonly kube: Client;
  /** Flavor, volume type and image caches, one per process, kept per region client set. */
  readonly inventory: InventoryCaches;
  readonly secrets?: IdentitySecretSource | undefined;
  readonly log?: Logger | undefined;
  /** Defaults to the system clock. */
  readonly clock?: Clock | undefined;
  /** Told the region's name each time Neutron keeps a deleted identity's default security group, to count them. */
  readonly onDefaultGroupLeftBehind?: ((region: string) => void) | undefined;
  /** Told each server decision-table row a call took (R1–R4″, the rebuild answer), e.g. to count them. */
  readonly observeServerRow?: ((row: string) => void) | undefined;
}

/** Whether an error, or anything in its cause chain, is Keystone or a service refusing the credential (401). */
function credentialRefused(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof UnauthorizedError) return true;
  }
  return false;
}

/**
 * A workload delete that survives the loss of its identity's credentials (ADR 0019). When the cloud refuses them,
 * the region's manager credential looks for the identity's project: gone means everything in it is out of reach
 * for good (a cloud reset, a project removed out of band), so the delete is done; still there means someone broke
 * the identity's user, which an operator must repair, so the error says that instead of "temporarily unavailable".
 */
function survivingCredentialLoss<A extends unknown[]>(
  region: RegionContext,
  records: IdentityRecords,
  resource: ResourceKind,
  remove: (ctx: CallContext, identity: IdentityInput, ...rest: A) => Promise<Outcome<undefined>>,
): (ctx: CallContext, identity: IdentityInput, ...rest: A) => Promise<Outcome<undefined>> {
  return async (ctx, identity, ...rest) => {
    try {
      return await remove(ctx, identity, ...rest);
    } catch (error) {
      if (!credentialRefused(error)) throw error;
      const realised = await records.realised(identity.id);
      if (realised === undefined) throw error;
      try {
        await getProject(region.clients.manager(), realised.projectID);
      } catch (lookup) {
        if (!isNotFound(lookup)) throw error;
        region.clients.forgetProject(realised.projectID);
        return Outcome.ok();
      }
      throw new CredentialsRejectedError(`delete ${resource}: the identity's credentials are refused`, {
        resource,
        cause: error,
      });
    }
  };
}

function openstackProvider(region: RegionContext, deps: ProviderDeps): RegionProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const networks = networkProviderFor(region, deps);
  const securityGroups = securityGroupProviderFor(region, deps);
  const volumes = volumeProviderFor(region, deps);
  const loadBalancers = loadBalancerProviderFor(region, deps);
  const servers = serverProviderFor(region, {
    kube: deps.kube,
    clock: deps.clock ?? systemClock,
    log: deps.log,
    observeRow: deps.observeServerRow,
  });
  const surviving = <A extends unknown[]>(
    resource: ResourceKind,
    remove: (ctx: CallContext, identity: IdentityInput, ...rest: A) => Promise<Outcome<undefined>>,
  ) => survivingCredentialLoss(region, records, resource, remove);

  return {
    ...identityProviderFor(region, deps),
    ...volumes,
    deleteVolume: surviving(ResourceKind.Volume, (c, i, v: VolumeInput) => volumes.deleteVolume(c, i, v)),
    ...loadBalancers,
    deleteLoadBalancer: surviving(ResourceKind.LoadBalancer, (c, i, lb: LoadBalancerInput) =>
      loadBalancers.deleteLoadBalancer(c, i, lb),
    ),
    ...servers,
    deleteServer: surviving(ResourceKind.Server, (c, i, s: ServerInput) => servers.deleteServer(c, i, s)),
    ...inventoryProviderFor(region, { caches: deps.inventory, log: deps.log }),
    ...networks,
    deleteNetwork: surviving(ResourceKind.Network, (c, i, n: NetworkInput) => networks.deleteNetwork(c, i, n)),
    ...securityGroups,
    deleteSecurityGroup: surviving(ResourceKind.SecurityGroup, (c, i, g: SecurityGroupInput) =>
      securityGroups.deleteSecurityGroup(c, i, g),
    ),
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
  // One provider per region context: the registry hands out the same context while its Region and Secret are
  // unchanged, so a controller pass does not rebuild forty-odd bound methods.
  const built = new WeakMap<RegionContext, RegionProvider>();
  const providerOf = (region: RegionContext): RegionProvider => {
    let provider = built.get(region);
    if (provider === undefined) built.set(region, (provider = openstackProvider(region, full)));
    return provider;
  };
  return async (regionID, signal) => {
    try {
      return providerOf(await lookup(regionID, signal));
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

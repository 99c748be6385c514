/** The region service's controllers, each driving one provider capability through its own lookup. */
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { networkType } from '../apis/network.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { volumeType } from '../apis/volume.ts';
import type {
  IdentityProvider,
  LoadBalancerProvider,
  NetworkProvider,
  Providers,
  SecurityGroupProvider,
  VolumeProvider,
} from '../provider/contract.ts';
import { SERVER_CONTROLLER, registerServerController, type ServerLifecycle } from './server/controller.ts';
import { IDENTITY_CONTROLLER, registerIdentityController } from './identity.ts';
import { LOAD_BALANCER_CONTROLLER, registerLoadBalancerController } from './load-balancer.ts';
import { rowCounter } from './metrics.ts';
import { NETWORK_CONTROLLER, registerNetworkController } from './network.ts';
import type { ProviderLookup } from './provisioner.ts';
import { SECURITY_GROUP_CONTROLLER, registerSecurityGroupController } from './security-group.ts';
import { VOLUME_CONTROLLER, registerVolumeController } from './volume.ts';
import { IDENTITY_INDEX, byIdentity } from './watches.ts';

export { FINALIZER, ProviderRetryError, type ProviderLookup } from './provisioner.ts';
export { RECHECK_MS, dependencyReasons, messages } from './decide.ts';
export { IDENTITY_CONTROLLER, IDENTITY_DEPENDENTS } from './identity.ts';
export { NETWORK_CONTROLLER } from './network.ts';
export { SECURITY_GROUP_CONTROLLER } from './security-group.ts';
export { LOAD_BALANCER_CONTROLLER } from './load-balancer.ts';
export { VOLUME_CONTROLLER } from './volume.ts';
export { SERVER_CONTROLLER } from './server/controller.ts';
export { IDENTITY_INDEX } from './watches.ts';

/** One lookup per capability, so a provider can grow one capability at a time. */
export interface RegionProviderLookups {
  readonly identities: ProviderLookup<IdentityProvider>;
  readonly networks: ProviderLookup<NetworkProvider>;
  readonly securityGroups: ProviderLookup<SecurityGroupProvider>;
  readonly loadBalancers: ProviderLookup<LoadBalancerProvider>;
  readonly volumes: ProviderLookup<VolumeProvider>;
  readonly servers: ProviderLookup<ServerLifecycle>;
}

/** A provider serving every capability a controller here drives. */
export type RegionControllerProvider = IdentityProvider &
  NetworkProvider &
  SecurityGroupProvider &
  LoadBalancerProvider &
  VolumeProvider &
  ServerLifecycle;

/** Every lookup from one lookup of a provider that serves them all. */
export function lookupsOf(lookup: ProviderLookup<RegionControllerProvider>): RegionProviderLookups {
  return {
    identities: lookup,
    networks: lookup,
    securityGroups: lookup,
    loadBalancers: lookup,
    volumes: lookup,
    servers: lookup,
  };
}

/** Every lookup from one `Providers`: a full cloud provider serves every capability. */
export function lookupsFrom(providers: Pick<Providers, 'lookupCloud'>): RegionProviderLookups {
  return lookupsOf((regionID) => providers.lookupCloud(regionID));
}

export interface RegionControllerOptions {
  /** Applied to each controller (concurrency, backoff, drain). */
  readonly controller?: ControllerOptions;
  /** Upstream's `--provider-create-max-attempts` (default 3). */
  readonly maxServerCreateAttempts?: number;
  /** Which groups to register (default: all). */
  readonly groups?: readonly RegionControllerGroup[];
}

export interface RegionControllers {
  readonly identity?: Controller;
  readonly network?: Controller;
  readonly securityGroup?: Controller;
  readonly loadBalancer?: Controller;
  readonly volume?: Controller;
  readonly server?: Controller;
}

/** The controller groups a process can run (`serve --controllers`); identities, networks and groups go together. */
export const REGION_CONTROLLER_GROUPS = ['identities', 'networks', 'servers', 'loadbalancers', 'volumes'] as const;
export type RegionControllerGroup = (typeof REGION_CONTROLLER_GROUPS)[number];

/** Registers the controllers and the identity index their watches read; call before `manager.start()`. */
export function registerRegionControllers(
  manager: Manager,
  lookups: RegionProviderLookups,
  options: RegionControllerOptions = {},
): RegionControllers {
  const groups = new Set<RegionControllerGroup>(options.groups ?? REGION_CONTROLLER_GROUPS);
  const controller = options.controller ?? {};
  const rows = rowCounter(manager.metrics.registry);
  const core = groups.has('identities') || groups.has('networks');
  if (core) {
    manager.index(networkType, IDENTITY_INDEX, byIdentity);
    manager.index(securityGroupType, IDENTITY_INDEX, byIdentity);
  }
  if (groups.has('volumes')) manager.index(volumeType, IDENTITY_INDEX, byIdentity);
  return {
    ...(core
      ? {
          identity: registerIdentityController(manager, lookups.identities, controller, rows(IDENTITY_CONTROLLER)),
          network: registerNetworkController(manager, lookups.networks, controller, rows(NETWORK_CONTROLLER)),
          securityGroup: registerSecurityGroupController(
            manager,
            lookups.securityGroups,
            controller,
            rows(SECURITY_GROUP_CONTROLLER),
          ),
        }
      : {}),
    // Registers its own identity and network indexes.
    ...(groups.has('loadbalancers')
      ? {
          loadBalancer: registerLoadBalancerController(
            manager,
            lookups.loadBalancers,
            controller,
            rows(LOAD_BALANCER_CONTROLLER),
          ),
        }
      : {}),
    ...(groups.has('volumes')
      ? { volume: registerVolumeController(manager, lookups.volumes, controller, rows(VOLUME_CONTROLLER)) }
      : {}),
    // Registers its own identity index on Servers.
    ...(groups.has('servers')
      ? {
          server: registerServerController(manager, lookups.servers, {
            controller,
            observe: rows(SERVER_CONTROLLER),
            ...(options.maxServerCreateAttempts === undefined
              ? {}
              : { maxCreateAttempts: options.maxServerCreateAttempts }),
          }),
        }
      : {}),
  };
}

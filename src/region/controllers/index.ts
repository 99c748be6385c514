/** The region service's controllers, each driving its capability of the one region provider. */
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { networkType } from '../apis/network.ts';
import { securityGroupType } from '../apis/security-group.ts';
import { volumeType } from '../apis/volume.ts';
import type { ProviderLookup, RegionProvider } from '../provider/contract.ts';
import { SERVER_CONTROLLER, registerServerController } from './server/controller.ts';
import { IDENTITY_CONTROLLER, registerIdentityController } from './identity.ts';
import { LOAD_BALANCER_CONTROLLER, registerLoadBalancerController } from './load-balancer.ts';
import { rowCounter } from './metrics.ts';
import { NETWORK_CONTROLLER, registerNetworkController } from './network.ts';
import { SECURITY_GROUP_CONTROLLER, registerSecurityGroupController } from './security-group.ts';
import { VOLUME_CONTROLLER, registerVolumeController } from './volume.ts';
import { IDENTITY_INDEX, byIdentity } from './watches.ts';

interface RegionControllerOptions {
  /** Applied to each controller (concurrency, backoff, drain). */
  readonly controller?: ControllerOptions;
  /** Upstream's `--provider-create-max-attempts` (default 3). */
  readonly maxServerCreateAttempts?: number;
  /** Which groups to register (default: all). */
  readonly groups?: readonly RegionControllerGroup[];
}

interface RegionControllers {
  readonly identity?: Controller;
  readonly network?: Controller;
  readonly securityGroup?: Controller;
  readonly loadBalancer?: Controller;
  readonly volume?: Controller;
  readonly server?: Controller;
}

/** The controller groups a process can run (`serve --controllers`); identities, networks and groups go together. */
export const REGION_CONTROLLER_GROUPS = ['identities', 'networks', 'servers', 'loadbalancers', 'volumes'] as const;
type RegionControllerGroup = (typeof REGION_CONTROLLER_GROUPS)[number];

/** Registers the controllers and the identity index their watches read; call before `manager.start()`. */
export function registerRegionControllers(
  manager: Manager,
  lookup: ProviderLookup<RegionProvider>,
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
          identity: registerIdentityController(manager, lookup, controller, rows(IDENTITY_CONTROLLER)),
          network: registerNetworkController(manager, lookup, controller, rows(NETWORK_CONTROLLER)),
          securityGroup: registerSecurityGroupController(manager, lookup, controller, rows(SECURITY_GROUP_CONTROLLER)),
        }
      : {}),
    // Registers its own identity and network indexes.
    ...(groups.has('loadbalancers')
      ? {
          loadBalancer: registerLoadBalancerController(manager, lookup, controller, rows(LOAD_BALANCER_CONTROLLER)),
        }
      : {}),
    ...(groups.has('volumes')
      ? { volume: registerVolumeController(manager, lookup, controller, rows(VOLUME_CONTROLLER)) }
      : {}),
    // Registers its own identity index on Servers.
    ...(groups.has('servers')
      ? {
          server: registerServerController(manager, lookup, {
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

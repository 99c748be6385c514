/** The region service's controllers, each driving its capability of the one region provider. */
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { ProviderLookup, RegionProvider } from '../provider/contract.ts';
import { SERVER_CONTROLLER, registerServerController } from './server/controller.ts';
import { IDENTITY_CONTROLLER, registerIdentityController } from './identity.ts';
import { LOAD_BALANCER_CONTROLLER, registerLoadBalancerController } from './load-balancer.ts';
import { rowCounter } from './metrics.ts';
import { NETWORK_CONTROLLER, registerNetworkController } from './network.ts';
import { SECURITY_GROUP_CONTROLLER, registerSecurityGroupController } from './security-group.ts';
import { VOLUME_CONTROLLER, registerVolumeController } from './volume.ts';

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

/** Registers the controllers (each with the indexes it reads); call before `manager.start()`. */
export function registerRegionControllers(
  manager: Manager,
  lookup: ProviderLookup<RegionProvider>,
  options: RegionControllerOptions = {},
): RegionControllers {
  const groups = new Set<RegionControllerGroup>(options.groups ?? REGION_CONTROLLER_GROUPS);
  const controller = options.controller ?? {};
  const rows = rowCounter(manager.metrics.registry);
  const core = groups.has('identities') || groups.has('networks');
  return {
    ...(core
      ? {
          identity: registerIdentityController(manager, lookup, { controller, observe: rows(IDENTITY_CONTROLLER) }),
          network: registerNetworkController(manager, lookup, { controller, observe: rows(NETWORK_CONTROLLER) }),
          securityGroup: registerSecurityGroupController(manager, lookup, {
            controller,
            observe: rows(SECURITY_GROUP_CONTROLLER),
          }),
        }
      : {}),
    ...(groups.has('loadbalancers')
      ? {
          loadBalancer: registerLoadBalancerController(manager, lookup, {
            controller,
            observe: rows(LOAD_BALANCER_CONTROLLER),
          }),
        }
      : {}),
    ...(groups.has('volumes')
      ? { volume: registerVolumeController(manager, lookup, { controller, observe: rows(VOLUME_CONTROLLER) }) }
      : {}),
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

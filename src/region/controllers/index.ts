/** The region service's Identity, Network and SecurityGroup controllers, each driving one provider capability. */
import type { Controller, ControllerOptions } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { networkType } from '../apis/network.ts';
import { securityGroupType } from '../apis/security-group.ts';
import type { IdentityProvider, NetworkProvider, Providers, SecurityGroupProvider } from '../provider/contract.ts';
import { IDENTITY_CONTROLLER, registerIdentityController } from './identity.ts';
import { rowCounter } from './metrics.ts';
import { NETWORK_CONTROLLER, registerNetworkController } from './network.ts';
import type { ProviderLookup } from './provisioner.ts';
import { SECURITY_GROUP_CONTROLLER, registerSecurityGroupController } from './security-group.ts';
import { IDENTITY_INDEX, byIdentity } from './watches.ts';

export { FINALIZER, ProviderRetryError, type ProviderLookup } from './provisioner.ts';
export { RECHECK_MS, dependencyReasons, messages } from './decide.ts';
export { IDENTITY_CONTROLLER, IDENTITY_DEPENDENTS } from './identity.ts';
export { NETWORK_CONTROLLER } from './network.ts';
export { SECURITY_GROUP_CONTROLLER } from './security-group.ts';
export { IDENTITY_INDEX } from './watches.ts';

/** One lookup per capability, so a provider can grow one capability at a time. */
export interface RegionProviderLookups {
  readonly identities: ProviderLookup<IdentityProvider>;
  readonly networks: ProviderLookup<NetworkProvider>;
  readonly securityGroups: ProviderLookup<SecurityGroupProvider>;
}

/** The three lookups from one `Providers`: a full cloud provider serves every capability. */
export function lookupsFrom(providers: Pick<Providers, 'lookupCloud'>): RegionProviderLookups {
  const lookup = (regionID: string) => providers.lookupCloud(regionID);
  return { identities: lookup, networks: lookup, securityGroups: lookup };
}

export interface RegionControllerOptions {
  /** Applied to each of the three controllers (concurrency, backoff, drain). */
  readonly controller?: ControllerOptions;
}

export interface RegionControllers {
  readonly identity: Controller;
  readonly network: Controller;
  readonly securityGroup: Controller;
}

/** Registers the controllers and the identity index their watches read; call before `manager.start()`. */
export function registerRegionControllers(
  manager: Manager,
  lookups: RegionProviderLookups,
  options: RegionControllerOptions = {},
): RegionControllers {
  manager.index(networkType, IDENTITY_INDEX, byIdentity);
  manager.index(securityGroupType, IDENTITY_INDEX, byIdentity);
  const controller = options.controller ?? {};
  const rows = rowCounter(manager.metrics.registry);
  return {
    identity: registerIdentityController(manager, lookups.identities, controller, rows(IDENTITY_CONTROLLER)),
    network: registerNetworkController(manager, lookups.networks, controller, rows(NETWORK_CONTROLLER)),
    securityGroup: registerSecurityGroupController(
      manager,
      lookups.securityGroups,
      controller,
      rows(SECURITY_GROUP_CONTROLLER),
    ),
  };
}

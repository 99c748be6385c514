/**
 * The start-up check of a region's API versions: a cloud whose Nova does not offer the pinned compute microversion,
 * or whose Octavia is older than the load-balancer API openregion speaks (2.22, PROXYV2 pools), would fail every
 * request of that kind later, in every tenant's status. Refusing to start names the service, what openregion needs
 * and what the cloud offers, once, to the operator.
 *
 * Only a definite answer refuses: a service the catalog does not list is not checked (the region does not offer it),
 * and a cloud that cannot be asked right now (down, slow, refusing the credentials) is logged and let through, since
 * the controllers retry and a start-up that crash-loops on a passing outage helps no one.
 */
import type { Logger } from 'pino';
import { requireComputeMicroversion } from '../../openstack/compute.ts';
import { ConfigError, EndpointNotFoundError } from '../../openstack/errors.ts';
import { requireApiVersion } from '../../openstack/loadbalancer.ts';
import { DEFAULT_COMPUTE_MICROVERSION, LOAD_BALANCER_MICROVERSION } from '../../openstack/microversion.ts';
import type { RegionContext } from './registry.ts';

/** A region whose cloud offers too old an API: the message names the region, the service and both versions. */
export class RegionApiVersionError extends Error {
  constructor(regionID: string, cause: ConfigError) {
    super(`region ${regionID}: ${cause.message}`, { cause });
    this.name = 'RegionApiVersionError';
  }
}

interface VersionCheckOptions {
  /** The compute microversion the region's sessions pin (default 2.90). */
  readonly computeMicroversion?: string;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

export async function checkRegionApiVersions(context: RegionContext, options: VersionCheckOptions): Promise<void> {
  const regionID = context.region.metadata.name;
  const clients = context.clients.region();
  const checks: [string, () => Promise<unknown>][] = [
    [
      'compute',
      () =>
        requireComputeMicroversion(
          clients.client('compute'),
          options.computeMicroversion ?? DEFAULT_COMPUTE_MICROVERSION,
          options.signal,
        ),
    ],
    [
      'load-balancer',
      () => requireApiVersion(clients.client('load-balancer'), LOAD_BALANCER_MICROVERSION, options.signal),
    ],
  ];
  for (const [service, check] of checks) {
    try {
      await check();
    } catch (error) {
      if (error instanceof EndpointNotFoundError) continue;
      if (error instanceof ConfigError && error.field === service) throw new RegionApiVersionError(regionID, error);
      options.log.warn({ err: error, region: regionID, service }, 'could not check the API version at start-up');
    }
  }
}

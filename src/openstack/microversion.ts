/**
 * The API microversions openregion speaks, sent on every request to the service. Pinning them makes response
 * shapes stable whatever the cloud's maximum is.
 */
import type { ServiceType } from './catalog.ts';
import { ConfigError } from './errors.ts';

/**
 * Compute 2.90 gives servers their `hostname` and lets it be set. Above 2.92 is refused: from 2.93 Nova sets
 * `reimage_boot_volume` on every rebuild, and Ironic refuses such rebuilds, so baremetal servers could never rebuild.
 */
export const DEFAULT_COMPUTE_MICROVERSION = '2.90';
export const MAX_COMPUTE_MICROVERSION = '2.92';
/**
 * PROXYV2 pools arrived in Octavia's API 2.22. docs/spec/openstack-provider.md §Octavia Load Balancers pins it as
 * gophercloud does, with the standard header; Octavia versions its API by release rather than per request, so it is
 * sent for intent and checked by discovery.
 */
export const LOAD_BALANCER_MICROVERSION = '2.22';
/** Placement 1.22 added forbidden traits (`required=!TRAIT`). */
export const PLACEMENT_MICROVERSION = '1.22';
/** Ironic 1.11: the pin upstream uses for node lookups by instance UUID. */
export const BAREMETAL_MICROVERSION = '1.11';

export interface MicroversionConfig {
  /** Compute microversion, `2.N`; defaults to 2.90 and may not exceed 2.92. */
  readonly compute?: string | undefined;
}

export interface Version {
  readonly major: number;
  readonly minor: number;
}

export function parseVersion(text: string): Version | undefined {
  const match = /^v?(\d+)\.(\d+)$/.exec(text.trim());
  if (!match) return undefined;
  return { major: Number(match[1]), minor: Number(match[2]) };
}

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor;
}

/** Validates the configured microversions once, at the edge; returns the headers for each service. */
export function microversionHeaders(
  config: MicroversionConfig = {},
): Partial<Record<ServiceType, Record<string, string>>> {
  const compute = computeMicroversion(config.compute);
  return {
    compute: { 'OpenStack-API-Version': `compute ${compute}`, 'X-OpenStack-Nova-API-Version': compute },
    'load-balancer': { 'OpenStack-API-Version': `load-balancer ${LOAD_BALANCER_MICROVERSION}` },
    placement: { 'OpenStack-API-Version': `placement ${PLACEMENT_MICROVERSION}` },
    baremetal: {
      'OpenStack-API-Version': `baremetal ${BAREMETAL_MICROVERSION}`,
      'X-OpenStack-Ironic-API-Version': BAREMETAL_MICROVERSION,
    },
  };
}

function computeMicroversion(configured: string | undefined): string {
  if (configured === undefined) return DEFAULT_COMPUTE_MICROVERSION;
  const version = parseVersion(configured);
  if (!version || version.major !== 2) {
    throw new ConfigError('compute_api_version', `must look like 2.N (got ${JSON.stringify(configured)})`);
  }
  const max = parseVersion(MAX_COMPUTE_MICROVERSION) as Version;
  if (compareVersions(version, max) > 0) {
    throw new ConfigError(
      'compute_api_version',
      `${configured} is above ${MAX_COMPUTE_MICROVERSION}: from 2.93 Nova sets reimage_boot_volume on every rebuild ` +
        'and Ironic refuses such rebuilds, so baremetal servers could never be rebuilt',
    );
  }
  return `${String(version.major)}.${String(version.minor)}`;
}

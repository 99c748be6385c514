/** Finding a service's endpoint in a Keystone catalog, by type and its historical aliases, interface and region. */
import type { CatalogEntry } from './auth.ts';
import { EndpointNotFoundError } from './errors.ts';

export type ServiceType =
  'identity' | 'compute' | 'image' | 'network' | 'block-storage' | 'load-balancer' | 'placement' | 'baremetal';

export type Interface = 'public' | 'internal' | 'admin';

/** Catalog types a service has been registered under (OpenStack service-types-authority), newest first. */
export const serviceTypeAliases: Readonly<Record<ServiceType, readonly string[]>> = {
  identity: ['identity'],
  compute: ['compute'],
  image: ['image'],
  network: ['network'],
  'block-storage': ['block-storage', 'volumev3', 'block-store', 'volume', 'volumev2'],
  'load-balancer': ['load-balancer'],
  placement: ['placement'],
  baremetal: ['baremetal', 'bare-metal'],
};

/** The API version segment each service's paths hang under, added when an endpoint URL lacks it. */
const versionSegment: Readonly<Record<ServiceType, string | undefined>> = {
  identity: 'v3',
  compute: 'v2.1',
  image: 'v2',
  network: 'v2.0',
  'block-storage': 'v3',
  'load-balancer': 'v2',
  placement: undefined,
  baremetal: 'v1',
};

interface EndpointFilter {
  readonly interface: Interface;
  readonly region?: string | undefined;
}

export function selectEndpoint(catalog: readonly CatalogEntry[], type: ServiceType, filter: EndpointFilter): string {
  for (const alias of serviceTypeAliases[type]) {
    for (const entry of catalog) {
      if (entry.type !== alias) continue;
      const endpoint = entry.endpoints.find(
        (e) =>
          e.interface === filter.interface &&
          (filter.region === undefined || e.region_id === filter.region || e.region === filter.region),
      );
      if (endpoint) return endpoint.url;
    }
  }
  throw new EndpointNotFoundError(type, filter.interface, filter.region);
}

/**
 * The base URL request paths are appended to: no trailing slash, with the service's version segment. Catalogs
 * register Neutron, Octavia and Ironic at their root but Nova and Cinder at their version; both forms are accepted.
 */
export function serviceBaseUrl(endpointUrl: string, type: ServiceType, projectID?: string): string {
  let url = endpointUrl.replace(/\/+$/, '');
  if (projectID !== undefined) url = url.replace(/%\(project_id\)s|%\(tenant_id\)s|\$\(project_id\)s/g, projectID);
  const segment = versionSegment[type];
  if (segment === undefined) return url;
  const path = new URL(url).pathname.split('/');
  return path.includes(segment) ? url : `${url}/${segment}`;
}

/** Regions as upstream's v1 API reads them, pure: the provider type and the features a client plans with. */
import type { Region } from '../../apis/index.ts';
import type { RegionDetailRead, RegionRead } from '../schemas/region.ts';
import { readMetadataOf } from '../status.ts';

export function regionRead(region: Region): RegionRead {
  const { organizationId: _o, projectId: _p, ...metadata } = readMetadataOf(region);
  return {
    metadata,
    spec: {
      type: region.spec.provider,
      // Upstream: an OpenStack region with provider networks offers physical (VLAN) networks.
      features: { physicalNetworks: region.spec.openstack?.network?.providerNetworks !== undefined },
    },
  };
}

/** The detail read: the same, since what upstream adds (a Kubernetes region's kubeconfig) is a credential. */
export const regionDetailRead = (region: Region): RegionDetailRead => regionRead(region);

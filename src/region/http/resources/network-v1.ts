/**
 * v1 networks, pure: upstream's v1 read of a Network (either generation's: they are one kind), which, unlike v2,
 * shows the Neutron ids a cluster provisioner needs, and the v1 create rules, which are v2's prefix rules.
 */
import type { Network } from '../../apis/index.ts';
import type { FieldViolation } from '../problem.ts';
import type { NetworkRead, NetworkWrite } from '../schemas/network-v1.ts';
import { readMetadataOf } from '../status.ts';
import { tenancyOf } from './meta.ts';
import { validateNetworkCreate } from './network.ts';
import { defined } from '../../../util/defined.ts';

/** The same layout rules as v2 (at least a /24, a network address): the same controller realises both. */
export function networkV1Violations(spec: NetworkWrite['spec']): FieldViolation[] {
  return validateNetworkCreate({ ...spec, organizationId: '', projectId: '', regionId: '' });
}

export function networkV1Read(network: Network): NetworkRead {
  const realised = network.status?.openstack;
  const openstack = {
    ...defined({ networkId: realised?.networkID, subnetId: realised?.subnetID, vlanId: realised?.vlanID }),
  };
  return {
    metadata: readMetadataOf(network),
    spec: {
      regionId: tenancyOf(network).regionID,
      prefix: network.spec.prefix,
      dnsNameservers: [...(network.spec.dnsNameservers ?? [])],
      ...(Object.keys(openstack).length === 0 ? {} : { openstack }),
    },
  };
}

/**
 * VLANAllocation: the VLAN table of one region's provider networks, one object named `openstack.<regionName>`.
 * The VLAN allocator is its only writer; Kubernetes optimistic concurrency is the only lock (reference §5).
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { envelope, regionResourceType } from './shared.ts';

export const vlanAllocationType = regionResourceType<VLANAllocation>('VLANAllocation', 'vlanallocations');

export const VLANAllocationEntry = Type.Object({
  /** The 802.1Q VLAN ID; 0 and 4095 are reserved by the standard. */
  id: Type.Integer({ minimum: 1, maximum: 4094, description: 'The allocated VLAN ID.' }),
  physicalNetworkID: Type.String({
    minLength: 1,
    description: 'The Network (resource name) the VLAN is allocated to.',
  }),
});
export type VLANAllocationEntry = Type.Static<typeof VLANAllocationEntry>;

/**
 * VLAN IDs are unique as a list-map keyed by id, which Kubernetes checks itself in linear time: the CEL rule it
 * replaces was quadratic, and at 4,094 entries far over the 1.25+ cost budget.
 */
const VLANAllocationSpec = Type.Object({
  allocations: Type.Array(VLANAllocationEntry, {
    default: [],
    maxItems: 4094,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['id'],
    description: 'The VLANs in use, unique by id.',
  }),
});
type VLANAllocationSpec = Type.Static<typeof VLANAllocationSpec>;

export const VLANAllocationSchema = envelope('A region provider network VLAN allocation table.', {
  spec: VLANAllocationSpec,
});

export type VLANAllocation = Resource<VLANAllocationSpec, never>;

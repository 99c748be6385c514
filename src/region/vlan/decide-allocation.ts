/**
 * The VLAN allocation decision, without I/O: given the configured segments, the allocations recorded now and a
 * network, which ID does the network hold? Upstream's rule (reference §5): idempotent per network, otherwise the
 * lowest free allowed ID, where "allowed" is the union of the segments, or 1..4094 when none are configured.
 */
import type { VLANAllocationEntry } from '../apis/vlan-allocation.ts';

/** One configured range, inclusive at both ends (Region.spec.openstack.network.providerNetworks.vlan.segments). */
export interface VlanSegment {
  readonly startId: number;
  readonly endId: number;
}

/** 802.1Q: 0 and 4095 are reserved, so usable IDs are 1..4094. */
const VLAN_MIN = 1;
const VLAN_MAX = 4094;

export type AllocationDecision =
  /** The network already holds this ID: nothing to write. */
  | { readonly kind: 'existing'; readonly id: number }
  /** Record `allocations` (the current list plus the new entry) to hand out `id`. */
  | { readonly kind: 'allocate'; readonly id: number; readonly allocations: readonly VLANAllocationEntry[] }
  /** Every allowed ID is taken: nothing to write. */
  | { readonly kind: 'exhausted' }
  /** The record holds several entries for this network (never written by us): refuse rather than guess. */
  | { readonly kind: 'inconsistent'; readonly ids: readonly number[] };

/**
 * The allowed ranges, clamped to 1..4094, empty ones dropped, in ascending order. Segment order in the
 * configuration does not matter: the allocator scans the union from its lowest ID, as upstream's linear scan does.
 */
export function allowedRanges(segments: readonly VlanSegment[] | undefined): VlanSegment[] {
  const configured =
    segments === undefined || segments.length === 0 ? [{ startId: VLAN_MIN, endId: VLAN_MAX }] : segments;
  return configured
    .map((s) => ({ startId: Math.max(VLAN_MIN, s.startId), endId: Math.min(VLAN_MAX, s.endId) }))
    .filter((s) => s.startId <= s.endId)
    .sort((a, b) => a.startId - b.startId);
}

export function isAllowed(segments: readonly VlanSegment[] | undefined, id: number): boolean {
  return allowedRanges(segments).some((s) => s.startId <= id && id <= s.endId);
}

/** The lowest allowed ID no entry holds, or undefined when there is none. */
export function lowestFree(
  segments: readonly VlanSegment[] | undefined,
  allocations: readonly VLANAllocationEntry[],
): number | undefined {
  const used = new Set(allocations.map((a) => a.id));
  for (const range of allowedRanges(segments)) {
    for (let id = range.startId; id <= range.endId; id++) if (!used.has(id)) return id;
  }
  return undefined;
}

export function decideAllocation(
  segments: readonly VlanSegment[] | undefined,
  allocations: readonly VLANAllocationEntry[],
  network: string,
): AllocationDecision {
  const held = allocations.filter((a) => a.physicalNetworkID === network).map((a) => a.id);
  // An ID held before the segments shrank stays the network's: Neutron already carries it.
  if (held.length === 1 && held[0] !== undefined) return { kind: 'existing', id: held[0] };
  if (held.length > 1) return { kind: 'inconsistent', ids: held };
  const id = lowestFree(segments, allocations);
  if (id === undefined) return { kind: 'exhausted' };
  return { kind: 'allocate', id, allocations: [...allocations, { id, physicalNetworkID: network }] };
}

/**
 * Neutron refused `taken` as in use by a network this allocator did not record (made outside openregion, or
 * before it): the network gives it up for the lowest free ID other than `taken`. Nothing remembers `taken`, so a
 * later network may meet the same refusal once, and the ID is usable again as soon as its holder is gone.
 */
export function decideReallocation(
  segments: readonly VlanSegment[] | undefined,
  allocations: readonly VLANAllocationEntry[],
  network: string,
  taken: number,
): AllocationDecision {
  const held = allocations.filter((a) => a.physicalNetworkID === network).map((a) => a.id);
  if (held.length > 1) return { kind: 'inconsistent', ids: held };
  // Already moved by a concurrent pass (or never held): the network's current allocation stands.
  if (held[0] !== taken) return decideAllocation(segments, allocations, network);
  const others = allocations.filter((a) => a.physicalNetworkID !== network);
  const id = lowestFree(segments, [...others, { id: taken, physicalNetworkID: network }]);
  if (id === undefined) return { kind: 'exhausted' };
  return { kind: 'allocate', id, allocations: [...others, { id, physicalNetworkID: network }] };
}

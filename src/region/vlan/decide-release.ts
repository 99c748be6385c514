/**
 * The VLAN release decision, without I/O. The caller frees a network's ID only once Neutron has confirmed the
 * network is gone (deleted, or NotFound), so a freed ID is never still carried by a live Neutron segment.
 */
import type { VLANAllocationEntry } from '../apis/vlan-allocation.ts';

type ReleaseDecision =
  /** The network holds nothing: freeing is already done (frees are idempotent). */
  | { readonly kind: 'absent' }
  /** Record `allocations` (the current list without the network's entries) to free `ids`. */
  | { readonly kind: 'release'; readonly ids: readonly number[]; readonly allocations: readonly VLANAllocationEntry[] };

export function decideRelease(allocations: readonly VLANAllocationEntry[], network: string): ReleaseDecision {
  const ids = allocations.filter((a) => a.physicalNetworkID === network).map((a) => a.id);
  if (ids.length === 0) return { kind: 'absent' };
  // Every entry goes, so a duplicate left by hand is cleared with the network rather than leaked.
  return { kind: 'release', ids, allocations: allocations.filter((a) => a.physicalNetworkID !== network) };
}

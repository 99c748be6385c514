import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { VLANAllocationEntry } from '../apis/vlan-allocation.ts';
import { decideAllocation } from './decide-allocation.ts';
import { decideRelease } from './decide-release.ts';

/** A table whose entries may repeat a network (a hand-edited record), over a few networks. */
const table = fc.array(
  fc.record({ id: fc.integer({ min: 1, max: 40 }), physicalNetworkID: fc.constantFrom('a', 'b', 'c', 'd') }),
  { maxLength: 12 },
);
const network = fc.constantFrom('a', 'b', 'c', 'd', 'e');

describe('decideRelease', () => {
  it("removes exactly the network's entries, keeping the others in order", () => {
    fc.assert(
      fc.property(table, network, (allocations, net) => {
        const d = decideRelease(allocations, net);
        const mine = allocations.filter((a) => a.physicalNetworkID === net);
        if (mine.length === 0) {
          assert.deepEqual(d, { kind: 'absent' });
          return;
        }
        assert.deepEqual(d, {
          kind: 'release',
          ids: mine.map((a) => a.id),
          allocations: allocations.filter((a) => a.physicalNetworkID !== net),
        });
      }),
    );
  });

  it('is idempotent: a second free finds nothing to do', () => {
    fc.assert(
      fc.property(table, network, (allocations, net) => {
        const first = decideRelease(allocations, net);
        const after = first.kind === 'release' ? first.allocations : allocations;
        assert.deepEqual(decideRelease(after, net), { kind: 'absent' });
      }),
    );
  });

  it('makes the freed ID the lowest free again', () => {
    const allocations: VLANAllocationEntry[] = [
      { id: 1, physicalNetworkID: 'a' },
      { id: 2, physicalNetworkID: 'b' },
      { id: 3, physicalNetworkID: 'c' },
    ];
    const released = decideRelease(allocations, 'b');
    assert.equal(released.kind, 'release');
    const next = decideAllocation(undefined, released.allocations, 'd');
    assert.equal(next.kind === 'allocate' ? next.id : undefined, 2);
  });
});

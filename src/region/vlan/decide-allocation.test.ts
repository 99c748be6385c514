import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { VLANAllocationEntry } from '../apis/vlan-allocation.ts';
import {
  allowedRanges,
  decideAllocation,
  decideReallocation,
  isAllowed,
  lowestFree,
  type VlanSegment,
} from './decide-allocation.ts';

/** The spec restated naively: an ID 1..4094 is allowed when some segment holds it, or always when none. */
const modelAllowed = (segments: readonly VlanSegment[] | undefined, id: number): boolean =>
  id >= 1 &&
  id <= 4094 &&
  (segments === undefined || segments.length === 0 || segments.some((s) => s.startId <= id && id <= s.endId));

/** The smallest allowed ID not used. */
function model(segments: readonly VlanSegment[] | undefined, used: ReadonlySet<number>): number | undefined {
  for (let id = -5; id <= 5000; id++) if (modelAllowed(segments, id) && !used.has(id)) return id;
  return undefined;
}

const segment = (lo: number, hi: number) =>
  fc.tuple(fc.integer({ min: lo, max: hi }), fc.integer({ min: 0, max: 20 })).map(([startId, len]) => ({
    startId,
    endId: startId + len,
  }));
/** Small segments near both ends of the VLAN range, so clamping and exhaustion are both reachable. */
const segments = fc.array(fc.oneof(segment(-2, 60), segment(4080, 4100)), { maxLength: 4 });

const entries = (ids: readonly number[]): VLANAllocationEntry[] =>
  ids.map((id, i) => ({ id, physicalNetworkID: `net-${i}` }));

/** Allocate for `count` fresh networks, one after another, feeding each decision's list into the next. */
function allocateMany(segs: readonly VlanSegment[], count: number) {
  let allocations: readonly VLANAllocationEntry[] = [];
  const ids: number[] = [];
  let exhausted = 0;
  for (let i = 0; i < count; i++) {
    const d = decideAllocation(segs, allocations, `fresh-${i}`);
    if (d.kind === 'allocate') {
      ids.push(d.id);
      allocations = d.allocations;
    } else {
      assert.equal(d.kind, 'exhausted');
      exhausted++;
    }
  }
  return { ids, exhausted, allocations };
}

describe('decideAllocation', () => {
  it('matches the naive model: lowest free allowed ID, or exhausted', () => {
    fc.assert(
      fc.property(segments, fc.uniqueArray(fc.integer({ min: 1, max: 80 }), { maxLength: 60 }), (segs, used) => {
        const d = decideAllocation(segs, entries(used), 'new');
        const expected = model(segs, new Set(used));
        if (expected === undefined) assert.deepEqual(d, { kind: 'exhausted' });
        else
          assert.deepEqual(d, {
            kind: 'allocate',
            id: expected,
            allocations: [...entries(used), { id: expected, physicalNetworkID: 'new' }],
          });
      }),
    );
  });

  it('is exhaustive over every used-set of a small universe', () => {
    const configs: (VlanSegment[] | undefined)[] = [
      undefined,
      [{ startId: 1, endId: 8 }],
      [
        { startId: 6, endId: 8 },
        { startId: 2, endId: 3 },
      ],
      [{ startId: 3, endId: 3 }],
      [
        { startId: 2, endId: 5 },
        { startId: 4, endId: 7 },
      ],
    ];
    for (const segs of configs) {
      for (let mask = 0; mask < 256; mask++) {
        const used = [1, 2, 3, 4, 5, 6, 7, 8].filter((id) => (mask & (1 << (id - 1))) !== 0);
        const d = decideAllocation(segs, entries(used), 'new');
        const expected = model(segs, new Set(used));
        assert.equal(
          d.kind === 'allocate' ? d.id : undefined,
          expected,
          `segments ${JSON.stringify(segs)} used ${used.join()}`,
        );
      }
    }
  });

  it('hands out no ID twice, only inside the segments, until exhausted', () => {
    fc.assert(
      fc.property(segments, fc.integer({ min: 0, max: 120 }), (segs, count) => {
        const { ids, exhausted } = allocateMany(segs, count);
        assert.equal(new Set(ids).size, ids.length);
        for (const id of ids) assert.ok(modelAllowed(segs, id), `${id} outside ${JSON.stringify(segs)}`);
        // Counted naively, so overlapping segments count their shared IDs once.
        let capacity = 0;
        for (let id = -5; id <= 5000; id++) if (modelAllowed(segs, id)) capacity++;
        assert.equal(ids.length, Math.min(count, capacity));
        assert.equal(exhausted, count - ids.length);
        // Sequential allocation from empty fills the union in ascending order.
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
      }),
    );
  });

  it('fills several segments lowest first, whatever their order in the configuration', () => {
    const segs = [
      { startId: 100, endId: 101 },
      { startId: 10, endId: 11 },
    ];
    const { ids, exhausted } = allocateMany(segs, 5);
    assert.deepEqual(ids, [10, 11, 100, 101]);
    assert.equal(exhausted, 1);
  });

  it('uses 1..4094 when no segments are configured, and clamps segments to it', () => {
    assert.equal(lowestFree(undefined, []), 1);
    assert.equal(lowestFree([], entries([1, 2])), 3);
    assert.deepEqual(
      allowedRanges([
        { startId: 0, endId: 2 },
        { startId: 4093, endId: 5000 },
        { startId: 9, endId: 8 },
      ]),
      [
        { startId: 1, endId: 2 },
        { startId: 4093, endId: 4094 },
      ],
    );
    assert.deepEqual(allocateMany([{ startId: 4093, endId: 5000 }], 3).ids, [4093, 4094]);
  });

  it('is idempotent per network: the held ID comes back and nothing is written', () => {
    fc.assert(
      fc.property(segments, fc.integer({ min: 1, max: 30 }), fc.nat(), (segs, count, pick) => {
        const { ids, allocations } = allocateMany(segs, count);
        fc.pre(ids.length > 0);
        const i = pick % ids.length;
        assert.deepEqual(decideAllocation(segs, allocations, `fresh-${i}`), { kind: 'existing', id: ids[i] });
      }),
    );
  });

  it('isAllowed agrees with the model', () => {
    fc.assert(
      fc.property(segments, fc.integer({ min: -5, max: 5000 }), (segs, id) => {
        assert.equal(isAllowed(segs, id), modelAllowed(segs, id));
      }),
    );
  });

  it('keeps an ID held outside the segments (they shrank after the network was created)', () => {
    const held = [{ id: 500, physicalNetworkID: 'old' }];
    assert.deepEqual(decideAllocation([{ startId: 1, endId: 2 }], held, 'old'), { kind: 'existing', id: 500 });
  });

  it('refuses a network holding several IDs rather than guessing', () => {
    const held = [
      { id: 3, physicalNetworkID: 'dup' },
      { id: 1, physicalNetworkID: 'other' },
      { id: 7, physicalNetworkID: 'dup' },
    ];
    assert.deepEqual(decideAllocation(undefined, held, 'dup'), { kind: 'inconsistent', ids: [3, 7] });
  });

  it('reports exhaustion with no list to write', () => {
    assert.deepEqual(decideAllocation([{ startId: 5, endId: 5 }], entries([5]), 'new'), { kind: 'exhausted' });
  });
});

describe('decideReallocation', () => {
  it('moves the network to the lowest free ID other than the one Neutron refused, and keeps the others', () => {
    fc.assert(
      fc.property(segments, fc.uniqueArray(fc.integer({ min: 1, max: 80 }), { maxLength: 30 }), (segs, ids) => {
        const first = decideAllocation(segs, entries(ids), 'moving');
        if (first.kind !== 'allocate') return;
        const taken = first.id;
        const d = decideReallocation(segs, first.allocations, 'moving', taken);
        const others = entries(ids);
        const expected = model(segs, new Set([...ids, taken]));
        if (expected === undefined) {
          assert.equal(d.kind, 'exhausted');
          return;
        }
        assert.ok(d.kind === 'allocate', d.kind);
        assert.equal(d.id, expected);
        assert.deepEqual(
          d.allocations.filter((a) => a.physicalNetworkID === 'moving'),
          [{ id: expected, physicalNetworkID: 'moving' }],
        );
        assert.deepEqual(
          d.allocations.filter((a) => a.physicalNetworkID !== 'moving'),
          others,
        );
      }),
    );
  });

  it('leaves a network that no longer holds the refused ID on what it holds (a concurrent move won)', () => {
    const allocations = [{ id: 7, physicalNetworkID: 'moving' }];
    assert.deepEqual(decideReallocation(undefined, allocations, 'moving', 5), { kind: 'existing', id: 7 });
  });
});

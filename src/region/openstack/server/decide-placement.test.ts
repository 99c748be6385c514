import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  placementPreflightApplies,
  placementPreflightQuery,
  placementPreflightVerdict,
  type PlacementQuery,
} from './decide-placement.ts';

const filter = (q: PlacementQuery) => {
  assert.ok(q.kind === 'query', q.kind === 'invalid' ? q.reason : '');
  return q.filter;
};

describe('placementPreflightApplies', () => {
  it('only for a pinned server with the check enabled', () => {
    assert.equal(placementPreflightApplies({ enabled: true }, 'node-1'), true);
    assert.equal(placementPreflightApplies({ enabled: true }, undefined), false);
    assert.equal(placementPreflightApplies({ enabled: true }, '  '), false);
    assert.equal(placementPreflightApplies({ enabled: false }, 'node-1'), false);
    assert.equal(placementPreflightApplies({}, 'node-1'), false);
    assert.equal(placementPreflightApplies(undefined, 'node-1'), false);
  });
});

describe('placementPreflightQuery', () => {
  it('asks for the positive custom class with its amount, and no trait filter when there are no traits', () => {
    const specs = { 'resources:CUSTOM_BAREMETAL_GOLD': '1', 'resources:VCPU': '0', 'resources:MEMORY_MB': '0' };
    assert.deepEqual(filter(placementPreflightQuery(specs, { enabled: true })), {
      resources: { CUSTOM_BAREMETAL_GOLD: 1 },
    });
    assert.deepEqual(filter(placementPreflightQuery({ 'Resources:custom_gpu ': '2' }, undefined)), {
      resources: { CUSTOM_GPU: 2 },
    });
  });

  it('required flavor traits are positive, forbidden ones negated, unioned with the configured ones', () => {
    const specs = {
      'resources:CUSTOM_GOLD': '1',
      'trait:HW_CPU_X86_AVX2': 'required',
      'trait:CUSTOM_RAID': 'forbidden',
      'trait:custom_fast': ' Required ',
      'trait:IGNORED': 'preferred',
    };
    const q = filter(placementPreflightQuery(specs, { requiredTraits: ['custom_rack_a', ' HW_CPU_X86_AVX2 ', ''] }));
    assert.deepEqual(q, {
      resources: { CUSTOM_GOLD: 1 },
      requiredTraits: ['CUSTOM_FAST', 'CUSTOM_RACK_A', 'HW_CPU_X86_AVX2'],
      forbiddenTraits: ['CUSTOM_RAID'],
    });
  });

  it('configured traits alone still filter', () => {
    assert.deepEqual(filter(placementPreflightQuery({ 'resources:CUSTOM_GOLD': '1' }, { requiredTraits: ['x'] })), {
      resources: { CUSTOM_GOLD: 1 },
      requiredTraits: ['X'],
    });
  });

  it('is invalid when the flavor cannot say what to ask for', () => {
    const reason = (specs: Record<string, string>, traits?: string[]) => {
      const q = placementPreflightQuery(specs, { requiredTraits: traits });
      assert.ok(q.kind === 'invalid');
      return q.reason;
    };
    assert.match(reason({}), /exactly one .*found none/);
    assert.match(reason({ 'resources:CUSTOM_GOLD': '0' }), /found none/);
    assert.match(reason({ 'resources:CUSTOM_A': '1', 'resources:CUSTOM_B': '1' }), /found CUSTOM_A, CUSTOM_B/);
    assert.match(reason({ 'resources:CUSTOM_A': 'one' }), /amount "one"/);
    assert.match(reason({ 'resources:CUSTOM_A': '1.5' }), /amount "1.5"/);
    assert.match(
      reason({ 'resources:CUSTOM_A': '1', 'trait:X': 'forbidden' }, ['x']),
      /both required and forbidden: X/,
    );
  });
});

describe('placementPreflightVerdict', () => {
  const providers = [
    { uuid: '1a2b3c4d-0000-4000-8000-000000000001', name: 'node-1' },
    { uuid: '1a2b3c4d-0000-4000-8000-000000000002', name: 'node-2' },
  ];

  it('available when the pinned host answered, by UUID or name', () => {
    assert.equal(placementPreflightVerdict(providers, 'node-2'), 'available');
    assert.equal(placementPreflightVerdict(providers, '1a2b3c4d-0000-4000-8000-000000000001'), 'available');
    assert.equal(placementPreflightVerdict(providers, ' node-1 '), 'available');
  });

  it('a miss otherwise', () => {
    assert.equal(placementPreflightVerdict(providers, 'node-3'), 'miss');
    assert.equal(placementPreflightVerdict([], 'node-1'), 'miss');
    assert.equal(placementPreflightVerdict(providers, ''), 'miss');
  });
});

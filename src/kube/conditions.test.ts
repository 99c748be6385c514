import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conditionUnchanged, findCondition, isConditionTrue, removeCondition, setCondition } from './conditions.ts';

const t0 = new Date('2026-01-01T00:00:00.123Z');
const t1 = new Date('2026-01-01T01:00:00Z');
const ready = { type: 'Ready', status: 'True', reason: 'Provisioned', message: 'ok', observedGeneration: 1 } as const;

describe('conditions', () => {
  it('adds a condition stamped with the time, to the second, as Kubernetes writes it', () => {
    assert.deepEqual(setCondition(undefined, ready, t0), [{ ...ready, lastTransitionTime: '2026-01-01T00:00:00Z' }]);
  });

  it('keeps lastTransitionTime when only the reason, message or generation changes', () => {
    const first = setCondition([], ready, t0);
    const second = setCondition(first, { ...ready, reason: 'Other', message: 'still', observedGeneration: 2 }, t1);
    const [condition] = second;
    assert.ok(condition);
    assert.equal(condition.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.equal(condition.reason, 'Other');
    assert.equal(second.length, 1);
  });

  it('moves lastTransitionTime when the status flips', () => {
    const flipped = setCondition(setCondition([], ready, t0), { ...ready, status: 'False' }, t1);
    assert.equal(flipped[0]?.lastTransitionTime, '2026-01-01T01:00:00Z');
  });

  it('leaves other conditions and the input list alone', () => {
    const input = setCondition([], { ...ready, type: 'UserReady' }, t0);
    const out = setCondition(input, ready, t1);
    assert.equal(input.length, 1);
    assert.deepEqual(
      out.map((c) => c.type),
      ['UserReady', 'Ready'],
    );
    assert.equal(isConditionTrue(out, 'Ready'), true);
    assert.equal(findCondition(removeCondition(out, 'Ready'), 'Ready'), undefined);
  });

  it('says when a write would change nothing', () => {
    const list = setCondition([], ready, t0);
    assert.equal(conditionUnchanged(list, ready), true);
    assert.equal(conditionUnchanged(list, { ...ready, message: 'new' }), false);
    assert.equal(conditionUnchanged([], ready), false);
  });
});

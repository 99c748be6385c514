import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deserialize, serialize } from 'node:v8';
import { recordsOf, refill } from './records.ts';

class Records {
  readonly byId = new Map<string, { id: string; tags: string[] }>();
  readonly names = new Set<string>();
  readonly log: string[] = [];
  readonly policy = { hidden: false };
  counter = 1;
}

describe('service records', () => {
  it('round-trip through a serialized snapshot into the same containers', () => {
    const before = new Records();
    before.byId.set('a', { id: 'a', tags: ['x'] });
    before.names.add('n');
    before.log.push('one');
    before.policy.hidden = true;
    before.counter = 7;
    const snapshot: unknown = deserialize(serialize(recordsOf(before, ['byId', 'names', 'log', 'policy', 'counter'])));

    const after = new Records();
    const { byId: byID, names, log, policy } = after;
    after.byId.set('stale', { id: 'stale', tags: [] });
    refill(after, snapshot);
    assert.equal(after.byId, byID, 'the Map is the same object');
    assert.equal(after.names, names);
    assert.equal(after.log, log);
    assert.equal(after.policy, policy);
    assert.deepEqual([...after.byId.keys()], ['a'], 'what the snapshot lacks is gone');
    assert.deepEqual(after.byId.get('a'), { id: 'a', tags: ['x'] });
    assert.deepEqual([...after.names], ['n']);
    assert.deepEqual(after.log, ['one']);
    assert.deepEqual(after.policy, { hidden: true });
    assert.equal(after.counter, 7);
  });

  it('refuses a snapshot that is not a plain object of fields', () => {
    assert.throws(() => {
      refill(new Records(), [1]);
    }, /plain object/);
  });
});

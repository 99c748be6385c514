import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listJson } from './list-json.ts';

describe('listJson', () => {
  it('answers what JSON.stringify of the read models would, in order, empty as []', () => {
    const toJson = listJson((o: { n: number; tags?: string[] }) => ({ id: `x${String(o.n)}`, tags: o.tags ?? [] }));
    const items = [{ n: 2 }, { n: 1, tags: ['a,b', '"q"'] }];
    assert.equal(toJson(items), JSON.stringify(items.map((o) => ({ id: `x${String(o.n)}`, tags: o.tags ?? [] }))));
    assert.equal(toJson([]), '[]');
  });

  it('reads each instance once; a replaced instance (a changed object) is read again', () => {
    const reads: number[] = [];
    const toJson = listJson((o: { n: number }) => {
      reads.push(o.n);
      return o;
    });
    const one = { n: 1 };
    const two = { n: 2 };
    toJson([one, two]);
    toJson([one, two]);
    assert.deepEqual(reads, [1, 2]);
    const changed = { n: 3 };
    assert.equal(toJson([one, changed]), '[{"n":1},{"n":3}]');
    assert.deepEqual(reads, [1, 2, 3]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Timeline } from './timeline.ts';

describe('Timeline', () => {
  it('applies only what is due, earliest first, same-time entries in scheduling order', () => {
    const t = new Timeline();
    const seen: string[] = [];
    t.at(30, () => seen.push('c'));
    t.at(10, () => seen.push('a'));
    t.at(10, () => seen.push('b'));
    t.settle(20);
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(t.size, 1);
    t.settle(30);
    assert.deepEqual(seen, ['a', 'b', 'c']);
  });

  it('runs entries scheduled by due entries when they are due too', () => {
    const t = new Timeline();
    const seen: number[] = [];
    t.at(5, () => {
      seen.push(5);
      t.at(6, () => seen.push(6));
      t.at(50, () => seen.push(50));
    });
    t.settle(10);
    assert.deepEqual(seen, [5, 6]);
    assert.equal(t.size, 1);
  });
});

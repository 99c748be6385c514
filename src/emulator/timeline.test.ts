import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Timeline } from './timeline.ts';

describe('Timeline', () => {
  it('applies only what is due, earliest first, same-time entries in scheduling order', () => {
    const t = new Timeline();
    const seen: string[] = [];
    const mark = t.define<string>('mark', (what) => seen.push(what));
    mark(30, 'c');
    mark(10, 'a');
    mark(10, 'b');
    t.settle(20);
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal(t.size, 1);
    t.settle(30);
    assert.deepEqual(seen, ['a', 'b', 'c']);
  });

  it('runs entries scheduled by due entries when they are due too', () => {
    const t = new Timeline();
    const seen: number[] = [];
    const step = t.define<number>('step', (at) => {
      seen.push(at);
      if (at === 5) {
        step(6, 6);
        step(50, 50);
      }
    });
    step(5, 5);
    t.settle(10);
    assert.deepEqual(seen, [5, 6]);
    assert.equal(t.size, 1);
  });

  it('refuses a kind defined twice', () => {
    const t = new Timeline();
    t.define('once', () => undefined);
    assert.throws(() => t.define('once', () => undefined), /defined twice/);
  });

  it('a snapshot restored into another timeline with the same kinds applies there, in the same order', () => {
    const seen: string[] = [];
    const make = () => {
      const t = new Timeline();
      return { t, mark: t.define<{ what: string }>('mark', ({ what }) => seen.push(what)) };
    };
    const first = make();
    first.mark(20, { what: 'b' });
    first.mark(10, { what: 'a' });
    const snapshot = structuredClone(first.t.snapshot());
    const second = make();
    second.t.restore(snapshot);
    second.mark(10, { what: 'a2' });
    second.t.settle(100);
    assert.deepEqual(seen, ['a', 'a2', 'b'], 'sequence numbers carry on after the restored ones');
    assert.throws(() => {
      new Timeline().restore(snapshot);
    }, /no transition mark/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeInvalidError } from '../errors.ts';
import { jsonPatch, mergePatch } from './patch.ts';

describe('merge patch (RFC 7386 appendix A)', () => {
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of cases) {
    it(`${JSON.stringify(target)} + ${JSON.stringify(patch)}`, () => {
      assert.deepEqual(mergePatch(target, patch), result);
    });
  }
});

describe('JSON patch (RFC 6902)', () => {
  it('adds, removes, replaces, moves, copies and tests without touching the input', () => {
    const doc = { a: { b: [1, 2] }, c: 'x', 'd/e': 1 };
    const out = jsonPatch(doc, [
      { op: 'add', path: '/a/b/1', value: 9 },
      { op: 'add', path: '/a/b/-', value: 3 },
      { op: 'remove', path: '/d~1e' },
      { op: 'replace', path: '/c', value: 'y' },
      { op: 'copy', from: '/c', path: '/f' },
      { op: 'move', from: '/f', path: '/g' },
      { op: 'test', path: '/g', value: 'y' },
    ]);
    assert.deepEqual(out, { a: { b: [1, 9, 2, 3] }, c: 'y', g: 'y' });
    assert.deepEqual(doc, { a: { b: [1, 2] }, c: 'x', 'd/e': 1 });
  });

  it('fails a test, a missing path, or a replace of nothing', () => {
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]), KubeInvalidError);
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'remove', path: '/b' }]), KubeInvalidError);
    assert.throws(() => jsonPatch({ a: 1 }, [{ op: 'replace', path: '/b', value: 1 }]), KubeInvalidError);
    assert.throws(() => jsonPatch({ a: [] }, [{ op: 'add', path: '/a/3', value: 1 }]), KubeInvalidError);
  });
});

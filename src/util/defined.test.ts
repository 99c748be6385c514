import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { describe, it } from 'node:test';
import { defined } from './defined.ts';

describe('defined', () => {
  it('leaves out each key whose value is undefined, as a conditional spread did', () => {
    const userData: string | undefined = undefined;
    const tags: string[] | undefined = ['a'];
    const built = { name: 'n', ...defined({ userData, tags, zero: 0, empty: '', no: false, none: null }) };
    assert.deepEqual(Object.keys(built), ['name', 'tags', 'zero', 'empty', 'no', 'none']);
    assert.ok(isDeepStrictEqual(built, { name: 'n', tags: ['a'], zero: 0, empty: '', no: false, none: null }));
    assert.ok(!('userData' in built));
  });

  it('keeps the order of the keys it keeps', () => {
    assert.deepEqual(Object.keys(defined({ b: 1, a: undefined, c: 2 })), ['b', 'c']);
  });
});

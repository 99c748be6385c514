import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyFields, fromFieldsV1, leafPaths, recordUpdate, toFieldsV1, type OwnedEntry } from './fields.ts';

const all = () => true;
const T = '2026-01-01T00:00:00Z';

describe('FieldsV1', () => {
  it('round-trips the leaf paths of an object, lists atomic, server metadata left out', () => {
    const obj = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'x', uid: 'u', labels: { a: 'b' } },
      data: { p: 'cA==' },
      list: [1, 2],
      empty: {},
    };
    const paths = leafPaths(obj);
    assert.deepEqual(toFieldsV1(paths), {
      'f:metadata': { 'f:labels': { 'f:a': {} } },
      'f:data': { 'f:p': {} },
      'f:list': {},
      'f:empty': {},
    });
    assert.deepEqual(fromFieldsV1(toFieldsV1(paths)), paths);
    assert.deepEqual(fromFieldsV1({ 'f:a': { '.': {}, 'f:b': {} } }), [['a'], ['a', 'b']]);
  });
});

describe('apply and update ownership', () => {
  it('an update takes the fields it changes away from their applier', () => {
    const before = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { p: 'a', u: 'b' } };
    const entries: OwnedEntry[] = [
      {
        manager: 'op',
        operation: 'Apply',
        subresource: undefined,
        apiVersion: 'v1',
        time: T,
        paths: [
          ['data', 'p'],
          ['data', 'u'],
        ],
      },
    ];
    const after = { ...before, data: { p: 'z', u: 'b', n: 'c' } };
    const out = recordUpdate(entries, before, after, 'edit', undefined, T, all);
    assert.deepEqual(
      out.map((e) => [e.manager, e.paths]),
      [
        ['op', [['data', 'u']]],
        [
          'edit',
          [
            ['data', 'p'],
            ['data', 'n'],
          ],
        ],
      ],
    );
  });

  it('conflicts only where another owner holds a different value, and force takes the field', () => {
    const current = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { p: 'z', n: 'c' } };
    const entries = (): OwnedEntry[] => [
      {
        manager: 'edit',
        operation: 'Update',
        subresource: undefined,
        apiVersion: 'v1',
        time: T,
        paths: [
          ['data', 'p'],
          ['data', 'n'],
        ],
      },
    ];
    const applied = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' }, data: { p: 'a' } };
    const refused = applyFields(current, applied, entries(), 'op', undefined, false, T, all);
    assert.deepEqual(refused.conflicts, [{ manager: 'edit', path: ['data', 'p'] }]);
    const forced = applyFields(current, applied, entries(), 'op', undefined, true, T, all);
    assert.deepEqual(forced.object.data, { p: 'a', n: 'c' });
    assert.deepEqual(
      forced.entries.map((e) => [e.manager, e.paths]),
      [
        ['edit', [['data', 'n']]],
        ['op', [['data', 'p']]],
      ],
    );
    const same = applyFields(current, { ...applied, data: { p: 'z' } }, entries(), 'op', undefined, false, T, all);
    assert.deepEqual(same.conflicts, []);
  });
});

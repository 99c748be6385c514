import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonEqual } from './json.ts';

describe('jsonEqual', () => {
  const cases: [unknown, unknown][] = [
    [
      { a: 1, b: [1, { c: 'x' }] },
      { b: [1, { c: 'x' }], a: 1 },
    ],
    [{ a: 1, gone: undefined }, { a: 1 }],
    [{ list: [undefined] }, { list: [null] }],
    [{ a: { b: 1 } }, { a: { b: 2 } }],
    [{ a: [1, 2] }, { a: [2, 1] }],
    [{ a: 1 }, { a: 1, b: null }],
    [{ a: '1' }, { a: 1 }],
    [[], {}],
  ];
  for (const [a, b] of cases) {
    it(`${JSON.stringify(a)} vs ${JSON.stringify(b)}: as their JSON round trips compare`, () => {
      const roundTrip = (v: unknown): string => JSON.stringify(sorted(JSON.parse(JSON.stringify(v))));
      assert.equal(jsonEqual(a, b), roundTrip(a) === roundTrip(b));
      assert.equal(jsonEqual(b, a), jsonEqual(a, b));
    });
  }
});

/** Keys in order, so two round trips compare as strings. */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(
      Object.entries(v)
        .sort(([x], [y]) => x.localeCompare(y))
        .map(([k, x]) => [k, sorted(x)]),
    );
  }
  return v;
}

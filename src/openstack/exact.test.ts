import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConsistencyError } from './errors.ts';
import { exactlyNamed, type Named } from './exact.ts';

// Mostly a small pool, so that generated lists often hold the name none, one, two or several times.
const pooled = fc.constantFrom('web', 'web-1', 'Web', 'web.*', '', ' web');
const nameArb = fc.oneof({ weight: 4, arbitrary: pooled }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
const itemName: fc.Arbitrary<string | null | undefined> = fc.oneof(
  { weight: 6, arbitrary: nameArb },
  fc.constant(null),
  fc.constant(undefined),
);
const itemsArb: fc.Arbitrary<Named[]> = fc
  .array(itemName, { maxLength: 12 })
  .map((names) => names.map((name, i) => ({ id: `id-${String(i)}`, name })));

/** Names a fuzzy filter (case-insensitive, prefix, regular expression) would match but an exact one must not. */
function nearMisses(name: string): string[] {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [
    name.toUpperCase(),
    name.toLowerCase(),
    `${name.charAt(0).toUpperCase()}${name.slice(1)}`,
    `${name}-1`,
    `${name}0`,
    name.slice(0, -1),
    `x${name}`,
    ` ${name}`,
    `${name} `,
    ` ${name} `,
    `${name}\n`,
    escaped,
    `^${escaped}$`,
    `${name}.*`,
    '.*',
    `${name}.`,
  ].filter((n) => n !== name);
}

describe('exactlyNamed', () => {
  it('is undefined iff no item has the name, the item iff one does, and throws iff several do', () => {
    fc.assert(
      fc.property(itemsArb, nameArb, (items, name) => {
        const matching = items.filter((i) => i.name === name);
        if (matching.length < 2) {
          assert.equal(exactlyNamed(items, name, 'server'), matching[0]);
          return;
        }
        assert.throws(
          () => exactlyNamed(items, name, 'server'),
          (e: unknown) => {
            assert.ok(e instanceof ConsistencyError);
            assert.equal(e.code, 'OS_CONSISTENCY');
            assert.deepEqual(
              e.ids,
              matching.map((i) => i.id),
            );
            for (const i of matching) assert.ok(e.message.includes(i.id), `${e.message} lacks ${i.id}`);
            assert.ok(e.message.includes(JSON.stringify(name)));
            assert.ok(e.message.includes('server'));
            return true;
          },
        );
      }),
      { numRuns: 500 },
    );
  });

  it('returns the very item, not a copy', () => {
    const item = { id: 'id-1', name: 'web' };
    assert.equal(exactlyNamed([{ id: 'id-0', name: 'db' }, item], 'web', 'server'), item);
  });

  it('accepts any iterable, such as a generator', () => {
    function* gen(): Generator<Named> {
      yield { id: 'id-0', name: 'web' };
      yield { id: 'id-1', name: 'web' };
    }
    assert.throws(() => exactlyNamed(gen(), 'web', 'server'), ConsistencyError);
  });

  it('never matches a near-miss name: case, prefix, regex-special characters, surrounding spaces', () => {
    fc.assert(
      fc.property(
        fc.oneof(pooled, fc.string({ minLength: 1, maxLength: 10 }), fc.stringMatching(/^[a-z.*+?()[\]\\^$| -]{1,8}$/)),
        (name) => {
          const items = nearMisses(name).map((n, i) => ({ id: `id-${String(i)}`, name: n }));
          assert.equal(exactlyNamed(items, name, 'server'), undefined);
          // The same list with the exact name added finds just that one.
          const exact = { id: 'exact', name };
          assert.equal(exactlyNamed([...items, exact], name, 'server'), exact);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('treats null and missing names as matching nothing, not even the empty name', () => {
    assert.equal(
      exactlyNamed([{ id: 'a', name: null }, { id: 'b', name: undefined }, { id: 'c' }], '', 'server'),
      undefined,
    );
  });
});

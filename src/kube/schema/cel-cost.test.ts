import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { estimateRuleCost, estimateSchemaCosts } from './cel-cost.ts';
import type { JSONSchemaProps } from './types.ts';
import { defined } from '../../util/defined.ts';

type Scalar = 'number' | 'string' | 'boolean' | 'integer' | 'duration' | 'date-time';
const scalar = (type: Scalar): JSONSchemaProps =>
  type === 'duration' || type === 'date-time' ? { type: 'string', format: type } : { type };
const array = (items: Scalar, maxItems?: number): JSONSchemaProps => ({
  type: 'array',
  items: scalar(items),
  ...defined({ maxItems }),
});
const map = (values: Scalar, maxProperties?: number): JSONSchemaProps => ({
  type: 'object',
  additionalProperties: scalar(values),
  ...defined({ maxProperties }),
});
const string = (maxLength?: number): JSONSchemaProps => ({
  type: 'string',
  ...defined({ maxLength }),
});

/**
 * Expected costs from kube-apiserver's own table (apiextensions-apiserver pkg/apiserver/schema/cel
 * compilation_test.go, TestCostEstimation): each case unbounded, then with the given bound.
 */
const kubernetesCases: readonly [string, string, JSONSchemaProps, number][] = [
  ['number array with all', 'self.all(x, true)', array('number'), 4_718_591],
  ['number array with all, maxItems 10', 'self.all(x, true)', array('number', 10), 32],
  ['string array with all', 'self.all(x, true)', array('string'), 3_145_727],
  ['string array with all, maxItems 20', 'self.all(x, true)', array('string', 20), 62],
  ['boolean array with all', 'self.all(x, true)', array('boolean'), 1_887_437],
  ['map of numbers with all', 'self.all(x, true)', map('number'), 1_348_169],
  ['map of strings with all', 'self.all(x, true)', map('string'), 1_179_647],
  ['map of booleans with all, maxProperties 100', 'self.all(x, true)', map('boolean', 100), 302],
  ['string with contains', "self.contains('test')", string(), 314_574],
  ['string with contains, maxLength 10', "self.contains('test')", string(10), 5],
  ['string with startsWith', "self.startsWith('test')", string(), 2],
  ['concat string', 'size(self + "hello") > size("hello")', string(), 314_578],
  ['concat string, maxLength 4', 'size(self + "hello") > size("hello")', string(4), 7],
  ['index of array with numbers', 'self[1] == 0.0', array('number'), 2],
  ['index of array with strings', 'self[1] == self[1]', array('string', 8), 314_577],
  ['O(n^2) loop, maxItems 10', 'self.all(x, self.all(y, true))', array('number', 10), 352],
  ['O(n^3) loop, maxItems 10', 'self.all(x, self.all(y, self.all(z, true)))', array('number', 10), 3_552],
  ['regex matches simple', 'self.matches("x")', string(), 314_574],
  ['regex matches simple, maxLength 50', 'self.matches("x")', string(50), 22],
  ['regex matches empty string', '"".matches("(((((((((())))))))))[0-9]")', string(), 7],
  ['regex matches empty regex', 'self.matches("")', string(), 1],
  ['map of strings with value length', 'self.all(x, x.contains(self[x]))', map('string'), 2_752_507],
  ['set string maxLength to zero', 'self == "x"', string(0), 1],
  ['set maxLength greater than estimated', 'self.all(x, x == 0.0)', array('number', 3 * 1024 * 2048), 25_165_826],
  ['check cost of size call', 'oldSelf.size() == self.size()', map('integer', 10), 5],
  ['check cost of timestamp comparison', 'self["a"] == self["b"]', map('date-time'), 8],
  ['check cost of duration comparison', 'self["c"] == self["d"]', map('duration', 42), 8],
  [
    'enums with maxLength equals to the longest possible value',
    "self.contains('A')",
    { type: 'string', enum: ['A', 'B', 'C', 'LongValue'] },
    2,
  ],
  [
    'enums with maxLength 1000',
    "self.contains('A')",
    { type: 'string', enum: ['A', 'B', 'C', 'LongValue'], maxLength: 1000 },
    401,
  ],
  [
    'extended library split',
    'self.str.split(self.separator) == []',
    { type: 'object', properties: { str: string(), separator: string() } },
    629_160,
  ],
  [
    'extended library split, maxLength 10',
    'self.str.split(self.separator) == []',
    { type: 'object', properties: { str: string(10), separator: string(10) } },
    22,
  ],
  ['extended library lowerAscii', "self.lowerAscii() == 'lower!'", string(), 314_575],
];

describe('CEL cost estimate', () => {
  for (const [name, rule, schema, expected] of kubernetesCases) {
    it(`matches Kubernetes: ${name}`, () => {
      assert.equal(estimateRuleCost(rule, schema), expected);
    });
  }

  it('multiplies a rule by how often it can run: bounded lists above it, else what fits in a request', () => {
    const listener = (maxItems?: number): JSONSchemaProps => ({
      type: 'object',
      properties: {
        listeners: {
          type: 'array',
          ...defined({ maxItems }),
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: string(63) },
            'x-kubernetes-validations': [{ rule: "self.name != ''" }],
          },
        },
      },
    });
    const [bounded] = estimateSchemaCosts(listener(16));
    assert.deepEqual(bounded, {
      path: 'listeners[*]',
      rule: "self.name != ''",
      cost: 2, // self, .name; comparing with '' costs nothing
      cardinality: 16,
      total: 32,
      unbounded: [],
    });
    // Unbounded: 3 MiB over the item's smallest form, {"name":""} (2 + 4 + 2 + 4 = 12 bytes) plus a comma.
    const [unbounded] = estimateSchemaCosts(listener());
    assert.equal(unbounded?.cardinality, Math.floor((3 * 1024 * 1024 - 2) / 13));
  });

  it('types the root as a resource: metadata.name is there even when the schema does not declare it', () => {
    const [root] = estimateSchemaCosts({
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'size(self.metadata.name) <= 63' }],
    });
    assert.ok(root !== undefined);
    assert.equal(root.cost, 5);
    assert.equal(root.cardinality, 1);
  });

  it('names the lists and strings a rule iterates or traverses whose size is only the 3 MiB estimate', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: {
        prefix: string(),
        name: string(63),
        tags: { type: 'array', items: string(63) },
        kind: { type: 'string', enum: ['a', 'bb'] },
      },
      'x-kubernetes-validations': [
        { rule: 'self.prefix == oldSelf.prefix' },
        { rule: 'self.name == oldSelf.name && self.kind == oldSelf.kind' },
        { rule: 'self.tags.all(t, t != self.name)' },
        { rule: "self.prefix == 'x'" },
        { rule: "self.prefix.split('/').size() == 2" },
      ],
    };
    const root: JSONSchemaProps = { type: 'object', properties: { spec } };
    assert.deepEqual(
      estimateSchemaCosts(root).map((c) => c.unbounded),
      [[], [], ['spec.tags'], [], ['spec.prefix']],
      'a comparison is costed but walks nothing',
    );
  });

  it('refuses a function it has no cost model for, rather than guessing', () => {
    assert.throws(
      () => estimateRuleCost('self.isSorted()', array('number')),
      /no cost model for the CEL function 'isSorted'/,
    );
  });
});

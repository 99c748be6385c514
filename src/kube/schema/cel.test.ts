import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateRules } from './cel.ts';
import type { JSONSchemaProps } from './types.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: { size: { type: 'integer' } },
      'x-kubernetes-validations': [{ rule: 'self.size >= 0', message: 'size is negative' }],
    },
    status: { type: 'object', properties: { conditions: { type: 'array', items: { type: 'object' } } } },
  },
};

/** `value`, counting how often its keys are listed. */
function counted(value: Record<string, unknown>): { value: Record<string, unknown>; listed: () => number } {
  let listed = 0;
  const proxy = new Proxy(value, {
    ownKeys(target) {
      listed++;
      return Reflect.ownKeys(target);
    },
  });
  return { value: proxy, listed: () => listed };
}

describe('evaluateRules', () => {
  it('evaluates the rules where the schema has them', () => {
    assert.deepEqual(evaluateRules({ spec: { size: 1 } }, undefined, schema, ''), []);
    assert.deepEqual(
      evaluateRules({ spec: { size: -1 } }, undefined, schema, '').map((c) => [c.field, c.message]),
      [['spec', 'size is negative']],
    );
  });

  it('does not walk a subtree whose schema has no rule anywhere under it', () => {
    const status = counted({ conditions: [{ type: 'Ready' }] });
    assert.deepEqual(evaluateRules({ spec: { size: 1 }, status: status.value }, undefined, schema, ''), []);
    assert.equal(status.listed(), 0);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { fieldOf } from './problem.ts';
import { violationsOf } from './validation.ts';

describe('validation errors', () => {
  it('names each field once, as a pointer and dotted, with the schema keyword as the rule', () => {
    const schema = Type.Object({
      spec: Type.Object(
        { ports: Type.Array(Type.Integer({ maximum: 10 })), name: Type.String() },
        { additionalProperties: false },
      ),
    });
    const errors = [...Compile(schema).Errors({ spec: { ports: [1, 20], extra: true } })];
    const found = violationsOf(errors as never).map((v) => `${v.field}:${v.rule}`);
    assert.deepEqual(found.sort(), ['spec.extra:additionalProperties', 'spec.name:required', 'spec.ports[1]:maximum']);
  });

  it('turns JSON pointers into dotted fields', () => {
    assert.equal(fieldOf('/spec/listeners/0/pool/members/12/port'), 'spec.listeners[0].pool.members[12].port');
    assert.equal(fieldOf(''), '');
    assert.equal(fieldOf('/a~1b'), 'a/b');
  });
});

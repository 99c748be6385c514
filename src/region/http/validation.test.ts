import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { DNS_LABEL_PATTERN, IPv4Address, IPv4Prefix } from '../apis/shared.ts';
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

  it('says in words what an address, a prefix or a label must look like; another pattern keeps its expression', () => {
    const schema = Type.Object({
      address: IPv4Address('an address'),
      prefix: IPv4Prefix('a prefix'),
      label: Type.String({ pattern: DNS_LABEL_PATTERN }),
      other: Type.String({ pattern: '^x$' }),
    });
    const errors = [
      ...Compile(schema).Errors({ address: '10.0.0.1/24', prefix: '10.0.0.300/24', label: 'A', other: 'y' }),
    ];
    const found = Object.fromEntries(violationsOf(errors as never).map((v) => [v.field, `${v.rule}: ${v.message}`]));
    assert.deepEqual(found, {
      address: 'pattern: must be an IPv4 address in dotted decimal, such as 192.0.2.10',
      prefix: 'pattern: must be an IPv4 prefix in CIDR notation, such as 10.0.0.0/24',
      label: 'pattern: must be lower-case letters, digits and hyphens, starting with a letter and ending alphanumeric',
      other: 'pattern: must match pattern "^x$"',
    });
  });

  it('turns JSON pointers into dotted fields', () => {
    assert.equal(fieldOf('/spec/listeners/0/pool/members/12/port'), 'spec.listeners[0].pool.members[12].port');
    assert.equal(fieldOf(''), '');
    assert.equal(fieldOf('/a~1b'), 'a/b');
  });
});

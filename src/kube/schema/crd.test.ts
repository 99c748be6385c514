import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeInvalidError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { compileRule } from './cel.ts';
import { checkCrd, prepareCustomResource, servedVersion, type JSONSchemaProps } from './crd.ts';
import { validateValue } from './structural.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['name'],
      'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min above max' }],
      properties: {
        name: {
          type: 'string',
          maxLength: 5,
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'immutable' }],
        },
        min: { type: 'integer', default: 1 },
        max: { type: 'integer', default: 3, minimum: 0 },
        id: { type: 'string', format: 'uuid' },
        anything: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        port: { 'x-kubernetes-int-or-string': true },
      },
    },
  },
};

const crd: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'things', kind: 'Thing' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
};

const served = (() => {
  const { spec, causes } = checkCrd(crd);
  assert.deepEqual(causes, []);
  const v = servedVersion(spec, 'v1');
  if (v === undefined) throw new Error('v1 is served');
  return v;
})();

const thing = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata: { name: 't' },
  spec,
});

function causes(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof KubeInvalidError) return error.causes.map((c) => `${c.field}: ${c.message}`);
    throw error;
  }
  return [];
}

describe('custom resources under a structural schema', () => {
  it('defaults, prunes and keeps preserved fields', () => {
    const out = prepareCustomResource(
      thing({ name: 'a', junk: 1, anything: { x: { y: 2 } }, port: 'http' }),
      undefined,
      served,
    );
    assert.deepEqual(out.spec, { name: 'a', min: 1, max: 3, anything: { x: { y: 2 } }, port: 'http' });
  });

  it('reports every failure as a field cause', () => {
    const found = causes(() =>
      prepareCustomResource(thing({ max: -1, id: 'nope', name: 'toolong', port: true }), undefined, served),
    );
    assert.equal(found.length, 4, found.join('\n'));
    assert.ok(found.some((c) => c.startsWith('spec.max:')));
    assert.ok(found.some((c) => c.startsWith('spec.id:')));
    assert.ok(found.some((c) => c.startsWith('spec.name:')));
    assert.ok(found.some((c) => c.startsWith('spec.port:')));
    assert.deepEqual(
      causes(() => prepareCustomResource(thing({}), undefined, served)),
      ['spec.name: Required value'],
    );
  });

  it('refuses a duplicate in a list-type set, and a duplicate key in a list-type map, on the later index', () => {
    const set: JSONSchemaProps = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } };
    assert.deepEqual(validateValue([1, 2, 1], set, 'spec.ids'), [
      { field: 'spec.ids[2]', reason: 'FieldValueDuplicate', message: 'Duplicate value: 1' },
    ]);
    const map: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['address', 'port'],
      items: {
        type: 'object',
        properties: { address: { type: 'string' }, port: { type: 'integer' }, weight: { type: 'integer' } },
      },
    };
    const members = [
      { address: 'a', port: 80, weight: 1 },
      { address: 'a', port: 81, weight: 1 },
      { address: 'a', port: 80, weight: 2 },
    ];
    assert.deepEqual(
      validateValue(members, map, 'spec.members').map((c) => [c.field, c.message]),
      [['spec.members[2]', 'Duplicate value: {"address":"a","port":80}']],
    );
    assert.deepEqual(validateValue(members.slice(0, 2), map, 'spec.members'), []);
    assert.deepEqual(validateValue([1, 1], { ...set, 'x-kubernetes-list-type': 'atomic' }, 'spec.ids'), []);
  });

  it('runs transition rules only on update, and cross-field rules always', () => {
    const created = prepareCustomResource(thing({ name: 'a' }), undefined, served);
    assert.deepEqual(
      causes(() => prepareCustomResource(thing({ name: 'b' }), created, served)),
      ['spec.name: immutable'],
    );
    assert.deepEqual(
      causes(() => prepareCustomResource(thing({ name: 'a', min: 5 }), undefined, served)),
      ['spec: min above max'],
    );
  });
});

describe('ratcheting: an update does not judge again what it left as it was (KEP-4008)', () => {
  // What was stored before the schema tightened: a name too long, min above max. Written past the schema here.
  const stored = { ...thing({ name: 'toolong', min: 5, max: 3 }), status: { phase: 'old' } } as KubeObject;
  const withStatus = (phase: string): KubeObject => ({ ...stored, status: { phase } });
  const statusSchema: JSONSchemaProps = {
    ...schema,
    properties: { ...schema.properties, status: { type: 'object', properties: { phase: { type: 'string' } } } },
  };
  const statusServed = { ...served, schema: statusSchema };

  it('accepts a status write beside an unchanged spec that no longer validates', () => {
    assert.deepEqual(
      causes(() => prepareCustomResource(withStatus('new'), stored, statusServed)),
      [],
    );
  });

  it('still judges what changed: schema and rules alike, and transition rules even on unchanged values', () => {
    assert.deepEqual(
      causes(() => prepareCustomResource({ ...withStatus('new'), status: { phase: 7 } }, stored, statusServed)),
      ['status.phase: Invalid value: 7: status.phase in body must be of type string: "integer"'],
    );
    // Within a changed spec, the unchanged name is still not judged; the rule on the spec, which changed, is.
    const changed = { ...stored, spec: { name: 'toolong', min: 6, max: 3 } } as KubeObject;
    assert.deepEqual(
      causes(() => prepareCustomResource(changed, stored, statusServed)),
      ['spec: min above max'],
    );
    const renamed = { ...stored, spec: { name: 'longer', min: 1, max: 3 } } as KubeObject;
    assert.deepEqual(
      causes(() => prepareCustomResource(renamed, stored, statusServed)),
      ['spec.name: Invalid value: "longer": spec.name in body may not be longer than 5'],
    );
    // A transition rule that an unchanged value fails is still evaluated (Kubernetes never ratchets oldSelf rules).
    const never: JSONSchemaProps = {
      ...statusSchema,
      properties: {
        ...statusSchema.properties,
        spec: {
          ...schema.properties?.['spec'],
          'x-kubernetes-validations': [{ rule: 'self != oldSelf', message: 'must change' }],
        },
      },
    };
    assert.deepEqual(
      causes(() => prepareCustomResource(withStatus('new'), stored, { ...served, schema: never })),
      ['spec: must change'],
    );
  });

  it('judges everything on create', () => {
    assert.deepEqual(
      causes(() => prepareCustomResource(stored, undefined, statusServed)),
      ['spec.name: Invalid value: "toolong": spec.name in body may not be longer than 5'],
    );
  });
});

function problem(compiled: ReturnType<typeof compileRule>): string {
  return typeof compiled === 'string' ? compiled : 'compiled';
}

describe('CRD checks', () => {
  it('refuses a rule that does not parse or calls an unknown function, and a non-structural schema', () => {
    assert.match(problem(compileRule({ rule: 'self.a >' })), /compilation failed/);
    assert.match(problem(compileRule({ rule: 'self.quantity()' })), /function 'quantity'/);
    assert.match(problem(compileRule({ rule: 'other == 1' })), /undeclared reference to 'other'/);
    const bad = structuredClone(crd) as KubeObject & {
      spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] };
    };
    const root = bad.spec.versions[0]?.schema.openAPIV3Schema;
    if (root) root.properties = { spec: { properties: { x: { type: 'string' } } } };
    assert.deepEqual(
      checkCrd(bad).causes.map((c) => c.field),
      ['spec.versions[0].schema.openAPIV3Schema.properties[spec].type'],
    );
  });

  it('requires the name to be plural.group', () => {
    const wrong = { ...crd, metadata: { name: 'other.example.com' } };
    assert.deepEqual(
      checkCrd(wrong).causes.map((c) => c.field),
      ['metadata.name'],
    );
  });
});

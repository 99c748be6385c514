import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { customResourceDefinition, toJSONSchemaProps, type KindDefinition } from './crd.ts';
import { checkCrd } from './schema/crd.ts';

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
}

describe('toJSONSchemaProps', () => {
  it('gives enums a type and turns unions of literals into enums', () => {
    const out = toJSONSchemaProps(
      Type.Object({ a: Type.Enum(['x', 'y']), b: Type.Union([Type.Literal(1), Type.Literal(2)]) }),
    );
    assert.deepEqual(at(out, 'properties.a'), { type: 'string', enum: ['x', 'y'] });
    assert.deepEqual(at(out, 'properties.b'), { type: 'integer', enum: [1, 2] });
  });

  it('spells string maps as additionalProperties and drops empty required lists', () => {
    const out = toJSONSchemaProps(Type.Object({ m: Type.Optional(Type.Record(Type.String(), Type.Integer())) }));
    assert.deepEqual(out, {
      type: 'object',
      properties: { m: { type: 'object', additionalProperties: { type: 'integer' } } },
    });
  });

  it('keeps Kubernetes extensions and rules as written', () => {
    const list = Type.Array(Type.Object({ type: Type.String() }), {
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      'x-kubernetes-validations': [{ rule: 'size(self) < 3', message: 'too many' }],
    });
    const out = toJSONSchemaProps(list) as Record<string, unknown>;
    assert.equal(out['x-kubernetes-list-type'], 'map');
    assert.deepEqual(out['x-kubernetes-list-map-keys'], ['type']);
    assert.deepEqual(out['x-kubernetes-validations'], [{ rule: 'size(self) < 3', message: 'too many' }]);
  });

  it('refuses constructs a structural schema cannot express', () => {
    assert.throws(() => toJSONSchemaProps(Type.Union([Type.String(), Type.Integer()])), /anyOf/);
    assert.throws(() => toJSONSchemaProps(Type.Enum(['a', 1])), /one scalar type/);
    assert.throws(() => toJSONSchemaProps(Type.Object({ a: Type.Unsafe({ oneOf: [] }) })), /<root>\.a: oneOf/);
  });
});

describe('customResourceDefinition', () => {
  const kind: KindDefinition = {
    type: { group: 'example.org', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true },
    schema: Type.Object({ spec: Type.Object({ size: Type.Integer({ minimum: 1 }) }) }),
    printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
  };

  it('builds a valid CRD with the status subresource by default and no categories or short names', () => {
    const crd = customResourceDefinition(kind);
    assert.equal(crd.metadata.name, 'widgets.example.org');
    assert.deepEqual(checkCrd(crd).causes, []);
    assert.deepEqual(at(crd, 'spec.names'), {
      plural: 'widgets',
      singular: 'widget',
      kind: 'Widget',
      listKind: 'WidgetList',
    });
    const version = (at(crd, 'spec.versions') as Record<string, unknown>[])[0] ?? assert.fail('one version');
    assert.deepEqual(version.subresources, { status: {} });
    assert.deepEqual(version.additionalPrinterColumns, [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }]);
    assert.equal(at(crd, 'spec.scope'), 'Namespaced');
  });

  it('names categories and short names, and leaves the status subresource out on request', () => {
    const crd = customResourceDefinition({
      ...kind,
      type: { ...kind.type, namespaced: false },
      statusSubresource: false,
      categories: ['things'],
      shortNames: ['wd'],
    });
    assert.deepEqual(at(crd, 'spec.names.categories'), ['things']);
    assert.deepEqual(at(crd, 'spec.names.shortNames'), ['wd']);
    assert.equal(at(crd, 'spec.scope'), 'Cluster');
    const version = (at(crd, 'spec.versions') as Record<string, unknown>[])[0] ?? assert.fail('one version');
    assert.equal(version.subresources, undefined);
  });
});

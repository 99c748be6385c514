import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type EmbeddedStore } from '../../kube/embedded/store.ts';
import { KubeInvalidError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { checkCrd, prepareCustomResource, servedVersion } from '../../kube/schema/crd.ts';
import { systemClock } from '../../util/clock.ts';
import { customResourceDefinition } from '../../kube/crd.ts';
import { networkPrefixProblem, networkType, regionKinds } from './index.ts';
import { formatIPv4, formatPrefix, isCanonicalPrefix, parsePrefix } from '../../util/ipv4.ts';
import { expectedDefaults, invalidSamples, sampleType, validSamples, withSpec } from './testing/samples.ts';
import { vlanAllocationName } from '../openstack/names.ts';
import { vlanAllocationType } from './vlan-allocation.ts';
import { openRegionStore } from './testing/store.ts';

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
}

describe('VLANAllocation schema (property)', () => {
  const kind = regionKinds.find((k) => k.type === vlanAllocationType) ?? assert.fail('VLANAllocation is listed');
  const served = servedVersion(checkCrd(customResourceDefinition(kind)).spec, 'v1alpha1') ?? assert.fail('served');
  const table = (ids: number[]): KubeObject =>
    withSpec('VLANAllocation', { allocations: ids.map((id) => ({ id, physicalNetworkID: `n${id}` })) });

  it('accepts exactly the tables of distinct IDs within 1-4094', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: -5, max: 4100 }), fc.constantFrom(0, 1, 4094, 4095)), { maxLength: 6 }),
        (ids) => {
          const valid = ids.every((id) => id >= 1 && id <= 4094) && new Set(ids).size === ids.length;
          let accepted = true;
          try {
            prepareCustomResource(table(ids), undefined, served);
          } catch (error) {
            assert.ok(error instanceof KubeInvalidError);
            accepted = false;
          }
          assert.equal(accepted, valid, JSON.stringify(ids));
        },
      ),
    );
  });
});

describe('Network prefix rules in CEL (property)', () => {
  const kind = regionKinds.find((k) => k.type === networkType) ?? assert.fail('Network is listed');
  const served = servedVersion(checkCrd(customResourceDefinition(kind)).spec, 'v1alpha1') ?? assert.fail('served');

  it('accept exactly the canonical prefixes from /8 to /24, as request validation does', () => {
    const prefixes = fc
      .record({ address: fc.integer({ min: 0, max: 2 ** 32 - 1 }), length: fc.integer({ min: 0, max: 32 }) })
      .map(({ address, length }) => `${formatIPv4(address)}/${String(length)}`);
    const canonical = prefixes.map((p) => formatPrefix(parsePrefix(p) ?? assert.fail(p)));
    fc.assert(
      fc.property(fc.oneof(prefixes, canonical), (prefix) => {
        const valid = isCanonicalPrefix(prefix) && networkPrefixProblem(prefix) === undefined;
        let accepted = true;
        try {
          prepareCustomResource(withSpec('Network', { prefix }), undefined, served);
        } catch (error) {
          assert.ok(error instanceof KubeInvalidError);
          accepted = false;
        }
        assert.equal(accepted, valid, prefix);
      }),
      { numRuns: 500 },
    );
  });
});

describe('region CRDs in the embedded store', () => {
  let store: EmbeddedStore;
  before(async () => {
    store = await openRegionStore(systemClock);
  });
  after(() => store.close());

  it('serves every kind with its status subresource', () => {
    const served = store.servedKinds().map((k) => k.type.kind);
    for (const kind of regionKinds) assert.ok(served.includes(kind.type.kind), kind.type.kind);
    const crd = customResourceDefinition(regionKinds[0] ?? assert.fail());
    assert.deepEqual(at(crd, 'spec.names.categories'), ['unikorn']);
  });

  for (const [kind, sample] of Object.entries(validSamples)) {
    it(`accepts and defaults a valid ${kind}`, async () => {
      const created = await store.create<KubeObject>(sampleType(kind), sample);
      for (const [path, value] of Object.entries(expectedDefaults[kind] ?? {})) {
        assert.deepEqual(at(created.spec, path), value, `${kind} spec.${path}`);
      }
      assert.deepEqual(created.metadata.labels, sample.metadata.labels);
    });
  }

  it('has a valid sample for every kind', () => {
    assert.deepEqual(Object.keys(validSamples).sort(), regionKinds.map((k) => k.type.kind).sort());
  });

  it('defaults an empty VLAN table, named per region', async () => {
    const name = vlanAllocationName('r1');
    assert.equal(name, 'openstack.r1');
    const created = await store.create<KubeObject>(sampleType('VLANAllocation'), {
      ...withSpec('VLANAllocation', {}),
      metadata: { name, namespace: 'default' },
    });
    assert.deepEqual(created.spec, { allocations: [] });
  });

  for (const bad of invalidSamples) {
    it(`rejects ${bad.kind}: ${bad.title}`, async () => {
      const type = sampleType(bad.kind);
      const name = `invalid-${invalidSamples.indexOf(bad)}`;
      const object = { ...withSpec(bad.kind, bad.spec), metadata: { name, namespace: 'default' } };
      const write = async (): Promise<unknown> => {
        if (bad.update !== true) return store.create(type, object);
        const created = await store.create(type, {
          ...withSpec(bad.kind, validSamples[bad.kind]?.spec as never),
          metadata: object.metadata,
        });
        return store.update(type, { ...object, metadata: created.metadata });
      };
      await assert.rejects(write, (error: unknown) => {
        assert.ok(error instanceof KubeInvalidError, String(error));
        const fields = error.causes.map((c) => c.field);
        assert.ok(fields.includes(bad.field), `expected a cause on ${bad.field}, got ${fields.join(', ')}`);
        return true;
      });
    });
  }
});

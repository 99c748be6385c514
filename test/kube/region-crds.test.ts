/**
 * The generated region CRDs against a real kube-apiserver 1.20 (started through scripts/kube-apiserver.sh): every
 * CRD is accepted and served, every valid sample is stored and defaulted, and every invalid sample whose rule
 * 1.20 can enforce (OpenAPI: types, enums, patterns, bounds, required) is refused. CEL rules came in 1.23, so
 * those samples are covered by the embedded store only. Skipped loudly when the binary is not built, outside CI.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeInvalidError } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { regionKinds } from '../../src/region/apis/index.ts';
import {
  expectedDefaults,
  invalidSamples,
  sampleType,
  validSamples,
  withSpec,
} from '../../src/region/apis/testing/samples.ts';
import { installRegionCrds } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const namespace = `region-crds-${process.pid}`;

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
}

const inNamespace = (object: KubeObject, name = object.metadata.name): KubeObject => ({
  ...object,
  metadata: { ...object.metadata, name, namespace },
});

await withRealApiServer('test/kube/region-crds.test.ts', (apiserver) => {
  describe('region CRDs on kube-apiserver 1.20', () => {
    let client: KubernetesClient;

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await installRegionCrds(client);
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    });

    after(() => {
      client.close();
    });

    it('accepts every CRD with its printer columns and categories', async () => {
      for (const kind of regionKinds) {
        const crd = await client.get(
          builtin.customResourceDefinition,
          undefined,
          `${kind.type.plural}.${kind.type.group}`,
        );
        assert.deepEqual(at(crd, 'spec.names.categories'), kind.categories);
        assert.ok(kind.categories?.includes('unikorn'), kind.type.kind);
        const [version] = at(crd, 'spec.versions') as { additionalPrinterColumns?: unknown[] }[];
        assert.equal(version?.additionalPrinterColumns?.length, kind.printerColumns.length, kind.type.kind);
      }
    });

    for (const [kind, sample] of Object.entries(validSamples)) {
      it(`stores and defaults a valid ${kind}`, async () => {
        const created = await client.create<KubeObject>(sampleType(kind), inNamespace(sample));
        for (const [path, value] of Object.entries(expectedDefaults[kind] ?? {})) {
          assert.deepEqual(at(created.spec, path), value, `${kind} spec.${path}`);
        }
      });
    }

    for (const bad of invalidSamples.filter((s) => !s.cel)) {
      it(`refuses ${bad.kind}: ${bad.title}`, async () => {
        const object = inNamespace(withSpec(bad.kind, bad.spec), `invalid-${invalidSamples.indexOf(bad)}`);
        await assert.rejects(client.create(sampleType(bad.kind), object), (error: unknown) => {
          assert.ok(error instanceof KubeInvalidError, String(error));
          // 1.20 names list items without their index (spec.listeners.name): compare the last segment.
          const leaf =
            bad.field
              .replace(/\[\d+\]/g, '')
              .split('.')
              .pop() ?? '';
          assert.ok(
            error.causes.some((c) => c.field.endsWith(leaf)) || error.message.includes(leaf),
            `expected ${bad.field} in ${error.message}`,
          );
          return true;
        });
      });
    }
  });
});

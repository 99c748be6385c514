/** The conformance suite against the embedded SQLite backend, plus what only the embedded store promises. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeGoneError, KubeInvalidError } from '../../src/kube/errors.ts';
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { systemClock } from '../../src/util/clock.ts';
import { conformance } from './conformance.ts';
import { collect, widgetCrd, widgetType } from './fixtures.ts';

conformance('embedded', () => {
  const store = openEmbeddedStore(':memory:', { clock: systemClock, bookmarkIntervalMs: 20 });
  return Promise.resolve({
    client: store,
    close: () => store.close(),
    supports: { garbageCollection: true, cel: true },
    compact: () => {
      store.compact(0);
      return Promise.resolve();
    },
  });
});

describe('embedded store specifics', () => {
  it('sends a bookmark when the resourceVersion moved without a matching change', async () => {
    const store = openEmbeddedStore(':memory:', { clock: systemClock, bookmarkIntervalMs: 10 });
    try {
      const list = await store.list(builtin.configMap);
      const watching = collect(
        store,
        builtin.configMap,
        { namespace: 'default', resourceVersion: list.resourceVersion, allowBookmarks: true },
        (es) => es.some((e) => e.type === 'BOOKMARK'),
      );
      await store.create(builtin.secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'default' },
      });
      const events = await watching;
      const bookmark = events.find((e) => e.type === 'BOOKMARK');
      assert.ok(Number(bookmark?.object.metadata.resourceVersion) > Number(list.resourceVersion));
    } finally {
      await store.close();
    }
  });

  it('forgets history beyond its retention, and a watch from before is Gone', async () => {
    const store = openEmbeddedStore(':memory:', { clock: systemClock, changeRetention: 5 });
    try {
      const start = await store.list(builtin.configMap);
      for (let i = 0; i < 1100; i++) {
        await store.create(builtin.configMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `c${i}`, namespace: 'default' },
        });
      }
      const it = store.watch(builtin.configMap, { resourceVersion: start.resourceVersion })[Symbol.asyncIterator]();
      await assert.rejects(it.next(), KubeGoneError);
    } finally {
      await store.close();
    }
  });

  it('refuses a CEL rule that uses a function the library lacks, naming it', async () => {
    const store = openEmbeddedStore(':memory:', { clock: systemClock });
    try {
      const crd = structuredClone(widgetCrd) as typeof widgetCrd & {
        spec: { versions: [{ schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } } }] };
      };
      crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'] = [
        { rule: 'self.tags.isSorted()' },
      ];
      const error = await store.create(builtin.customResourceDefinition, crd).catch((e: unknown) => e);
      assert.ok(error instanceof KubeInvalidError, String(error));
      assert.match(error.causes[0]?.message ?? '', /isSorted/);
    } finally {
      await store.close();
    }
  });

  it('serves a CRD kind only while the CRD exists, and drops its objects with it', async () => {
    const store = openEmbeddedStore(':memory:', { clock: systemClock });
    try {
      await assert.rejects(store.list(widgetType));
      await store.create(builtin.customResourceDefinition, widgetCrd);
      await store.create(widgetType, {
        apiVersion: 'conformance.openregion.dev/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: 'default' },
        spec: { size: 1 },
      });
      await store.delete(builtin.customResourceDefinition, undefined, widgetCrd.metadata.name);
      await assert.rejects(store.list(widgetType));
      await store.create(builtin.customResourceDefinition, widgetCrd);
      assert.equal((await store.list(widgetType)).items.length, 0);
    } finally {
      await store.close();
    }
  });
});

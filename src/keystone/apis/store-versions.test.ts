import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openEmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { FakeClient } from '../../runtime/testing/fake-client.ts';
import { ManualClock } from '../../util/clock.ts';
import { ESO_GROUP, storeTypeAt } from './eso.ts';
import { discoverStoreType, StoreVersions } from './store-versions.ts';

const store = (version: string) => ({
  apiVersion: `external-secrets.io/${version}`,
  kind: 'SecretStore',
  metadata: { name: 'openbao-tenant-store', namespace: 'cp' },
  spec: { provider: { vault: {} } },
});

describe('SecretStore versions by discovery', () => {
  it('prefers v1, takes v1beta1, and finds nothing in a group serving neither', async () => {
    const client = new FakeClient();
    const cases: [string[], string | undefined][] = [
      [['v1', 'v1beta1'], 'v1'],
      [['v1beta1', 'v1alpha1'], 'v1beta1'],
      [['v1alpha1'], undefined],
      [[], undefined],
    ];
    for (const [served, expected] of cases) {
      client.serveVersions(ESO_GROUP, 'clustersecretstores', served);
      assert.equal((await discoverStoreType(client, 'ClusterSecretStore'))?.version, expected, served.join());
    }
    assert.equal((await discoverStoreType(client, 'ClusterSecretStore'))?.namespaced, undefined);
    client.serveVersions(ESO_GROUP, 'clustersecretstores', ['v1']);
    assert.equal((await discoverStoreType(client, 'ClusterSecretStore'))?.namespaced, false);
  });

  it('remembers the version, and discovers again when a read there finds nothing (an ESO upgrade)', async () => {
    const client = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    const crd = (served: readonly string[]): KubeObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'secretstores.external-secrets.io' },
      spec: {
        group: ESO_GROUP,
        scope: 'Namespaced',
        names: { plural: 'secretstores', singular: 'secretstore', kind: 'SecretStore', listKind: 'SecretStoreList' },
        versions: served.map((name, i) => ({
          name,
          served: true,
          storage: i === 0,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        })),
      },
    });
    try {
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cp' } });
      await client.create(builtin.customResourceDefinition, crd(['v1beta1', 'v1alpha1']));
      await client.create(storeTypeAt('SecretStore', 'v1beta1'), store('v1beta1'));
      const versions = new StoreVersions();
      const first = await versions.read(client, 'SecretStore', 'cp', 'openbao-tenant-store');
      assert.equal(first.kind === 'found' && first.type.version, 'v1beta1');
      // ESO 2.x replaces the CRD: v1 only. The remembered v1beta1 read misses, and discovery moves to v1.
      const live = await client.get(builtin.customResourceDefinition, undefined, 'secretstores.external-secrets.io');
      await client.update(builtin.customResourceDefinition, { ...crd(['v1']), metadata: live.metadata });
      const after = await versions.read(client, 'SecretStore', 'cp', 'openbao-tenant-store');
      assert.equal(after.kind === 'found' && after.type.version, 'v1');
      assert.equal((await versions.read(client, 'SecretStore', 'cp', 'other')).kind, 'absent');
      await client.delete(builtin.customResourceDefinition, undefined, 'secretstores.external-secrets.io');
      assert.deepEqual(await versions.read(client, 'SecretStore', 'cp', 'other'), { kind: 'unserved' });
    } finally {
      await client.close();
    }
  });
});

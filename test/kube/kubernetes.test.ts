/**
 * The conformance suite against a real kube-apiserver 1.20 + etcd, started here through scripts/kube-apiserver.sh,
 * plus what only a real server shows. The binary is built once per machine (`scripts/kube-apiserver.sh build`,
 * about 13 minutes). Without it the suite is skipped loudly; under CI=true it is built first, and a failed build
 * fails the run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeConflictError, KubeGoneError } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom, kubeConfigFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { conformance } from './conformance.ts';
import { withRealApiServer } from './real-apiserver.ts';
import { collect, eventually, widgetCrd, widgetType, type Widget } from './fixtures.ts';

await withRealApiServer('test/kube/kubernetes.test.ts', (apiserver) => {
  conformance('kubernetes', async () => {
    const client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
    return {
      client,
      close: () => {
        client.close();
        return Promise.resolve();
      },
      // 1.20 without kube-controller-manager: no garbage collector, and CRD CEL rules came in 1.23+.
      supports: { garbageCollection: false, cel: false },
    };
  });

  describe('kubernetes backend specifics', () => {
    let client: KubernetesClient;
    const ns = `k8s-${process.pid}`;
    const widget = (name: string): Widget => ({
      apiVersion: `${widgetType.group}/${widgetType.version}`,
      kind: 'Widget',
      metadata: { name, namespace: ns },
      spec: { size: 1 },
    });

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await client.apply(builtin.customResourceDefinition, widgetCrd, { fieldManager: 'conformance', force: true });
      await eventually('the Widget kind to be served', () => client.list(widgetType));
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    });

    after(() => {
      client.close();
    });

    it('connects in-cluster with the service account token and CA, verifying TLS', async () => {
      const state = dirname(await apiserver.kubeconfigPath());
      const prefix = await mkdtemp(join(tmpdir(), 'openregion-sa-'));
      const saDir = join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
      await mkdir(saDir, { recursive: true });
      const [token = ''] = (await readFile(join(state, 'tokens.csv'), 'utf8')).split(',');
      await writeFile(join(saDir, 'token'), token);
      // kube-apiserver's generated serving certificate file carries the CA that signed it.
      await copyFile(join(state, 'certs', 'apiserver.crt'), join(saDir, 'ca.crt'));
      await writeFile(join(saDir, 'namespace'), ns);
      const server = new URL(
        kubeConfigFrom({ kubeconfig: await apiserver.kubeconfig() }).getCurrentCluster()?.server ?? '',
      );
      // client-node reads the service address from the environment, as in a pod.
      process.env.KUBERNETES_SERVICE_HOST = server.hostname;
      process.env.KUBERNETES_SERVICE_PORT = server.port;
      const inCluster = kubeClientFrom({ inCluster: true, serviceAccountPathPrefix: prefix });
      try {
        // No namespace given: the service account's namespace file decides.
        const created = await inCluster.create(builtin.configMap, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'in-cluster' },
        });
        assert.equal(created.metadata.namespace, ns);
      } finally {
        inCluster.close();
        await rm(prefix, { recursive: true, force: true });
      }
    });

    it('serves Leases for leader election: a stale renewal is a Conflict', async () => {
      const lease = await client.create(builtin.lease, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'leader', namespace: ns },
        spec: { holderIdentity: 'a', leaseDurationSeconds: 15 },
      });
      await client.update(builtin.lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } });
      await assert.rejects(
        client.update(builtin.lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'c' } }),
        KubeConflictError,
      );
    });

    it('keeps keys the typed models do not know: a raw CRD keeps x-kubernetes-preserve-unknown-fields', async () => {
      const crd = await client.get(builtin.customResourceDefinition, undefined, widgetCrd.metadata.name);
      assert.match(JSON.stringify(crd.spec), /"x-kubernetes-preserve-unknown-fields":true/);
    });

    it('watches from now without replaying existing objects', async () => {
      await client.create(widgetType, widget('old'));
      const watching = collect<Widget>(client, widgetType, { namespace: ns }, (events) => events.length > 0);
      // The watch asks for the current version first; give it time to be established before the write.
      await new Promise((r) => setTimeout(r, 500));
      await client.create(widgetType, widget('new'));
      const [first] = await watching;
      assert.equal(first?.type, 'ADDED');
      assert.equal(first.object.metadata.name, 'new');
    });

    it('reports a resourceVersion older than the watch cache as KubeGoneError', async () => {
      // The watch cache starts at the apiserver's start; version 1 predates it ("too old resource version").
      // (Events have no watch cache and are served from etcd, which would replay from version 1 instead.)
      const iterate = async () => {
        // A server that replayed instead would keep the stream open: the timeout ends it, and the test fails.
        const signal = AbortSignal.timeout(10_000);
        for await (const e of client.watch(widgetType, { namespace: ns, resourceVersion: '1', signal })) {
          assert.fail(`unexpected ${e.type}`);
        }
      };
      await assert.rejects(iterate(), KubeGoneError);
    });
  });
});

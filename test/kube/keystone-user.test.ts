/**
 * The KeystoneUser reconciler against a real kube-apiserver 1.20 + etcd (scripts/kube-apiserver.sh): the status
 * subresource, a real deletion held by the finalizer, and server-side apply with forced ownership, which is the
 * delivered Secret's repair. K-ORC and ESO are their real CRDs only (ESO 2.x's); their status is written here as
 * theirs would be. Passes
 * are driven directly, so the test decides when each runs. Without the binary the file is skipped loudly; under
 * CI=true it is built first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { isKubeAlreadyExists } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin, type ResourceType } from '../../src/kube/resource-type.ts';
import { silentLogger } from '../../src/runtime/logger.ts';
import { Instrumenter } from '../../src/runtime/metrics.ts';
import type { Result } from '../../src/runtime/types.ts';
import { systemClock } from '../../src/util/clock.ts';
import {
  controlPlaneType,
  KORC_WAITING_FOR_EXTERNAL,
  keystoneUserType,
  korcUserType,
  pushSecretType,
  secretStoreType,
} from '../../src/keystone/apis/index.ts';
import { keystoneUserChildNames, keystoneUserKind } from '../../src/keystone/order/names.ts';
import { keystoneUserSubConditionTypes } from '../../src/keystone/user/constants.ts';
import { reconcileKeystoneUser, type KeystoneUserReconcilerDeps } from '../../src/keystone/user/reconciler.ts';
import { realCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { eventually } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const CP_NS = `ku-cp-${String(process.pid)}`;
const NS = `ku-tenant-${String(process.pid)}`;
const names = keystoneUserChildNames({ kind: keystoneUserKind, cluster: '', namespace: NS, name: 'workflow' });

const condition = (type: string, status: string, reason = 'Test', message = 'test', observedGeneration?: number) => ({
  type,
  status,
  reason,
  message,
  lastTransitionTime: '2026-01-01T00:00:00Z',
  ...(observedGeneration === undefined ? {} : { observedGeneration }),
});
const decode = (secret: KubeObject, key: string) =>
  Buffer.from((secret['data'] as Record<string, string>)[key] ?? '', 'base64').toString('utf8');

await withRealApiServer('test/kube/keystone-user.test.ts', (apiserver) => {
  describe('KeystoneUser reconciler against kube-apiserver 1.20', () => {
    let client: KubernetesClient;
    const createdCrds: string[] = [];
    let deps: KeystoneUserReconcilerDeps;

    const pass = (name = 'workflow'): Promise<Result> =>
      reconcileKeystoneUser(
        deps,
        { cluster: '', namespace: NS, name },
        { signal: new AbortController().signal, log: silentLogger(), clock: systemClock },
      );
    const order = () => client.get(keystoneUserType, NS, 'workflow');
    const reason = async (type: string) => (await order()).status?.conditions?.find((c) => c.type === type)?.reason;
    const writeStatus = (type: ResourceType, name: string, status: Record<string, unknown>) =>
      client.patch(type, CP_NS, name, { type: 'merge', patch: { status } }, { subresource: 'status' });
    const delivered = () => client.get(builtin.secret, NS, 'workflow-credentials');

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      for (const crd of realCrds({ eso: 'v2.9' })) {
        // Another suite's CRD of the name may still be going (test/kube/keystone-admission.test.ts deletes its own).
        await eventually(
          `no terminating ${crd.metadata.name}`,
          async () => {
            const live = await client
              .get(builtin.customResourceDefinition, undefined, crd.metadata.name)
              .catch(() => undefined);
            return live?.metadata.deletionTimestamp === undefined ? true : undefined;
          },
          60_000,
        );
        // A create, not an apply: 1.20 drops the CEL rules it does not know rather than refuse them.
        try {
          await client.create(builtin.customResourceDefinition, crd);
          createdCrds.push(crd.metadata.name);
        } catch (error) {
          if (!isKubeAlreadyExists(error)) throw error;
        }
      }
      for (const type of [keystoneUserType, korcUserType, pushSecretType, controlPlaneType, secretStoreType]) {
        // Discovery (which the reconciler reads for the SecretStore version) catches up a moment after the list.
        await eventually(`${type.kind} served`, async () =>
          (await client.servedVersions(type.group, type.plural)).includes(type.version) ? true : undefined,
        );
      }
      for (const name of [CP_NS, NS]) {
        await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      }
      await client.create(controlPlaneType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'ControlPlane',
        metadata: { name: 'cp', namespace: CP_NS },
        spec: { namespaceAssignments: [{ namespace: NS }] },
      });
      await writeStatus(controlPlaneType, 'cp', { conditions: [condition('AdminCredentialReady', 'True')] });
      await client.create(secretStoreType, {
        apiVersion: 'external-secrets.io/v1',
        kind: 'SecretStore',
        metadata: { name: 'openbao-tenant-store', namespace: CP_NS },
        spec: {
          provider: {
            vault: {
              server: 'http://127.0.0.1:1',
              path: 'kv-v2',
              auth: { tokenSecretRef: { name: 'kv-token', key: 'token' } },
            },
          },
        },
      });
      await writeStatus(secretStoreType, 'openbao-tenant-store', { conditions: [condition('Ready', 'True')] });
      let drawn = 0;
      deps = {
        management: client,
        resolve: (cluster) => (cluster === '' ? client : undefined),
        instrumenter: new Instrumenter(new Registry(), keystoneUserSubConditionTypes, systemClock),
        randomBytes: (size) => Buffer.alloc(size, ++drawn),
      };
    });

    after(async () => {
      // A failed test may leave the finalizer: strip it, so the namespace and the CRDs can go.
      for (const o of (await client.list(keystoneUserType, { namespace: NS })).items) {
        await client
          .update(keystoneUserType, { ...o, metadata: { ...o.metadata, finalizers: [] } })
          .catch(() => undefined);
      }
      for (const name of [NS, CP_NS]) await client.delete(builtin.namespace, undefined, name).catch(() => undefined);
      for (const name of createdCrds) {
        await client.delete(builtin.customResourceDefinition, undefined, name).catch(() => undefined);
      }
      client.close();
    });

    it('converges: the finalizer, the children in the ControlPlane namespace, status through the subresource', async () => {
      await client.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name: 'workflow', namespace: NS },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
      assert.deepEqual(await pass(), { requeueAfterMs: 1000 });
      assert.deepEqual((await order()).metadata.finalizers, ['c5c3.io/keystoneuser-teardown']);
      await pass();
      assert.equal(await reason('UserReady'), 'ProbingForCollision');
      const probe = await client.get(korcUserType, CP_NS, names.probe);
      await writeStatus(korcUserType, names.probe, {
        conditions: [
          condition('Available', 'False', 'Progressing', KORC_WAITING_FOR_EXTERNAL, probe.metadata.generation),
        ],
      });
      await pass();
      const user = await client.get(korcUserType, CP_NS, names.user);
      assert.equal(user.spec.resource?.passwordRef, names.password(1));
      await writeStatus(korcUserType, names.user, {
        id: 'kid',
        conditions: [
          condition('Available', 'True', 'Success', 'OpenStack resource is available', user.metadata.generation),
        ],
        resource: { appliedPasswordRef: names.password(1) },
      });
      await pass();
      assert.equal(await reason('DeliveryReady'), 'BackupNotSynced');
      const ps = await client.get(pushSecretType, CP_NS, names.backup);
      await writeStatus(pushSecretType, names.backup, {
        conditions: [condition('Ready', 'True')],
        syncedResourceVersion: `${String(ps.metadata.generation)}-pushed`,
      });
      // The order is on the management cluster and the rotation interval defaulted to 720h: it waits for its timer.
      const result = await pass();
      assert.ok((result.requeueAfterMs ?? 0) > 719 * 3_600_000);
      const o = await order();
      assert.equal(await reason('Ready'), 'AllReady');
      assert.equal(o.spec.rotation?.interval, '720h');
      assert.equal(o.status?.userID, 'kid');
      const secret = await delivered();
      assert.equal(
        decode(secret, 'password'),
        decode(await client.get(builtin.secret, CP_NS, names.password(1)), 'password'),
      );
      assert.equal(secret.metadata.ownerReferences?.[0]?.uid, o.metadata.uid);
    });

    it('the forced apply is the repair: an edited key is rewritten, a key another manager added stays', async () => {
      const before = await delivered();
      await client.apply(
        builtin.secret,
        {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'workflow-credentials', namespace: NS },
          data: { password: Buffer.from('edited').toString('base64'), extra: Buffer.from('theirs').toString('base64') },
        },
        { fieldManager: 'someone-else', force: true },
      );
      assert.equal(decode(await delivered(), 'password'), 'edited');
      await pass();
      const repaired = await delivered();
      assert.equal(decode(repaired, 'password'), decode(before, 'password'));
      assert.equal(decode(repaired, 'extra'), 'theirs');
      await client.delete(builtin.secret, NS, 'workflow-credentials');
      await pass();
      assert.equal(decode(await delivered(), 'password'), decode(before, 'password'));
    });

    it('a real deletion waits for the teardown: the children go first, then the finalizer and the order', async () => {
      await client.delete(keystoneUserType, NS, 'workflow');
      assert.ok((await order()).metadata.deletionTimestamp !== undefined);
      assert.deepEqual(await pass(), { requeueAfterMs: 10_000 });
      const children: ResourceType[] = [korcUserType, pushSecretType];
      for (const type of children) {
        assert.deepEqual((await client.list(type, { namespace: CP_NS })).items, []);
      }
      assert.deepEqual(
        (await client.list(builtin.secret, { namespace: CP_NS, labelSelector: 'c5c3.io/keystoneuser-name=workflow' }))
          .items,
        [],
      );
      assert.deepEqual(await pass(), {});
      await eventually('the order gone', () =>
        order().then(
          () => undefined,
          () => true,
        ),
      );
    });
  });
});

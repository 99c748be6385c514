import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '../../kube/client.ts';
import { KubeForbiddenError } from '../../kube/errors.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { keystoneUserType, type KeystoneUser } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType, keystoneRoleAssignmentType } from '../apis/orders.ts';
import { childLabels } from '../order/names.ts';
import { CONDITION_USER_READY, KEYSTONE_USER_FINALIZER } from './constants.ts';
import { CP, CP_NS, userFixture, NAME, NS, TARGET, type UserFixture } from './testing/fixture.ts';

const PUBLISHED = { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } };

/** Records every delete a client issues, as `<plural>/<name>`. */
function recording(log: string[]) {
  return (_cluster: string, client: Client): Client => ({
    ...client,
    get: client.get.bind(client),
    list: client.list.bind(client),
    watch: client.watch.bind(client),
    create: client.create.bind(client),
    update: client.update.bind(client),
    patch: client.patch.bind(client),
    apply: client.apply.bind(client),
    servedVersions: client.servedVersions.bind(client),
    delete: async (type, namespace, name, options) => {
      await client.delete(type, namespace, name, options);
      log.push(`${type.kind}/${name}`);
    },
  });
}

async function startDeleting(h: UserFixture): Promise<void> {
  const order = await h.order();
  await h.orderClient.update(keystoneUserType, {
    ...order,
    metadata: { ...order.metadata, deletionTimestamp: '2026-06-01T00:00:00Z' },
  });
}

async function reference(h: UserFixture, type: ResourceType, name: string): Promise<void> {
  await h.orderClient.create(type, {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: type.kind,
    metadata: { name, namespace: NS },
    spec: { controlPlaneRef: { name: CP }, userRef: { name: NAME }, projectRef: { name: 'p' }, role: 'reader' },
  });
}

const finalizers = async (h: UserFixture) => (await h.order()).metadata.finalizers ?? [];

describe('Deletion and teardown', () => {
  it('DeleteRemovesChildrenThenReleasesTheFinalizer, in the spec\u2019s order', async () => {
    const log: string[] = [];
    const h = userFixture({ cluster: TARGET, wrap: recording(log) });
    await h.seedAll({}, PUBLISHED);
    await h.converge();
    const order = await h.order();
    await h.orderClient.update(keystoneUserType, { ...order, spec: { ...order.spec, passwordGeneration: 2 } });
    await h.pass();
    await h.management.create(korcUserType, {
      apiVersion: 'openstack.k-orc.cloud/v1alpha1',
      kind: 'User',
      metadata: { name: h.names.probe, namespace: CP_NS, labels: childLabels(h.ref) },
      spec: { cloudCredentialsRef: { secretName: 's', cloudName: 'c' } },
    });
    log.length = 0;
    await startDeleting(h);
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(log, [
      `PushSecret/${h.names.backup}`,
      `User/${h.names.user}`,
      `User/${h.names.probe}`,
      `Secret/${h.names.password(1)}`,
      `Secret/${h.names.password(2)}`,
      `Secret/${h.names.source}`,
      `Secret/${NAME}-credentials`,
    ]);
    assert.deepEqual(await finalizers(h), [KEYSTONE_USER_FINALIZER], 'held while deletes were still issued');
    assert.deepEqual(await h.pass(), {});
    assert.deepEqual(await finalizers(h), []);
  });

  /** An order converged, after which every delete of a K-ORC User is refused. */
  async function convergedRefusingUserDeletes(): Promise<UserFixture> {
    let refuse = false;
    const h = userFixture({
      refuse: { method: 'delete', plural: 'users', error: () => new KubeForbiddenError('no'), when: () => refuse },
    });
    await h.seedAll();
    await h.converge();
    refuse = true;
    return h;
  }

  it('DeleteFailsOpenWithoutTheControlPlane: the finalizer goes at once, errors and all', async () => {
    const h = await convergedRefusingUserDeletes();
    await h.management.delete(controlPlaneType, CP_NS, CP);
    await startDeleting(h);
    assert.deepEqual(await h.pass(), {});
    assert.deepEqual(await finalizers(h), []);
    assert.deepEqual(await h.names_in(korcUserType), [h.names.user], 'K-ORC has no credential left to delete it with');
  });

  it('TeardownFailures: with the ControlPlane present a failed delete fails the pass and keeps the finalizer', async () => {
    const h = await convergedRefusingUserDeletes();
    await startDeleting(h);
    await assert.rejects(h.pass(), AggregateError);
    assert.deepEqual(await finalizers(h), [KEYSTONE_USER_FINALIZER]);
  });

  it('DeleteOfAFrozenOrderTearsDown: the teardown never consults the assignment', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const cp = await h.management.get(controlPlaneType, CP_NS, CP);
    await h.management.update(controlPlaneType, { ...cp, spec: { ...cp.spec, namespaceAssignments: [] } });
    await startDeleting(h);
    await h.pass();
    await h.pass();
    assert.deepEqual(await finalizers(h), []);
    assert.deepEqual(await h.names_in(korcUserType), []);
  });

  it('SweepLeavesForeignObjectsAlone: labels without the prefix, the prefix without labels', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const secret = (name: string, labels?: Record<string, string>) =>
      h.management.create(builtin.secret, {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: CP_NS, ...(labels ? { labels } : {}) },
      });
    await secret('cp-admin-password', childLabels(h.ref));
    await secret(`${h.names.source}-copy`);
    await h.orderClient.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'unrelated', namespace: NS },
    });
    await startDeleting(h);
    await h.pass();
    await h.pass();
    assert.deepEqual(await finalizers(h), []);
    assert.deepEqual(await h.names_in(builtin.secret), ['cp-admin-password', `${h.names.source}-copy`]);
  });

  for (const [type, reason] of [
    [keystoneRoleAssignmentType, 'ReferencedByRoleAssignments'],
    [keystoneApplicationCredentialType, 'ReferencedByApplicationCredentials'],
  ] as const) {
    it(`the teardown holds with ${reason}, read through the order\u2019s cluster`, async () => {
      const h = userFixture({ cluster: TARGET });
      await h.seedAll({}, PUBLISHED);
      await h.converge();
      await reference(h, type, 'reader');
      await startDeleting(h);
      const before = [await h.names_in(korcUserType), await h.names_in(builtin.secret)];
      assert.deepEqual(await h.pass(), { requeueAfterMs: 60_000 });
      const c = (await h.order()).status?.conditions?.find((x) => x.type === CONDITION_USER_READY);
      assert.equal(c?.reason, reason);
      assert.match(
        c.message,
        new RegExp(`^${type.kind}\\(s\\) \\["reader"\\] in namespace "tenant-a" still reference this user`),
      );
      assert.deepEqual([await h.names_in(korcUserType), await h.names_in(builtin.secret)], before);
      await h.orderClient.delete(type, NS, 'reader');
      await h.pass();
      await h.pass();
      assert.deepEqual(await finalizers(h), []);
    });
  }

  it('an order without the finalizer has nothing to tear down', async () => {
    const h = userFixture();
    await h.seedOrder();
    await startDeleting(h);
    assert.deepEqual(await h.pass(), {});
    const order: KeystoneUser = await h.order();
    assert.equal(order.status, undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeForbiddenError, KubeInternalError } from '../../kube/errors.ts';
import { builtin } from '../../kube/resource-type.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { pushSecretType } from '../apis/eso.ts';
import { keystoneUserType } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { CONDITION_DELIVERY_READY, CONDITION_USER_READY, KEYSTONE_USER_FINALIZER } from './constants.ts';
import { NOT_PROVISIONED_MESSAGE } from './reconciler.ts';
import { CP, CP_NS, failing, userFixture, NAME, NS, TARGET } from './testing/fixture.ts';

const both = async (h: ReturnType<typeof userFixture>) =>
  [await h.condition(CONDITION_USER_READY), await h.condition(CONDITION_DELIVERY_READY)].map((c) => c?.reason);

describe('Gates, freeze, mappers, teardown, the hold: the pass', () => {
  it('MissingOrderIsNotAnError', async () => {
    const h = userFixture();
    assert.deepEqual(await h.pass(), {});
  });

  it('UnresolvableClusterIsSkipped: a deregistered cluster ends the pass without an error', async () => {
    const h = userFixture();
    assert.deepEqual(await h.pass(NAME, 'gone-cluster'), {});
  });

  it('InstallsTheFinalizerOnceAssigned: the finalizer pass requeues, writes no conditions and creates no children', async () => {
    const h = userFixture();
    await h.seedAll();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 1000 });
    const order = await h.order();
    assert.deepEqual(order.metadata.finalizers, [KEYSTONE_USER_FINALIZER]);
    assert.equal(order.status, undefined);
    assert.deepEqual(await h.names_in(korcUserType), []);
  });

  it('NoFinalizerOnAnOrderThatIsNotServed', async () => {
    const h = userFixture();
    await h.seedControlPlane({ namespaceAssignments: [{ namespace: 'other' }] });
    await h.seedOrder();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 60_000 });
    const order = await h.order();
    assert.equal(order.metadata.finalizers, undefined);
    assert.deepEqual(await both(h), ['NamespaceNotAssigned', 'NamespaceNotAssigned']);
  });

  it('OverlongClusterNameIsRefused before the ControlPlane is read', async () => {
    const long = 'c'.repeat(64);
    let reads = 0;
    const h = userFixture({
      cluster: TARGET,
      wrap: (c, client) =>
        c === '' ? failing(client, 'get', 'controlplanes', () => new Error(String(++reads))) : client,
    });
    h.clients.set(long, h.fakes.target);
    await h.seedOrder();
    assert.deepEqual(await h.pass(NAME, long), {});
    assert.deepEqual(await both(h), ['ClusterNameTooLong', 'ClusterNameTooLong']);
    assert.equal(reads, 0);
  });

  for (const [what, cluster, assignments] of [
    ['no entry at all', '', []],
    ['an entry for another namespace', '', [{ namespace: 'tenant-b' }]],
    ['a management entry used on a target', TARGET, [{ namespace: NS }]],
    ['a target entry used on the management cluster', '', [{ namespace: NS, targetClusterRef: { name: TARGET } }]],
    ['the same namespace on another target', TARGET, [{ namespace: NS, targetClusterRef: { name: 'edge-2' } }]],
  ] as const) {
    it(`NamespaceNotAssigned: ${what}`, async () => {
      const h = userFixture({ cluster });
      await h.seedControlPlane({ namespaceAssignments: [...assignments] });
      await h.seedOrder();
      assert.deepEqual(await h.pass(), { requeueAfterMs: 60_000 });
      const condition = await h.condition(CONDITION_USER_READY);
      assert.equal(condition?.reason, 'NamespaceNotAssigned');
      assert.match(condition.message, /the order is frozen/);
      assert.deepEqual(await h.names_in(korcUserType), []);
    });
  }

  it('RecordsEventsWithRows: a gate and each step that changes a condition leave one Event naming its row', async () => {
    const h = userFixture();
    await h.seedControlPlane({ namespaceAssignments: [] });
    await h.seedOrder();
    await h.pass();
    await h.pass();
    assert.equal(h.events.length, 1, `one Event for the unchanged gate: ${h.events.join(' | ')}`);
    assert.match(h.events[0] ?? '', /^Normal NamespaceNotAssigned: .*\(row admission:NamespaceNotAssigned\)$/);
    const converged = userFixture();
    await converged.seedAll();
    await converged.converge();
    const user = converged.events.filter((e) => / \(row provision:/.test(e));
    assert.ok(user.length > 0, `UserReady Events with their rows: ${converged.events.join(' | ')}`);
    assert.ok(
      converged.events.some((e) => /\(row delivery:/.test(e)),
      `DeliveryReady Events: ${converged.events.join(' | ')}`,
    );
  });

  it('TargetClusterEntryAdmitsTheOrder: the probe is created on management with the cluster label', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll();
    await h.pass();
    await h.pass();
    const probe = await h.management.get(korcUserType, CP_NS, h.names.probe);
    assert.equal(probe.metadata.labels?.['c5c3.io/keystoneuser-cluster'], TARGET);
    assert.equal(probe.metadata.labels['c5c3.io/keystoneuser-namespace'], NS);
    assert.equal((await h.condition(CONDITION_USER_READY))?.reason, 'ProbingForCollision');
    await assert.rejects(h.fakes.target.get(korcUserType, CP_NS, h.names.probe));
  });

  it('WithdrawnAssignmentFreezes: nothing is deleted or repaired, and the status keeps secretName', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    const cp = await h.management.get(controlPlaneType, CP_NS, CP);
    await h.management.update(controlPlaneType, { ...cp, spec: { ...cp.spec, namespaceAssignments: [] } });
    await h.management.delete(builtin.secret, NS, `${NAME}-credentials`);
    const before = await h.names_in(builtin.secret);
    assert.deepEqual(await h.pass(), { requeueAfterMs: 60_000 });
    assert.deepEqual(await h.names_in(builtin.secret), before);
    await assert.rejects(h.secret(`${NAME}-credentials`, h.management, NS), /not found/);
    const order = await h.order();
    assert.equal(order.status?.secretName, `${NAME}-credentials`);
    assert.deepEqual(await both(h), ['NamespaceNotAssigned', 'NamespaceNotAssigned']);
    assert.equal((await h.condition('Ready'))?.reason, 'NotAllReady');
  });

  it('ControlPlaneNotFound on the management cluster, deferred 10 s', async () => {
    const h = userFixture();
    await h.seedOrder();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    const c = await h.condition(CONDITION_USER_READY);
    assert.equal(c?.reason, 'ControlPlaneNotFound');
    assert.equal(c.message, 'ControlPlane default/cp not found; the order is deferred until it exists');
  });

  it('MissingControlPlaneOnATargetReadsAsNotAssigned, with the message an unassigned order gets', async () => {
    const missing = userFixture({ cluster: TARGET });
    await missing.seedOrder();
    assert.deepEqual(await missing.pass(), { requeueAfterMs: 60_000 });
    const unassigned = userFixture({ cluster: TARGET });
    await unassigned.seedControlPlane({ namespaceAssignments: [] });
    await unassigned.seedOrder();
    await unassigned.pass();
    const a = await missing.condition(CONDITION_USER_READY);
    const b = await unassigned.condition(CONDITION_USER_READY);
    assert.equal(a?.reason, 'NamespaceNotAssigned');
    assert.equal(a.message, b?.message);
  });

  it('WaitsForAdminCredential past the finalizer', async () => {
    const h = userFixture();
    await h.seedControlPlane({}, false);
    await h.seedStore();
    await h.seedOrder();
    await h.pass();
    assert.deepEqual(await h.pass(), { requeueAfterMs: 10_000 });
    assert.deepEqual(await both(h), ['WaitingForAdminCredential', 'WaitingForAdminCredential']);
  });

  it('ControlPlaneReadErrorIsWrapped, and no condition is written', async () => {
    const h = userFixture({
      wrap: (c, client) =>
        c === '' ? failing(client, 'get', 'controlplanes', () => new KubeInternalError('etcd down')) : client,
    });
    await h.seedOrder();
    await assert.rejects(h.pass(), /^Error: fetching ControlPlane default\/cp: KubeInternalError: etcd down/);
    assert.equal((await h.order()).status, undefined);
  });

  it('while the user is not provisioned, DeliveryReady waits and nothing is delivered', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.pass();
    await h.pass();
    const delivery = await h.condition(CONDITION_DELIVERY_READY);
    assert.equal(delivery?.reason, 'WaitingForServiceAccounts');
    assert.equal(delivery.message, NOT_PROVISIONED_MESSAGE);
    assert.deepEqual(await h.names_in(pushSecretType), []);
  });

  it('a converged order on the management cluster waits for its password timer', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '720h' } });
    const result = await h.converge();
    assert.equal(result.requeueAfterMs, 720 * 3_600_000);
    const ready = await h.condition('Ready');
    assert.equal(ready?.reason, 'AllReady');
    assert.equal(ready.message, 'All sub-conditions are ready');
    assert.equal((await h.order()).status?.observedGeneration, 1);
  });

  it('a converged order with the schedule off waits for an event only', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '0s' } });
    assert.deepEqual(await h.converge(), {});
  });

  it('RefusalComesBackOnTheRefresh: an order on a target comes back after 10 minutes at the latest', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll(
      { rotation: { interval: '720h' } },
      { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } },
    );
    assert.deepEqual(await h.converge(), { requeueAfterMs: 600_000 });
  });

  it('a pass that changes nothing writes nothing', async () => {
    const h = userFixture();
    await h.seedAll({ rotation: { interval: '720h' } });
    await h.converge();
    const version = (await h.order()).metadata.resourceVersion;
    await h.pass();
    assert.equal((await h.order()).metadata.resourceVersion, version);
  });

  it('a status write that fails fails the pass', async () => {
    let fail = false;
    const h = userFixture({
      refuse: {
        method: 'update',
        plural: 'keystoneusers',
        error: () => new KubeForbiddenError('no'),
        when: () => fail,
      },
    });
    await h.seedAll();
    await h.pass();
    fail = true;
    await assert.rejects(h.pass(), KubeForbiddenError);
  });

  it('the order is read and written through its own cluster', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll({}, { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } });
    await h.converge();
    await assert.rejects(h.management.get(keystoneUserType, NS, NAME));
    assert.equal((await h.order()).status?.secretName, `${NAME}-credentials`);
  });

  it('every pass names the row each step took', async () => {
    const h = userFixture();
    await h.seedAll();
    await h.converge();
    assert.deepEqual(h.rows, [
      'admission:InstallFinalizer',
      'admission:Admitted',
      'provision:P3-Probing',
      'delivery:D0-NotProvisioned',
      'admission:Admitted',
      'provision:P6-WaitAvailable',
      'delivery:D0-NotProvisioned',
      'admission:Admitted',
      'provision:P6-Provisioned',
      'delivery:D4-BackupNotSynced',
      'admission:Admitted',
      'provision:P6-Provisioned',
      'delivery:D6-Delivered',
    ]);
  });
});

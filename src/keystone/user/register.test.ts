import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { Manager } from '../../runtime/manager.ts';
import { Instrumenter } from '../../runtime/metrics.ts';
import type { ObjectEvent } from '../../runtime/predicates.ts';
import { FakeClient } from '../../runtime/testing/fake-client.ts';
import { ManualClock } from '../../util/clock.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { pushSecretType } from '../apis/eso.ts';
import { keystoneUserType } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType, keystoneRoleAssignmentType } from '../apis/orders.ts';
import { orderChildRequests } from '../order/mapping.ts';
import { childLabels, keystoneUserKind } from '../order/names.ts';
import {
  CONDITION_DELIVERY_READY,
  CONDITION_USER_READY,
  keystoneUserSubConditionTypes,
  SUB_RECONCILER_DELIVERY,
  SUB_RECONCILER_PROVISION,
} from './constants.ts';
import {
  controlPlaneToKeystoneUsersMapper,
  crUpdatePredicate,
  keystoneUserControlPlaneRefExtractor,
  keystoneUserReferenceRequests,
  registerKeystoneUserController,
} from './register.ts';
import { userFixture, NAME, NS, TARGET } from './testing/fixture.ts';

const order = (spec: unknown, namespace = 'tenant-a'): KubeObject => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'KeystoneUser',
  metadata: { name: 'workflow', namespace, generation: 1 },
  spec,
});
const update = (old: KubeObject, object: KubeObject): ObjectEvent => ({
  type: 'update',
  oldObject: old,
  object,
  cluster: '',
});

describe('Gates, freeze, mappers, teardown, the hold: the registration', () => {
  it('KeystoneUserControlPlaneRefExtractor', () => {
    assert.deepEqual(
      keystoneUserControlPlaneRefExtractor(order({ controlPlaneRef: { name: 'cp', namespace: 'default' } })),
      ['default/cp'],
    );
    assert.deepEqual(keystoneUserControlPlaneRefExtractor(order({ controlPlaneRef: { name: 'cp' } })), ['tenant-a/cp']);
    assert.deepEqual(keystoneUserControlPlaneRefExtractor(order({ controlPlaneRef: { name: '' } })), []);
    assert.deepEqual(keystoneUserControlPlaneRefExtractor(order(undefined)), []);
  });

  it('ControlPlaneToKeystoneUsersMapper: the indexed orders, on the management cluster', () => {
    const looked: string[] = [];
    const mapper = controlPlaneToKeystoneUsersMapper((value) => {
      looked.push(value);
      return [order({}), order({}, 'tenant-b')];
    });
    const cp = { apiVersion: 'c5c3.io/v1alpha1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'default' } };
    assert.deepEqual(mapper(cp, { type: 'create', object: cp, cluster: '' }), [
      { cluster: '', namespace: 'tenant-a', name: 'workflow' },
      { cluster: '', namespace: 'tenant-b', name: 'workflow' },
    ]);
    assert.deepEqual(looked, ['default/cp']);
  });

  it('ControlPlaneToKeystoneUsersMapper_ReturnsNilOnListError', () => {
    const mapper = controlPlaneToKeystoneUsersMapper(() => {
      throw new Error('no cache');
    });
    const cp = { apiVersion: 'v1', kind: 'ControlPlane', metadata: { name: 'cp', namespace: 'default' } };
    assert.deepEqual(mapper(cp, { type: 'create', object: cp, cluster: '' }), []);
  });

  it('KeystoneUserChildToRequests: the cluster label becomes the request\u2019s cluster', () => {
    const labels = childLabels({ kind: keystoneUserKind, cluster: TARGET, namespace: NS, name: NAME });
    const child = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x', namespace: 'default', labels } };
    assert.deepEqual(orderChildRequests(keystoneUserKind)(child), [{ cluster: TARGET, namespace: NS, name: NAME }]);
  });

  it('keystoneUserReferenceRequests: the user an assignment names, on the assignment\u2019s cluster', () => {
    const ra = {
      apiVersion: 'c5c3.io/v1alpha1',
      kind: 'KeystoneRoleAssignment',
      metadata: { name: 'r', namespace: NS },
      spec: { userRef: { name: NAME } },
    };
    assert.deepEqual(keystoneUserReferenceRequests(ra, { type: 'delete', object: ra, cluster: TARGET }), [
      { cluster: TARGET, namespace: NS, name: NAME },
    ]);
    assert.deepEqual(
      keystoneUserReferenceRequests({ ...ra, spec: {} }, { type: 'delete', object: ra, cluster: '' }),
      [],
    );
  });

  it('CRUpdatePredicate: a status write does not wake the order; a spec edit, a label and a deletion do', () => {
    const base = order({ passwordGeneration: 1 });
    assert.ok(!crUpdatePredicate(update(base, { ...base, status: { conditions: [] } })));
    assert.ok(crUpdatePredicate(update(base, { ...base, metadata: { ...base.metadata, generation: 2 } })));
    assert.ok(crUpdatePredicate(update(base, { ...base, metadata: { ...base.metadata, labels: { a: 'b' } } })));
    assert.ok(crUpdatePredicate(update(base, { ...base, metadata: { ...base.metadata, deletionTimestamp: 'now' } })));
    assert.ok(crUpdatePredicate({ type: 'create', object: base, cluster: '' }));
  });

  it('registers every watch of the spec with its clusters, filters and the field index', () => {
    const manager = new Manager({ client: new FakeClient(), clock: new ManualClock() });
    const controller = registerKeystoneUserController(manager);
    const watches = controller.watches.map((w) => [
      w.source,
      w.type.kind,
      w.clusters,
      w.clusterServesKind,
      w.predicates.length,
    ]);
    assert.deepEqual(watches, [
      ['for', keystoneUserType.kind, 'all', true, 1],
      ['watches', korcUserType.kind, 'management', false, 0],
      ['watches', builtin.secret.kind, 'management', false, 0],
      ['watches', pushSecretType.kind, 'management', false, 0],
      ['watches', keystoneRoleAssignmentType.kind, 'all', true, 1],
      ['watches', keystoneApplicationCredentialType.kind, 'all', true, 1],
      ['watches', controlPlaneType.kind, 'management', false, 1],
      ['owns', builtin.secret.kind, 'all', false, 0],
    ]);
    assert.throws(() => {
      manager.index(keystoneUserType, 'spec.controlPlaneRef', () => []);
    }, /already registered/);
  });
});

describe('Metrics instrumentation', () => {
  it('TestSubReconcilerConditionTypesCoversAllNames', () => {
    const conditionTypes = new Set([CONDITION_USER_READY, CONDITION_DELIVERY_READY]);
    for (const name of [SUB_RECONCILER_PROVISION, SUB_RECONCILER_DELIVERY]) {
      assert.ok(conditionTypes.has(keystoneUserSubConditionTypes.get(name) ?? 'UNKNOWN'), name);
    }
  });

  it('TestInstrumenterInstrument_KeystoneUserLabelPairs: neither name falls back to UNKNOWN', async () => {
    const registry = new Registry();
    const instrumenter = new Instrumenter(registry, keystoneUserSubConditionTypes, new ManualClock());
    for (const name of [SUB_RECONCILER_PROVISION, SUB_RECONCILER_DELIVERY]) {
      await assert.rejects(instrumenter.instrument(name, () => Promise.reject(new Error('x'))));
    }
    const errors = await registry.getSingleMetric('c5c3_operator_reconcile_errors_total')?.get();
    assert.deepEqual(
      errors?.values
        .map((v) => v.labels)
        .sort((a, b) => String(a['sub_reconciler']).localeCompare(String(b['sub_reconciler']))),
      [
        { sub_reconciler: 'KeystoneUserDelivery', condition_type: 'DeliveryReady' },
        { sub_reconciler: 'KeystoneUserProvision', condition_type: 'UserReady' },
      ],
    );
  });

  it('a full pass observes both steps\u2019 durations, and records no Events on either cluster', async () => {
    const h = userFixture({ cluster: TARGET });
    await h.seedAll({}, { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } });
    await h.converge();
    const durations = await h.registry.getSingleMetric('c5c3_operator_reconcile_duration_seconds')?.get();
    const observed = new Set(durations?.values.map((v) => v.labels['sub_reconciler']));
    assert.deepEqual([...observed].sort(), ['KeystoneUserDelivery', 'KeystoneUserProvision']);
    assert.deepEqual((await h.fakes.management.list(builtin.event)).items, []);
    assert.deepEqual((await h.fakes.target.list(builtin.event)).items, []);
  });
});

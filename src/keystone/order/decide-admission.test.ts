import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../kube/object.ts';
import {
  controlPlaneRefIndexValues,
  decideAdmission,
  gateConditions,
  namespaceAssignmentFor,
  resolveControlPlaneRef,
  type ControlPlaneGateView,
} from './decide-admission.ts';
import { keystoneUserKind, type OrderRef } from './names.ts';
import { ROTATION_INTERVAL_BOUNDS } from '../apis/keystoneuser.ts';

const order: OrderRef = { kind: keystoneUserKind, cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' };
const managementOrder: OrderRef = { ...order, cluster: '' };
const cpKey = { namespace: 'default', name: 'cp' };
const ready: Condition = {
  type: 'AdminCredentialReady',
  status: 'True',
  reason: 'Ready',
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

function plane(
  assignments: NonNullable<ControlPlaneGateView['spec']['namespaceAssignments']>,
  conditions: readonly Condition[] = [ready],
): ControlPlaneGateView {
  return { spec: { namespaceAssignments: assignments }, status: { conditions } };
}
const assignedOnTarget = plane([{ namespace: 'tenant-a', targetClusterRef: { name: 'edge-1' } }]);
const assignedOnManagement = plane([{ namespace: 'tenant-a' }]);

const FROZEN_ON_TARGET =
  'ControlPlane default/cp assigns no namespace "tenant-a" on target cluster "edge-1" (spec.namespaceAssignments); ' +
  'the order is frozen: nothing is provisioned, delivered or repaired, and what was created stays';

describe('Gates, freeze, mappers, teardown, the hold: the admission gates', () => {
  it('OverlongClusterNameIsRefused: no requeue, before the ControlPlane is read', () => {
    const decision = decideAdmission({
      order: { ...order, cluster: 'c'.repeat(64) },
      controlPlaneKey: cpKey,
      controlPlane: assignedOnTarget,
      hasFinalizer: true,
    });
    assert.equal(decision.row, 'ClusterNameTooLong');
    assert.ok('condition' in decision);
    assert.equal(decision.condition.reason, 'ClusterNameTooLong');
    assert.equal(
      decision.condition.message,
      "the order's cluster is registered under a name longer than 63 characters, which cannot label its children; the order is refused",
    );
    assert.deepEqual(decision.result, {});
    const fits = decideAdmission({
      order: { ...order, cluster: 'c'.repeat(63) },
      controlPlaneKey: cpKey,
      controlPlane: plane([{ namespace: 'tenant-a', targetClusterRef: { name: 'c'.repeat(63) } }]),
      hasFinalizer: true,
    });
    assert.equal(fits.row, 'Admitted');
  });

  it('ControlPlaneNotFound: on the management cluster, deferred with a 10 s requeue', () => {
    const decision = decideAdmission({
      order: managementOrder,
      controlPlaneKey: cpKey,
      controlPlane: undefined,
      hasFinalizer: false,
    });
    assert.deepEqual(decision, {
      row: 'ControlPlaneNotFound',
      condition: {
        reason: 'ControlPlaneNotFound',
        message: 'ControlPlane default/cp not found; the order is deferred until it exists',
      },
      result: { requeueAfterMs: 10_000 },
    });
  });

  it('MissingControlPlaneOnATargetReadsAsNotAssigned: identical reason and message, 1 m requeue', () => {
    const missing = decideAdmission({ order, controlPlaneKey: cpKey, controlPlane: undefined, hasFinalizer: true });
    const unassigned = decideAdmission({ order, controlPlaneKey: cpKey, controlPlane: plane([]), hasFinalizer: true });
    assert.equal(missing.row, 'ControlPlaneMissingOnTarget');
    assert.equal(unassigned.row, 'NamespaceNotAssigned');
    assert.ok('condition' in missing && 'condition' in unassigned);
    assert.deepEqual(missing.condition, unassigned.condition);
    assert.deepEqual(missing.condition, { reason: 'NamespaceNotAssigned', message: FROZEN_ON_TARGET });
    assert.deepEqual(missing.result, { requeueAfterMs: 60_000 });
  });

  describe('NamespaceNotAssigned', () => {
    const cases: [string, OrderRef, ControlPlaneGateView, string][] = [
      ['no entry at all', order, plane([]), FROZEN_ON_TARGET],
      [
        "an entry for another namespace (the ControlPlane's own)",
        order,
        plane([{ namespace: 'default' }]),
        FROZEN_ON_TARGET,
      ],
      ['a management entry used on a target', order, assignedOnManagement, FROZEN_ON_TARGET],
      [
        'a target entry used on the management cluster',
        managementOrder,
        assignedOnTarget,
        FROZEN_ON_TARGET.replace('target cluster "edge-1"', 'the management cluster'),
      ],
    ];
    for (const [title, ref, cp, message] of cases) {
      it(title, () => {
        const decision = decideAdmission({ order: ref, controlPlaneKey: cpKey, controlPlane: cp, hasFinalizer: true });
        assert.deepEqual(decision, {
          row: 'NamespaceNotAssigned',
          condition: { reason: 'NamespaceNotAssigned', message },
          result: { requeueAfterMs: 60_000 },
        });
      });
    }
  });

  it('NoFinalizerOnAnOrderThatIsNotServed: the freeze comes before the finalizer', () => {
    const decision = decideAdmission({ order, controlPlaneKey: cpKey, controlPlane: plane([]), hasFinalizer: false });
    assert.equal(decision.row, 'NamespaceNotAssigned');
  });

  it('InstallsTheFinalizerOnceAssigned: 1 s requeue and no condition', () => {
    const decision = decideAdmission({
      order,
      controlPlaneKey: cpKey,
      controlPlane: assignedOnTarget,
      hasFinalizer: false,
    });
    assert.deepEqual(decision, { row: 'InstallFinalizer', result: { requeueAfterMs: 1000 } });
  });

  it('InvalidDuration: past the freeze and the finalizer, before the admin credential; no requeue', () => {
    const bounds = ROTATION_INTERVAL_BOUNDS;
    const input = { order, controlPlaneKey: cpKey, hasFinalizer: true, durations: [{ value: '1ns', bounds }] };
    const refused = decideAdmission({
      ...input,
      controlPlane: plane([{ namespace: 'tenant-a', targetClusterRef: { name: 'edge-1' } }], []),
    });
    assert.equal(refused.row, 'InvalidDuration');
    assert.ok('condition' in refused);
    assert.equal(refused.condition.reason, 'InvalidDuration');
    assert.match(
      refused.condition.message,
      /^spec\.rotation\.interval "1ns": rotation\.interval is 0s or at least 1m;/,
    );
    assert.deepEqual(refused.result, {});
    assert.equal(decideAdmission({ ...input, controlPlane: plane([]) }).row, 'NamespaceNotAssigned');
    assert.equal(
      decideAdmission({ ...input, controlPlane: assignedOnTarget, hasFinalizer: false }).row,
      'InstallFinalizer',
    );
    const valid = { ...input, durations: [{ value: '720h', bounds }] };
    assert.equal(decideAdmission({ ...valid, controlPlane: assignedOnTarget }).row, 'Admitted');
  });

  it('WaitsForAdminCredential: 10 s requeue', () => {
    const notReady = { ...ready, status: 'False' as const };
    for (const conditions of [[], [notReady]]) {
      const decision = decideAdmission({
        order: managementOrder,
        controlPlaneKey: cpKey,
        controlPlane: plane([{ namespace: 'tenant-a' }], conditions),
        hasFinalizer: true,
      });
      assert.deepEqual(decision, {
        row: 'WaitingForAdminCredential',
        condition: {
          reason: 'WaitingForAdminCredential',
          message: 'ControlPlane default/cp reports AdminCredentialReady is not True; the order is deferred',
        },
        result: { requeueAfterMs: 10_000 },
      });
    }
  });

  it('TargetClusterEntryAdmitsTheOrder', () => {
    assert.equal(
      decideAdmission({ order, controlPlaneKey: cpKey, controlPlane: assignedOnTarget, hasFinalizer: true }).row,
      'Admitted',
    );
    assert.equal(namespaceAssignmentFor(assignedOnTarget, 'tenant-a', ''), undefined);
  });

  it('a gate writes one False condition per condition type', () => {
    const inputs = gateConditions(['UserReady', 'DeliveryReady'], { reason: 'R', message: 'M' }, 4);
    assert.deepEqual(inputs, [
      { type: 'UserReady', status: 'False', reason: 'R', message: 'M', observedGeneration: 4 },
      { type: 'DeliveryReady', status: 'False', reason: 'R', message: 'M', observedGeneration: 4 },
    ]);
  });

  it('KeystoneUserControlPlaneRefExtractor: default/cp, the order\u2019s namespace when empty, none without a name', () => {
    assert.deepEqual(controlPlaneRefIndexValues('tenant-a', { name: 'cp', namespace: 'default' }), ['default/cp']);
    assert.deepEqual(controlPlaneRefIndexValues('tenant-a', { name: 'cp' }), ['tenant-a/cp']);
    assert.deepEqual(controlPlaneRefIndexValues('tenant-a', { name: 'cp', namespace: '' }), ['tenant-a/cp']);
    assert.deepEqual(controlPlaneRefIndexValues('tenant-a', { name: '' }), []);
    assert.deepEqual(controlPlaneRefIndexValues('tenant-a', undefined), []);
    assert.deepEqual(resolveControlPlaneRef('tenant-a', { name: 'cp' }), { namespace: 'tenant-a', name: 'cp' });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childLabels, childPrefix, keystoneUserChildNames, keystoneUserKind, type OrderRef } from './names.ts';
import {
  keystoneUserDeleteRank,
  keystoneUserHolds,
  plannedDeletes,
  referenceHold,
  referencingUser,
  teardownOutcome,
} from './decide-teardown.ts';

const ref: OrderRef = { kind: keystoneUserKind, cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' };
const names = keystoneUserChildNames(ref);
const mine = (name: string) => ({ metadata: { name, labels: childLabels(ref) } });

describe('Gates, freeze, mappers, teardown, the hold: the teardown', () => {
  it('DeleteHoldsWhileRoleAssignmentsReferenceIt: nothing is deleted, 1 m requeue, the assignments named', () => {
    const assignments = referencingUser(
      [
        { metadata: { name: 'reader' }, spec: { userRef: { name: 'workflow' } } },
        { metadata: { name: 'admin' }, spec: { userRef: { name: 'workflow' } } },
        { metadata: { name: 'other' }, spec: { userRef: { name: 'someone' } } },
        { metadata: { name: 'no-spec' } },
      ],
      'workflow',
    );
    assert.deepEqual(assignments, ['admin', 'reader']);
    assert.deepEqual(referenceHold('user', 'tenant-a', keystoneUserHolds(assignments, ['cred'])), {
      row: 'Held',
      reason: 'ReferencedByRoleAssignments',
      message:
        'KeystoneRoleAssignment(s) ["admin" "reader"] in namespace "tenant-a" still reference this user; delete them ' +
        'first, because K-ORC guards the user with a finalizer while a role assignment references it',
      result: { requeueAfterMs: 60_000 },
    });
  });

  it('DeleteHoldsWhileApplicationCredentialsReferenceIt', () => {
    assert.deepEqual(referenceHold('user', 'tenant-a', keystoneUserHolds([], ['ci'])), {
      row: 'Held',
      reason: 'ReferencedByApplicationCredentials',
      message:
        'KeystoneApplicationCredential(s) ["ci"] in namespace "tenant-a" still reference this user; delete them ' +
        'first, because deleting the user deletes its credentials in Keystone, and K-ORC could no longer delete them',
      result: { requeueAfterMs: 60_000 },
    });
    assert.deepEqual(referenceHold('user', 'tenant-a', keystoneUserHolds([], [])), { row: 'NotHeld' });
  });

  it('DeleteRemovesChildrenThenReleasesTheFinalizer: the spec\u2019s delete order', () => {
    const listed = [
      mine(names.source),
      mine(names.password(2)),
      mine(names.password(10)),
      mine(names.user),
      mine(names.password(1)),
      mine(names.probe),
      mine(names.backup),
    ];
    assert.deepEqual(
      plannedDeletes(ref, listed, keystoneUserDeleteRank).map((c) => c.metadata.name.slice(childPrefix(ref).length)),
      ['backup', 'user', 'user-probe', 'password-v1', 'password-v2', 'password-v10', 'source'],
    );
  });

  it('SweepLeavesForeignObjectsAlone: another order\u2019s, the plane\u2019s, and unlabelled look-alikes', () => {
    const other: OrderRef = { ...ref, cluster: '' };
    const listed = [
      { metadata: { name: names.user, labels: childLabels(other) } },
      { metadata: { name: keystoneUserChildNames(other).user, labels: childLabels(other) } },
      { metadata: { name: 'cp-keystone', labels: childLabels(ref) } },
      { metadata: { name: names.backup } },
    ];
    assert.deepEqual(plannedDeletes(ref, listed, keystoneUserDeleteRank), []);
  });

  it('the finalizer is held while deletes were issued, released at once without the ControlPlane', () => {
    assert.deepEqual(teardownOutcome(true, 3, []), { row: 'WaitingForChildren', result: { requeueAfterMs: 10_000 } });
    assert.deepEqual(teardownOutcome(true, 0, []), { row: 'Released' });
    const failure = new Error('boom');
    assert.deepEqual(teardownOutcome(true, 0, [failure]), { row: 'SweepFailed', errors: [failure] });
  });

  it('DeleteFailsOpenWithoutTheControlPlane: released even with deletes issued or failing', () => {
    assert.deepEqual(teardownOutcome(false, 3, [new Error('boom')]), { row: 'ReleasedWithoutControlPlane' });
    assert.deepEqual(teardownOutcome(false, 0, []), { row: 'ReleasedWithoutControlPlane' });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition, KubeObject } from '../../kube/object.ts';
import { orderChildRequests, orderControlPlanePredicate } from './mapping.ts';
import { childLabels, keystoneUserKind } from './names.ts';

const toRequests = orderChildRequests(keystoneUserKind);

function child(labels: Record<string, string> | undefined): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'x', namespace: 'default', ...(labels ? { labels } : {}) },
  };
}

function cp(generation: number, adminReady: Condition['status'] | undefined, deletionTimestamp?: string): KubeObject {
  const conditions =
    adminReady === undefined
      ? []
      : [{ type: 'AdminCredentialReady', status: adminReady, reason: 'r', message: '', lastTransitionTime: 't' }];
  return {
    apiVersion: 'c5c3.io/v1alpha1',
    kind: 'ControlPlane',
    metadata: { name: 'cp', namespace: 'default', generation, ...(deletionTimestamp ? { deletionTimestamp } : {}) },
    spec: {},
    status: { conditions, observedGeneration: generation },
  };
}

describe('Gates, freeze, mappers, teardown, the hold: the mappers', () => {
  it('KeystoneUserChildToRequests: the cluster label becomes the request\u2019s cluster', () => {
    const ref = { kind: keystoneUserKind, cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' };
    assert.deepEqual(toRequests(child(childLabels(ref))), [
      { cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' },
    ]);
    assert.deepEqual(toRequests(child(childLabels({ ...ref, cluster: '' }))), [
      { cluster: '', namespace: 'tenant-a', name: 'workflow' },
    ]);
  });

  it('a child without the name or namespace label maps to nothing', () => {
    assert.deepEqual(toRequests(child(undefined)), []);
    assert.deepEqual(toRequests(child({ 'c5c3.io/keystoneuser-name': 'workflow' })), []);
    assert.deepEqual(toRequests(child({ 'c5c3.io/keystoneuser-namespace': 'tenant-a' })), []);
    assert.deepEqual(
      orderChildRequests({ label: 'keystoneproject', segment: 'project' })(
        child(childLabels({ kind: keystoneUserKind, cluster: '', namespace: 'a', name: 'b' })),
      ),
      [],
      "another kind's labels",
    );
  });

  it('OrderControlPlanePredicate: spec change, deletion, or an AdminCredentialReady flip', () => {
    const pass = (oldObject: KubeObject, object: KubeObject) =>
      orderControlPlanePredicate({ type: 'update', oldObject, object, cluster: '' });
    assert.equal(pass(cp(1, 'True'), cp(2, 'True')), true, 'spec change');
    assert.equal(pass(cp(1, 'True'), cp(1, 'True', '2026-01-01T00:00:00Z')), true, 'deletion');
    assert.equal(pass(cp(1, 'True'), cp(1, 'False')), true, 'flip to False');
    assert.equal(pass(cp(1, undefined), cp(1, 'True')), true, 'flip to True');
    assert.equal(pass(cp(1, 'False'), cp(1, undefined)), false, 'still not True');
    assert.equal(pass(cp(1, 'True'), cp(1, 'True')), false, 'another status write');
    assert.equal(orderControlPlanePredicate({ type: 'create', object: cp(1, 'True'), cluster: '' }), true);
    assert.equal(orderControlPlanePredicate({ type: 'delete', object: cp(1, 'True'), cluster: '' }), true);
  });
});

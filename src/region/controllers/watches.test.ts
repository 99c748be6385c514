import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition, KubeObject } from '../../kube/object.ts';
import type { ObjectEvent } from '../../runtime/predicates.ts';
import { networkType } from '../apis/network.ts';
import {
  IDENTITY_INDEX,
  becameAvailable,
  byIdentity,
  deleted,
  identityOf,
  referenceReleased,
  specOrDeletionChanged,
  usersOf,
} from './watches.ts';
import { NAMESPACE, identityObject, networkObject } from './testing/fakes.ts';

const withMeta = (o: KubeObject, meta: Partial<KubeObject['metadata']>): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, ...meta },
});

const withAvailable = (o: KubeObject, status: Condition['status']): KubeObject => ({
  ...o,
  status: {
    conditions: [{ type: 'Available', status, reason: 'x', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }],
  },
});

const update = (oldObject: KubeObject, object: KubeObject): ObjectEvent => ({
  type: 'update',
  oldObject,
  object,
  cluster: '',
});

describe('watch predicates', () => {
  const net = withMeta(networkObject('net-1', 'id-1'), { generation: 1 });

  it('specOrDeletionChanged: spec, label and deletion changes pass; status and finalizer writes do not', () => {
    assert.ok(specOrDeletionChanged(update(net, withMeta(net, { generation: 2 }))));
    assert.ok(specOrDeletionChanged(update(net, withMeta(net, { labels: { a: 'b' } }))));
    assert.ok(specOrDeletionChanged(update(net, withMeta(net, { deletionTimestamp: '2026-01-01T00:00:00Z' }))));
    assert.ok(!specOrDeletionChanged(update(net, withAvailable(net, 'True'))));
    assert.ok(!specOrDeletionChanged(update(net, withMeta(net, { finalizers: ['unikorn'] }))));
    assert.ok(specOrDeletionChanged({ type: 'create', object: net, cluster: '' }));
  });

  it('becameAvailable: only the edge into Available True (or first seen Available)', () => {
    const id = identityObject('id-1');
    assert.ok(becameAvailable(update(withAvailable(id, 'False'), withAvailable(id, 'True'))));
    assert.ok(becameAvailable(update(id, withAvailable(id, 'True'))));
    assert.ok(!becameAvailable(update(withAvailable(id, 'True'), withAvailable(id, 'True'))));
    assert.ok(!becameAvailable(update(withAvailable(id, 'True'), withAvailable(id, 'False'))));
    assert.ok(becameAvailable({ type: 'create', object: withAvailable(id, 'True'), cluster: '' }));
    assert.ok(!becameAvailable({ type: 'create', object: id, cluster: '' }));
    assert.ok(!becameAvailable({ type: 'delete', object: withAvailable(id, 'True'), cluster: '' }));
  });

  it("referenceReleased: a held reference going away passes; ours, the GC's, or one added does not", () => {
    const ref = 'clusters.kubernetes.unikorn-cloud.org/c1';
    const held = withMeta(net, { finalizers: ['unikorn', ref] });
    assert.ok(referenceReleased(update(held, withMeta(net, { finalizers: ['unikorn'] }))));
    assert.ok(!referenceReleased(update(withMeta(net, { finalizers: ['unikorn'] }), held)), 'added, not released');
    assert.ok(!referenceReleased(update(held, withMeta(net, { finalizers: [ref] }))), 'our finalizer is no reference');
    assert.ok(!referenceReleased(update(withMeta(net, { finalizers: ['foregroundDeletion', ref] }), held)));
    assert.ok(!referenceReleased({ type: 'create', object: net, cluster: '' }));
  });

  it('deleted passes deletes only', () => {
    assert.ok(deleted({ type: 'delete', object: net, cluster: '' }));
    assert.ok(!deleted(update(net, net)));
  });
});

describe('watch mappers', () => {
  it('byIdentity indexes a workload by its identity label', () => {
    assert.deepEqual(byIdentity(networkObject('net-1', 'id-1')), ['id-1']);
    assert.deepEqual(byIdentity(identityObject('id-1')), []);
  });

  it('identityOf maps a workload to the identity it names, on the event cluster', () => {
    const net = networkObject('net-1', 'id-1');
    assert.deepEqual(identityOf(net, { type: 'delete', object: net, cluster: '' }), [
      { cluster: '', namespace: NAMESPACE, name: 'id-1' },
    ]);
    assert.deepEqual(identityOf(identityObject('x'), { type: 'delete', object: net, cluster: '' }), []);
  });

  it('usersOf fans an identity out to the workloads naming it, through the index', () => {
    const asked: unknown[] = [];
    const mapper = usersOf((type, options) => {
      asked.push({ kind: type.kind, ...options });
      return [networkObject('net-1', 'id-1'), networkObject('net-2', 'id-1')];
    }, networkType);
    const id = identityObject('id-1');
    assert.deepEqual(
      mapper(id, { type: 'update', object: id, cluster: '' }).map((r) => r.name),
      ['net-1', 'net-2'],
    );
    assert.deepEqual(asked, [
      { kind: 'Network', cluster: '', namespace: NAMESPACE, index: IDENTITY_INDEX, value: 'id-1' },
    ]);
    const before = identityObject('id-1');
    assert.deepEqual(mapper(before, { type: 'update', object: id, oldObject: before, cluster: '' }), [], 'old side');
  });
});

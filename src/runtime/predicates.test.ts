import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../kube/object.ts';
import {
  and,
  annotationChanged,
  deletionStarted,
  generationChanged,
  labelChanged,
  not,
  or,
  type ObjectEvent,
} from './predicates.ts';

const base: KubeObject = {
  apiVersion: 'v1',
  kind: 'Widget',
  metadata: { name: 'a', namespace: 'ns', generation: 1, labels: { x: '1' }, annotations: { y: '1' } },
};
const withMeta = (meta: Partial<KubeObject['metadata']>): KubeObject => ({
  ...base,
  metadata: { ...base.metadata, ...meta },
});
const update = (object: KubeObject): ObjectEvent => ({ type: 'update', oldObject: base, object, cluster: '' });

describe('predicates', () => {
  it('generationChanged passes a spec change and drops a status or metadata write', () => {
    assert.equal(generationChanged(update(withMeta({ generation: 2 }))), true);
    assert.equal(generationChanged(update(withMeta({ resourceVersion: '9' }))), false);
    assert.equal(generationChanged(update(withMeta({ labels: { x: '2' } }))), false);
  });

  it('create and delete always pass the change predicates', () => {
    for (const type of ['create', 'delete'] as const) {
      const event: ObjectEvent = { type, object: base, cluster: '' };
      for (const p of [generationChanged, labelChanged, annotationChanged, deletionStarted])
        assert.equal(p(event), true);
    }
  });

  it('labelChanged and annotationChanged compare the maps, not their order', () => {
    assert.equal(labelChanged(update(withMeta({ labels: { x: '2' } }))), true);
    assert.equal(labelChanged(update(withMeta({ labels: { x: '1', z: '' } }))), true);
    assert.equal(labelChanged(update(withMeta({ labels: {} }))), true);
    assert.equal(labelChanged(update(withMeta({ generation: 5 }))), false);
    assert.equal(annotationChanged(update(withMeta({ annotations: { y: '2' } }))), true);
    assert.equal(annotationChanged(update(withMeta({ labels: { x: '2' } }))), false);
  });

  it('deletionStarted passes the update that sets a deletionTimestamp', () => {
    assert.equal(deletionStarted(update(withMeta({ deletionTimestamp: '2026-01-01T00:00:00Z' }))), true);
    assert.equal(deletionStarted(update(withMeta({ generation: 2 }))), false);
  });

  it('composes with or, and, not, and custom predicates', () => {
    const inCluster = (event: ObjectEvent) => event.cluster === 'edge-1';
    const specOrLabels = or(generationChanged, labelChanged);
    assert.equal(specOrLabels(update(withMeta({ labels: {} }))), true);
    assert.equal(specOrLabels(update(withMeta({ resourceVersion: '2' }))), false);
    const onEdge = and(generationChanged, inCluster);
    assert.equal(onEdge({ ...update(withMeta({ generation: 2 })), cluster: 'edge-1' }), true);
    assert.equal(onEdge(update(withMeta({ generation: 2 }))), false);
    assert.equal(not(inCluster)(update(base)), true);
  });
});

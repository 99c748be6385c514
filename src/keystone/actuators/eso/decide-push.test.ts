import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PUSH_SECRET_FINALIZER, type PushSecret, type PushSecretSpec } from '../../apis/eso.ts';
import { decidePush, failedStatus, READY_SYNCED_MESSAGE, resourceVersionOf, syncedStatus } from './decide-push.ts';
import { defined } from '../../../util/defined.ts';

const NOW = Date.UTC(2026, 0, 1, 12);

function pushSecret(
  over: {
    spec?: Partial<PushSecretSpec>;
    finalizers?: string[];
    deleting?: boolean;
    annotations?: Record<string, string>;
  } = {},
): PushSecret {
  return {
    apiVersion: 'external-secrets.io/v1alpha1',
    kind: 'PushSecret',
    metadata: {
      name: 'ps',
      namespace: 'ns',
      generation: 1,
      ...defined({ annotations: over.annotations, finalizers: over.finalizers }),
      ...(over.deleting === true ? { deletionTimestamp: '2026-01-01T11:00:00Z' } : {}),
    },
    spec: {
      secretStoreRefs: [{ name: 'store', kind: 'SecretStore' }],
      selector: { secret: { name: 'src' } },
      deletionPolicy: 'Delete',
      refreshInterval: '1h',
      ...over.spec,
    },
  };
}

const synced = (ps: PushSecret, at: number): PushSecret => ({ ...ps, status: syncedStatus(ps, {}, at) });
const withFinalizer = { finalizers: [PUSH_SECRET_FINALIZER] };

describe('decidePush rows', () => {
  it('D1-release: deleting with our finalizer; deletes remote keys only with deletionPolicy Delete', () => {
    assert.deepEqual(decidePush(pushSecret({ ...withFinalizer, deleting: true }), NOW), {
      row: 'D1-release',
      action: 'release',
      deleteRemote: true,
    });
    const none = pushSecret({ ...withFinalizer, deleting: true, spec: { deletionPolicy: 'None' } });
    assert.deepEqual(decidePush(none, NOW), { row: 'D1-release', action: 'release', deleteRemote: false });
  });

  it('D2-gone: deleting without our finalizer', () => {
    assert.equal(decidePush(pushSecret({ deleting: true, finalizers: ['other'] }), NOW).row, 'D2-gone');
  });

  it('F1-add-finalizer before any push when deletionPolicy is Delete', () => {
    assert.equal(decidePush(pushSecret(), NOW).row, 'F1-add-finalizer');
  });

  it('F2-drop-finalizer when deletionPolicy is None', () => {
    assert.equal(
      decidePush(pushSecret({ ...withFinalizer, spec: { deletionPolicy: 'None' } }), NOW).row,
      'F2-drop-finalizer',
    );
  });

  it('P1-changed: never pushed, or labels/annotations/generation moved since the push', () => {
    const ps = pushSecret(withFinalizer);
    assert.equal(decidePush(ps, NOW).row, 'P1-changed');
    const pushed = synced(ps, NOW);
    const stamped = {
      ...pushed,
      metadata: { ...pushed.metadata, annotations: { 'c5c3.io/keystoneuser-push-hash': 'h2' } },
    };
    assert.equal(decidePush(stamped, NOW).row, 'P1-changed');
    const respecced = { ...pushed, metadata: { ...pushed.metadata, generation: 2 } };
    assert.equal(decidePush(respecced, NOW).row, 'P1-changed');
  });

  it('P2-refresh-due once refreshInterval has passed since refreshTime', () => {
    const pushed = synced(pushSecret(withFinalizer), NOW);
    assert.equal(decidePush(pushed, NOW + 3_600_000).row, 'P2-refresh-due');
  });

  it('P3-fresh waits for the refresh; an interval of 0 waits for ever', () => {
    const pushed = synced(pushSecret(withFinalizer), NOW);
    assert.deepEqual(decidePush(pushed, NOW + 600_000), { row: 'P3-fresh', action: 'wait', requeueAfterMs: 3_000_000 });
    const once = synced(pushSecret({ ...withFinalizer, spec: { refreshInterval: '0s' } }), NOW);
    assert.deepEqual(decidePush(once, NOW + 1e9), { row: 'P3-fresh', action: 'wait', requeueAfterMs: undefined });
  });
});

describe('PushSecret status', () => {
  it('a push marks Ready True/Synced and moves syncedResourceVersion', () => {
    const ps = pushSecret(withFinalizer);
    const status = syncedStatus(ps, { 'SecretStore/store': {} }, NOW);
    assert.equal(status.syncedResourceVersion, resourceVersionOf(ps));
    assert.equal(status.refreshTime, '2026-01-01T12:00:00Z');
    assert.deepEqual(status.conditions, [
      {
        type: 'Ready',
        status: 'True',
        reason: 'Synced',
        message: READY_SYNCED_MESSAGE,
        lastTransitionTime: '2026-01-01T12:00:00Z',
      },
    ]);
  });

  it('a failure marks Ready False/Errored and keeps syncedResourceVersion and refreshTime', () => {
    const pushed = synced(pushSecret(withFinalizer), NOW);
    const status = failedStatus(pushed, 'set secret failed: boom', NOW + 1000);
    assert.equal(status.syncedResourceVersion, pushed.status?.syncedResourceVersion);
    assert.equal(status.refreshTime, pushed.status?.refreshTime);
    const [ready] = status.conditions ?? [];
    assert.deepEqual(
      [ready?.type, ready?.status, ready?.reason, ready?.message],
      ['Ready', 'False', 'Errored', 'set secret failed: boom'],
    );
  });

  it('resourceVersionOf: generation plus a hash that moves with any annotation and ignores key order', () => {
    const entries = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }));
    fc.assert(
      fc.property(entries, fc.string({ minLength: 1, maxLength: 8 }), fc.string(), (annotations, key, value) => {
        const base = pushSecret({ annotations });
        const reversed = pushSecret({ annotations: Object.fromEntries(Object.entries(annotations).reverse()) });
        assert.equal(resourceVersionOf(base), resourceVersionOf(reversed));
        assert.match(resourceVersionOf(base), /^1-[0-9a-f]{32}$/);
        const changed = pushSecret({ annotations: { ...annotations, [key]: `${annotations[key] ?? ''}${value}x` } });
        assert.notEqual(resourceVersionOf(changed), resourceVersionOf(base));
      }),
    );
  });

  it('a failed push after a change keeps the old syncedResourceVersion, so the change is still pending (P1)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.nat(10_000_000), (hash, dt) => {
        const pushed = synced(pushSecret({ ...withFinalizer, annotations: { h: 'old' } }), NOW);
        const before = pushed.status?.syncedResourceVersion;
        const stamped = { ...pushed, metadata: { ...pushed.metadata, annotations: { h: `new${hash}` } } };
        const failed = { ...stamped, status: failedStatus(stamped, 'set secret failed: x', NOW + dt) };
        assert.equal(failed.status.syncedResourceVersion, before);
        assert.equal(decidePush(failed, NOW + dt).row, 'P1-changed');
      }),
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../kube/object.ts';
import { cascadeMessages, cascadeVerdict, nextCascadeStep } from './cascade.ts';

const object = (name: string, state: 'live' | 'deleting' | 'failing' = 'live'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Thing',
  metadata: { name, ...(state === 'live' ? {} : { deletionTimestamp: '2026-12-01T00:00:00Z' }) },
  ...(state === 'failing'
    ? { status: { conditions: [{ type: 'Available', status: 'False', reason: 'Errored', message: 'x' }] } }
    : {}),
});

describe('nextCascadeStep', () => {
  it('nothing left: clear', () => {
    assert.deepEqual(nextCascadeStep([[], [], []]), { kind: 'clear' });
  });
  it('deletes only the earliest stage that has dependents, and only those not yet deleting', () => {
    const a = object('a');
    const b = object('b', 'deleting');
    assert.deepEqual(nextCascadeStep([[], [a, b], [object('c')]]), { kind: 'delete', objects: [a], remaining: 3 });
  });
  it('waits while the earliest stage is deleting, counting those whose own delete reports an error', () => {
    assert.deepEqual(nextCascadeStep([[object('a', 'deleting'), object('b', 'failing')], [object('c')]]), {
      kind: 'wait',
      remaining: 3,
      blocked: 1,
    });
  });
});

describe('cascadeVerdict', () => {
  it('clear: the owner may go', () => {
    assert.equal(cascadeVerdict({ kind: 'clear' }, 'network'), undefined);
  });
  it('waiting: Deprovisioning, re-checked in 10 s', () => {
    assert.deepEqual(cascadeVerdict({ kind: 'wait', remaining: 2, blocked: 0 }, 'network'), {
      action: 'report',
      row: 'dependents-remain',
      available: { status: 'False', reason: 'Deprovisioning', message: cascadeMessages.waiting('network') },
      requeueAfterMs: 10_000,
    });
  });
  it('a dependent that cannot be deleted: the owner says its deletion is blocked and where to look', () => {
    const verdict = cascadeVerdict({ kind: 'wait', remaining: 2, blocked: 1 }, 'identity');
    assert.deepEqual(verdict, {
      action: 'report',
      row: 'dependents-blocked',
      available: {
        status: 'False',
        reason: 'Deprovisioning',
        message: 'deletion is blocked: a resource that uses this identity cannot be deleted; its own status says why',
      },
      requeueAfterMs: 10_000,
    });
  });
});

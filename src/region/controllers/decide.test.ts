import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../kube/object.ts';
import {
  INTERNAL_ERROR_MESSAGE,
  Outcome,
  QuotaExceededError,
  RequestRefusedError,
  ResourceConflictError,
  ResourceConsistencyError,
  ResourceKind,
  ResourceNotFoundError,
  TransientError,
} from '../provider/index.ts';
import {
  RECHECK_MS,
  deprovisionVerdict,
  failureVerdict,
  identityGate,
  messages,
  missingLabelsVerdict,
  provisionVerdict,
  referencesGate,
  type IdentityView,
} from './decide.ts';

const RAW = 'Quota exceeded for instances: Requested 1, but already used 10 of 10 (request req-3f2a)';

const condition = (status: Condition['status'], reason: string): Condition => ({
  type: 'Available',
  status,
  reason,
  message: '',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

const identity = (conditions: Condition[] = [], deleting = false): IdentityView => ({
  metadata: deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {},
  status: { conditions },
});

describe('provisionVerdict', () => {
  it('done: Available True, Provisioned, no requeue', () => {
    assert.deepEqual(provisionVerdict(Outcome.ok()), {
      action: 'report',
      row: 'done',
      available: { status: 'True', reason: 'Provisioned', message: messages.provisioned },
    });
  });
  it('a yield that says what it waits for shows that fixed text instead', () => {
    const verdict = provisionVerdict(Outcome.yield('create-retrying', 'retrying (attempt 2 of 3)'));
    assert.equal(verdict.action === 'report' ? verdict.available.message : '', 'retrying (attempt 2 of 3)');
    assert.equal(verdict.action === 'report' ? verdict.available.reason : '', 'Provisioning');
  });

  it('yield: False, Provisioning, the spec’s 10 s re-check', () => {
    assert.deepEqual(provisionVerdict(Outcome.yield('pending')), {
      action: 'report',
      row: 'yield',
      available: { status: 'False', reason: 'Provisioning', message: messages.provisioning },
      requeueAfterMs: 10_000,
    });
  });
  it('a yield carrying the pass’s error: Errored with its fixed text, re-checked in 10 s, not a back-off', () => {
    const quota = new QuotaExceededError('rebuild server: quota exceeded', 'instances', { cause: new Error(RAW) });
    assert.deepEqual(provisionVerdict(Outcome.retry('R4″/retry', quota)), {
      action: 'report',
      row: 'PROVIDER_QUOTA',
      available: { status: 'False', reason: 'Errored', message: quota.userMessage },
      requeueAfterMs: RECHECK_MS,
    });
    assert.match(quota.userMessage, /quota for servers is exhausted/);
    const refused = new RequestRefusedError('rebuild server: refused', { resource: ResourceKind.Server });
    const verdict = provisionVerdict(Outcome.retry('R4″/retry', refused));
    assert.deepEqual(verdict, {
      action: 'report',
      row: 'PROVIDER_REFUSED',
      available: {
        status: 'False',
        reason: 'Errored',
        message: 'the cloud provider refused the requested change to this server; retrying',
      },
      requeueAfterMs: RECHECK_MS,
    });
    assert.ok(!JSON.stringify(verdict).includes('Quota exceeded'), 'the cause stays out');
    assert.deepEqual(deprovisionVerdict(Outcome.retry('deleting', refused)), verdict);
  });
  it('park and terminal: False, Errored, the fixed message, no requeue; the cause stays out', () => {
    for (const outcome of [
      Outcome.park('QuotaExceeded', 'the project quota does not allow this', new Error(RAW)),
      Outcome.terminal('Errored', 'the cloud provider rejected the requested configuration', new Error(RAW)),
    ]) {
      assert.deepEqual(provisionVerdict(outcome), {
        action: 'report',
        row: outcome.kind,
        available: { status: 'False', reason: 'Errored', message: outcome.message },
      });
    }
  });
});

describe('deprovisionVerdict', () => {
  it('done releases the finalizer', () => {
    assert.deepEqual(deprovisionVerdict(Outcome.ok()), { action: 'release', row: 'done' });
  });
  it('yield: False, Deprovisioning, re-check in 10 s', () => {
    assert.deepEqual(deprovisionVerdict(Outcome.yield('deleting')), {
      action: 'report',
      row: 'yield',
      available: { status: 'False', reason: 'Deprovisioning', message: messages.deprovisioning },
      requeueAfterMs: RECHECK_MS,
    });
  });
  it('park and terminal: Errored, no requeue', () => {
    const verdict = deprovisionVerdict(Outcome.park('InUse', 'the network still has ports'));
    assert.deepEqual(verdict, {
      action: 'report',
      row: 'park',
      available: { status: 'False', reason: 'Errored', message: 'the network still has ports' },
    });
  });
});

describe('failureVerdict', () => {
  const cause = new Error(RAW);
  const cases = [
    [
      new ResourceNotFoundError('get network: not found', { resource: ResourceKind.Network, cause }),
      'PROVIDER_NOT_FOUND',
      'network not found',
    ],
    [
      new ResourceConflictError('delete: conflict', { resource: ResourceKind.SecurityGroup, cause }),
      'PROVIDER_CONFLICT',
      'security group is in use or being changed',
    ],
    [
      new ResourceConsistencyError('two routers', { resource: ResourceKind.Network, cause }),
      'PROVIDER_CONSISTENCY',
      'network is in an inconsistent state; an operator has been notified',
    ],
    [
      new TransientError('create project: 503', { cause }),
      'PROVIDER_TRANSIENT',
      'the cloud provider is temporarily unavailable; retrying',
    ],
    [cause, 'PROVIDER_INTERNAL', INTERNAL_ERROR_MESSAGE],
  ] as const;
  for (const [error, row, message] of cases) {
    it(`${row}: Errored with the catalogue's fixed text, backoff; never the raw cause`, () => {
      const verdict = failureVerdict(error, false);
      assert.deepEqual(verdict, { action: 'backoff', row, available: { status: 'False', reason: 'Errored', message } });
      assert.ok(!JSON.stringify(verdict).includes('Quota'));
    });
  }
  it('a pass the shutdown aborted reads Cancelled', () => {
    const verdict = failureVerdict(new TransientError('aborted'), true);
    assert.ok(verdict.action === 'backoff');
    assert.deepEqual(verdict.available, {
      status: 'False',
      reason: 'Cancelled',
      message: messages.cancelled,
    });
  });
});

describe('identityGate', () => {
  it('Available: no verdict, provisioning goes ahead', () => {
    assert.equal(identityGate(identity([condition('True', 'Provisioned')])), undefined);
  });
  it('missing: DependencyNotFound, re-check in 10 s', () => {
    assert.deepEqual(identityGate(undefined), {
      action: 'report',
      row: 'gate:DependencyNotFound',
      available: { status: 'False', reason: 'DependencyNotFound', message: messages.identityNotFound },
      requeueAfterMs: RECHECK_MS,
    });
  });
  it('not yet provisioned, or no condition yet: DependencyNotReady, re-check in 10 s', () => {
    for (const view of [identity(), identity([condition('False', 'Provisioning')])]) {
      const verdict = identityGate(view);
      assert.equal(verdict?.row, 'gate:DependencyNotReady');
      assert.equal(verdict.action === 'report' && verdict.requeueAfterMs, RECHECK_MS);
    }
  });
  it('being deleted, even while still Available: DependencyNotReady', () => {
    assert.equal(identityGate(identity([condition('True', 'Provisioned')], true))?.row, 'gate:DependencyNotReady');
  });
  it('Errored: DependencyFailed, no timer (the identity watch wakes it)', () => {
    assert.deepEqual(identityGate(identity([condition('False', 'Errored')])), {
      action: 'report',
      row: 'gate:DependencyFailed',
      available: { status: 'False', reason: 'DependencyFailed', message: messages.identityFailed },
    });
  });
});

describe('referencesGate', () => {
  it('no reference held: no verdict, the delete goes on', () => {
    assert.equal(referencesGate([]), undefined);
  });
  it('a reference held: Deprovisioning and blocked (not Errored), no provider call, re-check in 10 s', () => {
    assert.deepEqual(referencesGate(['clusters.kubernetes.unikorn-cloud.org/c1']), {
      action: 'report',
      row: 'references-held',
      available: { status: 'False', reason: 'Deprovisioning', message: messages.referencesHeld },
      requeueAfterMs: RECHECK_MS,
    });
  });
});

describe('missing labels', () => {
  it('missing labels: Errored, no requeue (a label edit wakes the resource)', () => {
    assert.deepEqual(missingLabelsVerdict(), {
      action: 'report',
      row: 'missing-labels',
      available: { status: 'False', reason: 'Errored', message: messages.missingLabels },
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../kube/object.ts';
import type { ServerStatus } from '../../apis/server.ts';
import {
  confirmCreateRetryDelete,
  decideCreateRetry,
  DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS,
  duringCreateRetry,
  providerCreateFailure,
  providerCreateRetryingMessage,
  providerCreateFailureEdge,
  type CreateRetryDecision,
} from './decide.ts';
import { observeServer } from '../../openstack/server/observe.ts';
import { Outcome } from '../../provider/outcome.ts';
import { defined } from '../../../util/defined.ts';

const NOW = new Date('2026-11-30T13:00:00Z');
const T = '2026-11-30T12:00:00Z';
const cond = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: 'm',
  lastTransitionTime: T,
});
const errored = cond('Healthy', 'False', 'Errored');
const failed: ServerStatus = { conditions: [cond('Active', 'False', 'Error'), errored] };
const opts = { maxAttempts: 3 };

describe('providerCreateFailure', () => {
  it('is a never-booted server stamped Healthy=False/Errored', () => {
    assert.equal(providerCreateFailure(failed), true);
    assert.equal(providerCreateFailure({ conditions: [errored] }), true);
  });

  it('is not, once either boot signal is set or the lifecycle is past launch', () => {
    assert.equal(providerCreateFailure({ ...failed, provisionedAt: T }), false);
    assert.equal(providerCreateFailure({ ...failed, launchedAt: T }), false);
    for (const reason of ['Running', 'Stopping', 'Stopped']) {
      assert.equal(providerCreateFailure({ conditions: [cond('Active', 'False', reason), errored] }), false, reason);
    }
  });

  it('is not without the Errored stamp', () => {
    assert.equal(providerCreateFailure(undefined), false);
    assert.equal(providerCreateFailure({}), false);
    assert.equal(providerCreateFailure({ conditions: [cond('Healthy', 'False', 'Degraded')] }), false);
    assert.equal(providerCreateFailure({ conditions: [cond('Healthy', 'Unknown', 'Errored')] }), false);
  });

  it('the watch edge fires on false → true only', () => {
    assert.equal(providerCreateFailureEdge({}, failed), true);
    assert.equal(providerCreateFailureEdge(undefined, failed), true);
    assert.equal(providerCreateFailureEdge(failed, failed), false);
    assert.equal(providerCreateFailureEdge(failed, {}), false);
  });
});

describe('decideCreateRetry: every row', () => {
  it('C1: a booted server proceeds, and a stale retry flag is dropped rather than acted on', () => {
    const booted = { ...failed, provisionedAt: T, providerCreateRetrying: true };
    const d = decideCreateRetry(booted, opts);
    assert.equal(d.row, 'C1');
    assert.equal(d.action, 'proceed');
    assert.equal(d.status.providerCreateRetrying, undefined);
    assert.equal(d.status.provisionedAt, T);
    assert.equal(decideCreateRetry({ launchedAt: T }, opts).row, 'C1');
  });

  it('C2: a retry in progress deletes again', () => {
    const d = decideCreateRetry({ providerCreateFailures: 1, providerCreateRetrying: true }, opts);
    assert.deepEqual(d, {
      row: 'C2',
      action: 'delete',
      attempt: 1,
      status: { providerCreateFailures: 1, providerCreateRetrying: true },
    });
  });

  it('C3: no failure proceeds with the status untouched', () => {
    const status: ServerStatus = { conditions: [cond('Healthy', 'True', 'Healthy')] };
    assert.deepEqual(decideCreateRetry(status, opts), { row: 'C3', action: 'proceed', status });
  });

  it('C4: at the cap, terminal with upstream’s reason, the counter clamped', () => {
    const d = decideCreateRetry({ ...failed, providerCreateFailures: 2 }, opts);
    assert.ok(d.row === 'C4');
    assert.deepEqual(d.outcome, {
      kind: 'terminal',
      reason: 'provider_create_failed',
      message: 'provider server create failed after 3 attempts',
    });
    assert.equal(d.status.providerCreateFailures, 3);
    assert.equal(d.status.providerCreateRetrying, false);
    assert.equal(d.event.type, 'Warning');
    assert.equal(d.event.reason, 'ProviderCreateFailed');
    // A re-run over a counter already past the cap clamps it back.
    assert.equal(decideCreateRetry({ ...failed, providerCreateFailures: 9 }, opts).status.providerCreateFailures, 3);
  });

  it('C5: below the cap, counts the attempt and deletes', () => {
    const d = decideCreateRetry(failed, opts);
    assert.ok(d.row === 'C5');
    assert.equal(d.attempt, 1);
    assert.equal(d.status.providerCreateFailures, 1);
    assert.equal(d.status.providerCreateRetrying, true);
    assert.deepEqual(d.event, {
      type: 'Normal',
      reason: 'ProviderCreateRetrying',
      message: 'Deleting failed provider server before retrying create (attempt 1/3)',
    });
  });

  it('a cap below one means one create and no retry', () => {
    assert.equal(decideCreateRetry(failed, { maxAttempts: 0 }).row, 'C4');
    assert.equal(decideCreateRetry(failed, { maxAttempts: 1 }).row, 'C4');
    assert.equal(DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS, 3);
  });
});

describe('decideCreateRetry: exhaustively', () => {
  it('never deletes a server with either boot signal, and never counts past the cap', () => {
    const actives = [
      undefined,
      'Pending',
      'Queued',
      'Building',
      'Rebuilding',
      'Running',
      'Stopping',
      'Stopped',
      'Error',
    ];
    const healths = [
      undefined,
      ['False', 'Errored'],
      ['False', 'Degraded'],
      ['True', 'Healthy'],
      ['Unknown', 'Unknown'],
    ];
    let cases = 0;
    for (const provisionedAt of [undefined, T])
      for (const launchedAt of [undefined, T])
        for (const active of actives)
          for (const health of healths)
            for (const failures of [undefined, 0, 1, 2, 3, 4])
              for (const retrying of [undefined, false, true])
                for (const maxAttempts of [1, 2, 3, 4]) {
                  const conditions: Condition[] = [];
                  if (active) conditions.push(cond('Active', active === 'Running' ? 'True' : 'False', active));
                  if (health) conditions.push(cond('Healthy', health[0] as Condition['status'], health[1] ?? ''));
                  const status: ServerStatus = {
                    conditions,
                    ...(provisionedAt ? { provisionedAt } : {}),
                    ...(launchedAt ? { launchedAt } : {}),
                    ...defined({ providerCreateFailures: failures, providerCreateRetrying: retrying }),
                  };
                  const d = decideCreateRetry(status, { maxAttempts });
                  const context = JSON.stringify({ status, maxAttempts, d });
                  const booted = provisionedAt !== undefined || launchedAt !== undefined;
                  if (booted) assert.equal(d.action, 'proceed', context);
                  if (d.action === 'delete') assert.ok(!booted && (retrying === true || providerCreateFailure(status)));
                  if (d.action === 'terminal') assert.ok(providerCreateFailure(status) && retrying !== true, context);
                  if (d.row === 'C5') assert.ok((d.status.providerCreateFailures ?? 0) < maxAttempts, context);
                  if (d.row === 'C4') assert.equal(d.status.providerCreateFailures, maxAttempts, context);
                  cases++;
                }
    assert.equal(cases, 2 * 2 * 9 * 5 * 6 * 3 * 4);
  });
});

describe('confirmCreateRetryDelete', () => {
  const during: ServerStatus = {
    ...failed,
    providerCreateFailures: 1,
    providerCreateRetrying: true,
    privateIP: '10.0.0.5',
    publicIP: '192.0.2.7',
    scheduledAt: T,
    macAddress: 'fa:16:3e:00:11:22',
    observed: { generation: 2, errored: true },
  };

  it('C6: gone resets the runtime status, ends the retry, and yields so the next pass recreates', () => {
    const c = confirmCreateRetryDelete(during, true, { attempt: 1, maxAttempts: 3, now: NOW });
    assert.equal(c.row, 'C6');
    assert.deepEqual(c.outcome, {
      kind: 'yield',
      reason: 'C6',
      message: 'the server could not be created; retrying (attempt 2 of 3)',
    });
    assert.equal(c.status.providerCreateRetrying, false);
    assert.equal(c.status.privateIP, undefined);
    assert.equal(c.status.publicIP, undefined);
    assert.equal(c.status.scheduledAt, undefined);
    assert.equal(c.status.macAddress, 'fa:16:3e:00:11:22');
    assert.deepEqual(c.status.observed, during.observed);
    assert.equal(c.status.providerCreateFailures, 1);
    assert.deepEqual(
      c.status.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['Active', 'False', 'Pending', 'the server is awaiting provider scheduling'],
        ['Healthy', 'Unknown', 'Provisioning', 'Retrying provider server create'],
      ],
    );
    assert.equal(c.event?.reason, 'ProviderCreateRetryReady');
    assert.equal(providerCreateFailure(c.status), false);
    const next = decideCreateRetry(c.status, opts);
    assert.equal(next.row, 'C3');
  });

  it('C7: still present keeps the retry open and recreates nothing', () => {
    const c = confirmCreateRetryDelete(during, false, { attempt: 1, maxAttempts: 3, now: NOW });
    assert.equal(c.row, 'C7');
    assert.equal(c.outcome.message, providerCreateRetryingMessage(2, 3));
    assert.equal(c.status.providerCreateRetrying, true);
    assert.equal(c.event, undefined);
    assert.equal(
      c.status.conditions?.find((x) => x.type === 'Healthy')?.message,
      'Deleting failed provider server before retrying create',
    );
    assert.equal(decideCreateRetry(c.status, opts).row, 'C2');
  });

  it('keeps a provisionedAt latch through the reset', () => {
    const c = confirmCreateRetryDelete({ ...during, provisionedAt: T }, true, { attempt: 1, maxAttempts: 3, now: NOW });
    assert.equal(c.status.provisionedAt, T);
  });
});

describe('duringCreateRetry: what a converge pass reports while a retry is in progress', () => {
  const retrying: ServerStatus = { providerCreateFailures: 1, conditions: [cond('Active', 'False', 'Pending')] };
  const addresses = { privateIP: '10.0.0.5' };

  it('a recreated server Nova accepted is not provisioned before it boots: it waits, naming the attempt', () => {
    assert.deepEqual(duringCreateRetry(retrying, Outcome.done(addresses), 3), {
      kind: 'yield',
      reason: 'create-retrying',
      message: 'the server could not be created; retrying (attempt 2 of 3)',
    });
    assert.deepEqual(duringCreateRetry(retrying, Outcome.yield('created'), 3), {
      kind: 'yield',
      reason: 'created',
      message: providerCreateRetryingMessage(2, 3),
    });
  });

  it('the attempt never reads past the cap', () => {
    const last = duringCreateRetry({ ...retrying, providerCreateFailures: 5 }, Outcome.yield('created'), 3);
    assert.equal(last.kind === 'yield' ? last.message : '', providerCreateRetryingMessage(3, 3));
  });

  it('changes nothing without a failure, once the server booted, or for a park, terminal or rebuild', () => {
    const done = Outcome.done(addresses);
    assert.equal(duringCreateRetry({}, done, 3), done);
    assert.equal(duringCreateRetry({ ...retrying, provisionedAt: T }, done, 3), done);
    assert.equal(duringCreateRetry({ ...retrying, launchedAt: T }, done, 3), done);
    const park = Outcome.park('r', 'm');
    assert.equal(duringCreateRetry(retrying, park, 3), park);
    const terminal = Outcome.terminal('r', 'm');
    assert.equal(duringCreateRetry(retrying, terminal, 3), terminal);
    const rebuilding = { ...Outcome.yield('R3'), rebuilding: true as const };
    assert.equal(duringCreateRetry(retrying, rebuilding, 3), rebuilding);
  });

  it('the message names no cause', () => {
    assert.doesNotMatch(providerCreateRetryingMessage(2, 3), /valid host|nova|fault|error/i);
  });
});

describe('a server that never boots', () => {
  it('is created exactly maxAttempts times, then terminal', () => {
    for (const maxAttempts of [1, 2, 3, 5]) {
      let status: ServerStatus = {};
      let creates = 1;
      let terminal = false;
      for (let pass = 0; pass < 50 && !terminal; pass++) {
        // The monitor stamps the failed create; the confirmed-gone gate passes on the second probe.
        status = { ...status, conditions: [cond('Active', 'False', 'Error'), errored] };
        let d: CreateRetryDecision = decideCreateRetry(status, { maxAttempts });
        let probes = 0;
        while (d.action === 'delete') {
          probes++;
          const c = confirmCreateRetryDelete(d.status, probes > 1, { attempt: d.attempt, maxAttempts, now: NOW });
          status = c.status;
          d = decideCreateRetry(status, { maxAttempts });
        }
        if (d.action === 'terminal') terminal = true;
        else if (probes > 0) creates++;
      }
      assert.ok(terminal, `max ${maxAttempts}`);
      assert.equal(creates, maxAttempts);
    }
  });
});

describe('with the monitor’s own stamps', () => {
  const poll = (status: ServerStatus | undefined, launched: string | null) =>
    observeServer(
      status,
      { status: 'ERROR', 'OS-SRV-USG:launched_at': launched, image: { id: '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b' } },
      { generation: 1, networkID: undefined, baremetal: false, now: NOW },
    ).status;

  it('a never-booted ERROR is a create failure; a booted one, even after the retry reset, never is', () => {
    assert.equal(decideCreateRetry(poll(undefined, null), opts).row, 'C5');
    const booted = poll(undefined, '2026-11-30T12:00:00.000000');
    assert.equal(decideCreateRetry(booted, opts).row, 'C1');
    const { launchedAt: _, ...reset } = booted;
    assert.equal(decideCreateRetry(reset, opts).action, 'proceed');
  });
});

/**
 * Bounded delete-and-recreate of a server whose create failed before it ever booted (docs/spec/upstream-region.md
 * §Create-retry; docs/spec/openstack-provider.md §Image rebuild: "absorbed by the bounded provider-create
 * delete-and-retry flow"). A never-booted server the monitor stamped Healthy=Errored is deleted and, once confirmed
 * gone, recreated from the current spec, at most `maxAttempts` creates in all; then terminal.
 *
 *   C1  booted (provisionedAt or launchedAt set)   proceed; a server that has booted is never destroyed
 *   C2  a retry is in progress                     delete again and confirm it gone
 *   C3  no create failure                          proceed
 *   C4  create failure, attempts exhausted         terminal provider_create_failed (counter clamped to the cap)
 *   C5  create failure, attempts left              count the attempt, delete and confirm it gone
 * After the delete, the confirmed-gone gate (the monitor's read surfacing not found):
 *   C6  gone                                       reset the runtime status, yield; the next pass recreates
 *   C7  still present                              keep retrying, yield
 *
 * provisionedAt is the guard because launchedAt is cleared by the retry reset, and Available is re-derived every
 * pass; the latch is write-once and only the monitor writes it (observe.ts).
 *
 * While a retry is in progress (an attempt failed and the server has not booted since) Available reads
 * Provisioning with a cause-neutral message naming the attempt, never Provisioned: Nova's acceptance of the
 * recreate proves nothing until the server boots. The fault itself stays in the operator log.
 */
import { findCondition, setCondition } from '../../../kube/conditions.ts';
import { activeCondition, type ServerStatus } from '../../apis/server.ts';
import type { ServerOutcome } from '../../provider/contract.ts';
import { Outcome, type Terminal, type Yield } from '../../provider/outcome.ts';

const PROVIDER_CREATE_FAILED_REASON = 'provider_create_failed';

export const providerCreateFailedMessage = (attempts: number): string =>
  `provider server create failed after ${attempts} attempts`;

/** Available's message while a failed create is retried: no cause, the attempt now running and the cap. */
export const providerCreateRetryingMessage = (attempt: number, max: number): string =>
  `the server could not be created; retrying (attempt ${String(attempt)} of ${String(max)})`;

const CREATE_RETRYING_REASON = 'create-retrying';

/** The Healthy message while a failed create is deleted and recreated. */
const CREATE_RETRY_DELETING_MESSAGE = 'Deleting failed provider server before retrying create';
const CREATE_RETRY_READY_MESSAGE = 'Retrying provider server create';

/** Upstream's `--provider-create-max-attempts` default. */
export const DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS = 3;

/**
 * A pre-launch create failure: never booted by either signal, not in a post-launch lifecycle state, and stamped
 * Healthy=False/Errored by the monitor. Shared by the decision and the watch predicate so the two never drift.
 */
export function providerCreateFailure(status: ServerStatus | undefined): boolean {
  if (status === undefined || status.provisionedAt !== undefined || status.launchedAt !== undefined) return false;
  const active = findCondition(status.conditions, 'Active')?.reason;
  if (active === 'Running' || active === 'Stopping' || active === 'Stopped') return false;
  const healthy = findCondition(status.conditions, 'Healthy');
  return healthy?.status === 'False' && healthy.reason === 'Errored';
}

/** The watch predicate's create-failure edge: wake the controller when a failure first appears. */
export const providerCreateFailureEdge = (old: ServerStatus | undefined, next: ServerStatus | undefined): boolean =>
  !providerCreateFailure(old) && providerCreateFailure(next);

export interface CreateRetryEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: 'ProviderCreateRetrying' | 'ProviderCreateRetryReady' | 'ProviderCreateFailed';
  readonly message: string;
}

export type CreateRetryDecision =
  | { readonly row: 'C1' | 'C3'; readonly action: 'proceed'; readonly status: ServerStatus }
  | {
      readonly row: 'C2' | 'C5';
      readonly action: 'delete';
      readonly attempt: number;
      readonly status: ServerStatus;
      readonly event?: CreateRetryEvent;
    }
  | {
      readonly row: 'C4';
      readonly action: 'terminal';
      readonly status: ServerStatus;
      readonly outcome: Terminal;
      readonly event: CreateRetryEvent;
    };

interface CreateRetryOptions {
  readonly maxAttempts: number;
}

/** What this pass does about a failed create, and the bookkeeping to write with it (`status`). */
export function decideCreateRetry(status: ServerStatus, options: CreateRetryOptions): CreateRetryDecision {
  const max = Math.max(1, Math.floor(options.maxAttempts));
  if (status.provisionedAt !== undefined || status.launchedAt !== undefined) {
    const { providerCreateRetrying: _, ...rest } = status;
    return { row: 'C1', action: 'proceed', status: status.providerCreateRetrying === true ? rest : status };
  }
  const failures = status.providerCreateFailures ?? 0;
  if (status.providerCreateRetrying === true) return { row: 'C2', action: 'delete', attempt: failures, status };
  if (!providerCreateFailure(status)) return { row: 'C3', action: 'proceed', status };
  const attempt = failures + 1;
  if (attempt >= max) {
    const message = providerCreateFailedMessage(max);
    return {
      row: 'C4',
      action: 'terminal',
      // Clamped, so a re-run (a controller restart, the failure still showing) cannot count past the cap.
      status: { ...status, providerCreateFailures: max, providerCreateRetrying: false },
      outcome: Outcome.terminal(PROVIDER_CREATE_FAILED_REASON, message),
      event: {
        type: 'Warning',
        reason: 'ProviderCreateFailed',
        message: `Provider server create failed after ${max} attempts`,
      },
    };
  }
  return {
    row: 'C5',
    action: 'delete',
    attempt,
    status: { ...status, providerCreateFailures: attempt, providerCreateRetrying: true },
    event: {
      type: 'Normal',
      reason: 'ProviderCreateRetrying',
      message: `Deleting failed provider server before retrying create (attempt ${attempt}/${max})`,
    },
  };
}

interface CreateRetryConfirmation {
  readonly row: 'C6' | 'C7';
  readonly status: ServerStatus;
  readonly outcome: Yield;
  readonly event?: CreateRetryEvent;
}

/**
 * After the delete: `gone` is true only when the monitor's read of the server surfaced not found. Either way the
 * runtime status of the failed attempt is reset (the MAC, the provisionedAt latch and status.observed survive) so
 * the failure predicate stops firing while the retry is in flight.
 */
export function confirmCreateRetryDelete(
  status: ServerStatus,
  gone: boolean,
  context: { readonly attempt: number; readonly maxAttempts: number; readonly now: Date },
): CreateRetryConfirmation {
  const message = gone ? CREATE_RETRY_READY_MESSAGE : CREATE_RETRY_DELETING_MESSAGE;
  const reset = { ...resetRuntimeStatus(status, message, context.now), providerCreateRetrying: !gone };
  const max = Math.max(1, Math.floor(context.maxAttempts));
  const retrying = providerCreateRetryingMessage(Math.min(context.attempt + 1, max), max);
  if (!gone) return { row: 'C7', status: reset, outcome: Outcome.yield('C7', retrying) };
  return {
    row: 'C6',
    status: reset,
    outcome: Outcome.yield('C6', retrying),
    event: {
      type: 'Normal',
      reason: 'ProviderCreateRetryReady',
      message: `Failed provider server deleted; retrying provider server create (attempt ${context.attempt}/${max})`,
    },
  };
}

/**
 * The provider's create-or-converge outcome as this pass reports it: while a retry is in progress a converged
 * server is not provisioned until it boots (the monitor's provisionedAt latch), so done waits, and a wait says
 * which attempt it is. Outside a retry the outcome is unchanged.
 */
export function duringCreateRetry(status: ServerStatus, outcome: ServerOutcome, maxAttempts: number): ServerOutcome {
  const failures = status.providerCreateFailures ?? 0;
  const booted = status.provisionedAt !== undefined || status.launchedAt !== undefined;
  if (failures === 0 || booted || outcome.kind === 'park' || outcome.kind === 'terminal') return outcome;
  if (outcome.kind === 'yield' && outcome.rebuilding === true) return outcome;
  const max = Math.max(1, Math.floor(maxAttempts));
  const message = providerCreateRetryingMessage(Math.min(failures + 1, max), max);
  return Outcome.yield(outcome.kind === 'yield' ? outcome.reason : CREATE_RETRYING_REASON, message);
}

function resetRuntimeStatus(status: ServerStatus, message: string, now: Date): ServerStatus {
  const { privateIP: _ip, publicIP: _fip, launchedAt: _l, scheduledAt: _s, ...kept } = status;
  let conditions = setCondition(status.conditions, activeCondition('Pending'), now);
  conditions = setCondition(conditions, healthyProvisioning(message), now);
  return { ...kept, conditions };
}

const healthyProvisioning = (message: string) =>
  ({ type: 'Healthy', status: 'Unknown', reason: 'Provisioning', message }) as const;

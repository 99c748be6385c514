/**
 * What a region reconcile pass concludes, as pure functions of what it learned: the Available condition it writes
 * and whether (and how) it asks for another pass. The provisioner scaffold (provisioner.ts) performs the verdict;
 * these functions never do I/O, so every row is tested without a store or a provider.
 *
 * Tenant-facing messages are fixed text: a provider's park/terminal message (fixed by contract) or an error's
 * catalogue `userMessage`, never anything derived from an OpenStack answer (ADR 0007).
 */
import type { Condition } from '../../kube/object.ts';
import { isConditionTrue, findCondition } from '../../kube/conditions.ts';
import { conditionReasons, conditionTypes } from '../apis/shared.ts';
import { ProviderError, toUserMessage, type Outcome } from '../provider/index.ts';

/**
 * The re-check (docs/spec/openstack-provider.md §Image rebuild: "re-checking every 10s"): a yield, or a dependency that
 * is not ready yet, is looked at again after 10 s.
 */
export const RECHECK_MS = 10_000;

/** The core reasons for a resource whose dependency stops it (unikorn core, `observed-image` branch). */
export const dependencyReasons = {
  notReady: conditionReasons.dependencyNotReady,
  failed: conditionReasons.dependencyFailed,
  notFound: conditionReasons.dependencyNotFound,
} as const;

export const messages = {
  provisioned: 'the resource is provisioned',
  provisioning: 'the resource is being provisioned',
  deprovisioning: 'the resource is being deprovisioned',
  cancelled: 'reconciliation was interrupted by a controller shutdown and resumes on restart',
  identityNotFound: 'the identity this resource uses does not exist',
  identityNotReady: 'waiting for the identity this resource uses to become available',
  identityFailed: 'the identity this resource uses failed to provision',
  referencesHeld: 'deletion is blocked: another service still holds a reference on this resource',
  inUseByServers: 'deletion is waiting for the servers that use this security group to be deleted or to drop it',
  missingLabels: 'the resource lacks an ownership label (organization, project, region or identity)',
} as const;

/** The Available condition's status, reason and message; the scaffold adds type and observedGeneration. */
export interface Available {
  readonly status: Condition['status'];
  readonly reason: string;
  readonly message: string;
}

/**
 * What to do with the pass's conclusion. `row` names the decision for the log, as every table row does.
 * - report: write the condition; requeue after `requeueAfterMs` if given, else wait for the next event.
 * - backoff: write the condition, then fail the pass so the runtime retries with exponential backoff.
 * - release: the provider reports everything gone: remove the finalizer.
 */
export type Verdict =
  | { readonly action: 'report'; readonly row: string; readonly available: Available; readonly requeueAfterMs?: number }
  | { readonly action: 'backoff'; readonly row: string; readonly available: Available }
  | { readonly action: 'release'; readonly row: string };

const available = (status: Condition['status'], reason: string, message: string): Available => ({
  status,
  reason,
  message,
});

const errored = (message: string): Available => available('False', conditionReasons.errored, message);

/** A provision (create-or-converge) outcome. */
export function provisionVerdict(outcome: Outcome<unknown>): Verdict {
  switch (outcome.kind) {
    case 'done':
      return {
        action: 'report',
        row: 'done',
        available: available('True', conditionReasons.provisioned, messages.provisioned),
      };
    case 'yield':
      if (outcome.error !== undefined) return retryVerdict(outcome.error);
      return {
        action: 'report',
        row: 'yield',
        available: available('False', conditionReasons.provisioning, outcome.message ?? messages.provisioning),
        requeueAfterMs: RECHECK_MS,
      };
    case 'park':
    case 'terminal':
      return { action: 'report', row: outcome.kind, available: errored(toUserMessage(outcome)) };
  }
}

/** A deprovision (delete-until-gone) outcome: done releases the finalizer. */
export function deprovisionVerdict(outcome: Outcome<unknown>): Verdict {
  switch (outcome.kind) {
    case 'done':
      return { action: 'release', row: 'done' };
    case 'yield':
      if (outcome.error !== undefined) return retryVerdict(outcome.error);
      return {
        action: 'report',
        row: 'yield',
        available: available('False', conditionReasons.deprovisioning, messages.deprovisioning),
        requeueAfterMs: RECHECK_MS,
      };
    case 'park':
    case 'terminal':
      return { action: 'report', row: outcome.kind, available: errored(toUserMessage(outcome)) };
  }
}

/**
 * A yield carrying the pass's error (a refused rebuild): Errored with the error's fixed text, as a thrown error reads,
 * but re-checked on the yield interval instead of backing off (docs/spec/openstack-provider.md §Image rebuild).
 */
function retryVerdict(error: ProviderError): Verdict {
  return { action: 'report', row: error.code, available: errored(error.userMessage), requeueAfterMs: RECHECK_MS };
}

/**
 * A provider call (or its provider lookup) threw. Catalogue errors show their fixed `userMessage`; anything else
 * the fixed internal-error text. Either way the runtime retries with backoff. A pass the shutdown aborted says so.
 */
export function failureVerdict(error: unknown, aborted: boolean): Verdict {
  if (aborted) {
    return {
      action: 'backoff',
      row: 'cancelled',
      available: available('False', conditionReasons.cancelled, messages.cancelled),
    };
  }
  const row = error instanceof ProviderError ? error.code : 'PROVIDER_INTERNAL';
  return { action: 'backoff', row, available: errored(toUserMessage(error)) };
}

/** The dependency gate of a workload on its Identity; undefined when the identity is Available. */
export function identityGate(identity: IdentityView | undefined): Verdict | undefined {
  if (identity === undefined) {
    return gateReport(dependencyReasons.notFound, messages.identityNotFound, RECHECK_MS);
  }
  // An identity on its way out is no place to provision into; its own deletion waits for this resource.
  if (identity.metadata.deletionTimestamp !== undefined) {
    return gateReport(dependencyReasons.notReady, messages.identityNotReady, RECHECK_MS);
  }
  const conditions = identity.status?.conditions;
  if (isConditionTrue(conditions, conditionTypes.available)) return undefined;
  if (findCondition(conditions, conditionTypes.available)?.reason === conditionReasons.errored) {
    // No timer: the identity watch wakes this resource when the identity becomes Available.
    return gateReport(dependencyReasons.failed, messages.identityFailed);
  }
  return gateReport(dependencyReasons.notReady, messages.identityNotReady, RECHECK_MS);
}

/** What the gate reads of an Identity. */
export interface IdentityView {
  readonly metadata: { readonly deletionTimestamp?: string };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

/**
 * A deletion other services' references hold (upstream core yields while any remain): deprovisioning, blocked, no
 * provider call, re-checked until the last reference is released. Not an error: the holder releases it when done.
 */
export function referencesGate(references: readonly string[]): Verdict | undefined {
  return references.length === 0 ? undefined : deletionHeld('references-held', messages.referencesHeld);
}

/**
 * A security group that servers still name: Neutron refuses its delete while their ports use it, so the deletion
 * waits (deprovisioning, no provider call) instead of backing off on 409s, and is re-checked until none does.
 */
export function serversGate(users: readonly string[]): Verdict | undefined {
  return users.length === 0 ? undefined : deletionHeld('servers-use', messages.inUseByServers);
}

/** A deletion held by something outside the provider: deprovisioning, no provider call, re-checked. */
function deletionHeld(row: string, message: string): Verdict {
  return {
    action: 'report',
    row,
    available: available('False', conditionReasons.deprovisioning, message),
    requeueAfterMs: RECHECK_MS,
  };
}

/** A resource whose labels cannot name its owner, region or identity: no provider call can be made for it. */
export function missingLabelsVerdict(): Verdict {
  return { action: 'report', row: 'missing-labels', available: errored(messages.missingLabels) };
}

function gateReport(reason: string, message: string, requeueAfterMs?: number): Verdict {
  const base = { action: 'report', row: `gate:${reason}`, available: available('False', reason, message) } as const;
  return requeueAfterMs === undefined ? base : { ...base, requeueAfterMs };
}

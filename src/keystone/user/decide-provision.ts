/**
 * The decisions of provisionUser, one pure function per step of the six in docs/spec/keystoneuser-reconciler.md §User
 * provisioning, each row named. The I/O around them (provision.ts) reads what a step needs, asks its decision, and
 * performs the one action the row names.
 */
import type { ConditionInput } from '../../kube/conditions.ts';
import type { Condition } from '../../kube/object.ts';
import type { Result } from '../../runtime/types.ts';
import { KORC_WAITING_FOR_EXTERNAL, korcConditions, korcReasons, type KorcUser } from '../apis/korc.ts';
import { goQuote } from '../order/format.ts';
import { KORC_REQUEUE_AFTER_MS } from '../order/result.ts';
import { reasons, truncateMessage } from './constants.ts';
import { classifyKorcFailure, externalFailureMessage, type KorcFailureClass } from './external-mode.ts';

/** What a step ends the provisioning with: UserReady, the step's requeue, and whether the user is converged. */
export interface StepEnd {
  readonly row: string;
  readonly condition: Omit<ConditionInput, 'type' | 'observedGeneration'>;
  readonly result: Result;
}

const falseCondition = (reason: string, message: string) => ({ status: 'False' as const, reason, message });

/**
 * Step 2: the secret store of the ControlPlane's namespace must be Ready, or the password could not be backed up.
 * `observed` is the store's conditions (undefined when it is absent), or 'unserved' when the cluster serves the
 * store kind at neither version openregion reads.
 */
export function decideSecretStore(
  store: { readonly kind: string; readonly name: string; readonly namespace: string },
  observed: readonly Pick<Condition, 'type' | 'status'>[] | undefined | 'unserved',
): StepEnd | undefined {
  if (observed === 'unserved') {
    return {
      row: 'P2-SecretStoreUnserved',
      condition: falseCondition(
        reasons.secretStoreNotReady,
        `this cluster serves no ${store.kind} at external-secrets.io/v1 or v1beta1 (is the External Secrets Operator installed?); the password could not be backed up`,
      ),
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  if (observed?.some((c) => c.type === 'Ready' && c.status === 'True') === true) return undefined;
  const where = store.kind === 'ClusterSecretStore' ? '' : ` in namespace ${goQuote(store.namespace)}`;
  return {
    row: 'P2-SecretStoreNotReady',
    condition: falseCondition(
      reasons.secretStoreNotReady,
      `${store.kind} ${goQuote(store.name)}${where} is not Ready; the password could not be backed up`,
    ),
    result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
  };
}

/** K-ORC's Available at the object's current generation (c5c3's korcAvailableUpToDate). */
function korcAvailableUpToDate(object: Pick<KorcUser, 'metadata' | 'status'>): boolean {
  const available = object.status?.conditions?.find((c) => c.type === korcConditions.available);
  return available?.status === 'True' && available.observedGeneration === object.metadata.generation;
}

type ProbeRow = 'P3-ProbeAbsent' | 'P3-ProbeCollision' | 'P3-ExternalFailure' | 'P3-Probing';

interface ProbeInput {
  readonly userName: string;
  readonly domainName: string;
  /** The ControlPlane's Keystone is External: a K-ORC failure is classified instead of waited on. */
  readonly external: boolean;
}

/**
 * Against an External-mode ControlPlane, a K-ORC object that is not done is read for the failure class its message
 * shows (AuthenticationFailed and friends), since nothing the operator runs will fix an external Keystone. Shared
 * by the probe (step 3) and the managed User (step 6), so both wait the same way.
 */
function externalFailure(
  object: Pick<KorcUser, 'status'> | undefined,
  external: boolean,
): { readonly reason: KorcFailureClass; readonly message: string } | undefined {
  if (!external) return undefined;
  const conditions = object?.status?.conditions;
  const message =
    conditions?.find((c) => c.type === korcConditions.progressing)?.message ??
    conditions?.find((c) => c.type === korcConditions.available)?.message;
  const failure = classifyKorcFailure(message);
  return failure === undefined
    ? undefined
    : { reason: failure, message: truncateMessage(externalFailureMessage(failure, message ?? '')) };
}

/**
 * Step 3: the unmanaged import decides whether a user of that name exists. An import that found one is a
 * collision: the order never takes over a user it did not create (a managed K-ORC User would adopt it silently and
 * never set its password).
 */
export function decideProbe(
  probe: Pick<KorcUser, 'metadata' | 'status'> | undefined,
  input: ProbeInput,
): { readonly row: 'P3-ProbeAbsent' } | (StepEnd & { readonly row: Exclude<ProbeRow, 'P3-ProbeAbsent'> }) {
  const { userName, domainName } = input;
  const available = probe?.status?.conditions?.find((c) => c.type === korcConditions.available);
  if (probe !== undefined && korcAvailableUpToDate(probe)) {
    return {
      row: 'P3-ProbeCollision',
      condition: falseCondition(
        reasons.serviceAccountCollision,
        `Keystone user ${goQuote(userName)} in domain ${goQuote(domainName)} already exists; the order never takes over a user it did not create; choose another userName or remove that user`,
      ),
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  if (available?.status === 'False' && available.message === KORC_WAITING_FOR_EXTERNAL)
    return { row: 'P3-ProbeAbsent' };
  const failure = externalFailure(probe, input.external);
  if (failure !== undefined) {
    return {
      row: 'P3-ExternalFailure',
      condition: falseCondition(failure.reason, failure.message),
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  return {
    row: 'P3-Probing',
    condition: falseCondition(
      reasons.probingForCollision,
      `probing Keystone for an existing user ${goQuote(userName)} in domain ${goQuote(domainName)}`,
    ),
    result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
  };
}

/** K-ORC's latched transport error: a terminal InvalidConfiguration at this generation that is really a dial error. */
export function latchedTransportError(user: Pick<KorcUser, 'metadata' | 'status'>): boolean {
  const p = user.status?.conditions?.find((c) => c.type === korcConditions.progressing);
  return (
    p !== undefined &&
    p.status === 'False' &&
    p.reason === korcReasons.invalidConfiguration &&
    p.observedGeneration === user.metadata.generation &&
    classifyKorcFailure(p.message) === 'EndpointUnreachable'
  );
}

/** How long a cleared latch waits before it is cleared again; a uid-derived offset spreads the users apart. */
export const UNLATCH_BACKOFF_MS = 60_000;
const UNLATCH_JITTER_MS = 10_000;

export function unlatchJitterMs(uid: string | undefined): number {
  let h = 0;
  for (const ch of uid ?? '') h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % UNLATCH_JITTER_MS;
}

/** When the latch may be cleared again: at once when it never was. */
export function unlatchDueAt(user: Pick<KorcUser, 'metadata'>, lastUnlatched: string | undefined): number {
  const last = lastUnlatched === undefined ? Number.NaN : Date.parse(lastUnlatched);
  return Number.isNaN(last) ? 0 : last + UNLATCH_BACKOFF_MS + unlatchJitterMs(user.metadata.uid);
}

interface UserStateInput {
  readonly user: Pick<KorcUser, 'metadata' | 'status'>;
  readonly passwordRef: string;
  readonly generation: number;
  readonly external: boolean;
  readonly now: number;
  readonly lastUnlatched: string | undefined;
}

type UserStateRow =
  | 'P6-Unlatch'
  | 'P6-UnlatchPaced'
  | 'P6-Terminal'
  | 'P6-ExternalFailure'
  | 'P6-WaitAvailable'
  | 'P6-WaitPassword'
  | 'P6-Provisioned';

type UserStateDecision =
  | { readonly row: 'P6-Unlatch' }
  | { readonly row: 'P6-Provisioned' }
  | (StepEnd & { readonly row: Exclude<UserStateRow, 'P6-Unlatch' | 'P6-Provisioned'> });

/**
 * Step 6: what K-ORC reports on the managed User, read in the order of docs/spec/keystoneuser-reconciler.md §User
 * provisioning.
 */
export function decideUserState(input: UserStateInput): UserStateDecision {
  const { user } = input;
  const progressing = user.status?.conditions?.find((c) => c.type === korcConditions.progressing);
  if (latchedTransportError(user)) {
    const due = unlatchDueAt(user, input.lastUnlatched);
    if (input.now >= due) return { row: 'P6-Unlatch' };
    return {
      row: 'P6-UnlatchPaced',
      condition: falseCondition(
        reasons.waitingForServiceAccounts,
        truncateMessage(`K-ORC cannot reach Keystone and is retried shortly: ${progressing?.message ?? ''}`),
      ),
      result: { requeueAfterMs: Math.max(1, due - input.now) },
    };
  }
  const terminal =
    progressing?.status === 'False' &&
    progressing.observedGeneration === user.metadata.generation &&
    (progressing.reason === korcReasons.invalidConfiguration || progressing.reason === korcReasons.unrecoverableError);
  if (terminal) {
    return {
      row: 'P6-Terminal',
      condition: falseCondition(
        reasons.serviceAccountsFailed,
        truncateMessage(`K-ORC reported a terminal error on the user: ${progressing.message}`),
      ),
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  const applied = user.status?.resource?.appliedPasswordRef === input.passwordRef;
  if (korcAvailableUpToDate(user) && applied) return { row: 'P6-Provisioned' };
  const failure = externalFailure(user, input.external);
  if (failure !== undefined) {
    return {
      row: 'P6-ExternalFailure',
      condition: falseCondition(failure.reason, failure.message),
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  return {
    row: korcAvailableUpToDate(user) ? 'P6-WaitPassword' : 'P6-WaitAvailable',
    condition: falseCondition(
      reasons.waitingForServiceAccounts,
      korcAvailableUpToDate(user)
        ? `awaiting K-ORC to apply password generation ${input.generation} to the user`
        : 'the user is registered but not yet Available',
    ),
    result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
  };
}

export function provisionedMessage(userName: string, domainName: string, generation: number): string {
  return `Keystone user ${goQuote(userName)} is provisioned in domain ${goQuote(domainName)} at password generation ${generation}`;
}

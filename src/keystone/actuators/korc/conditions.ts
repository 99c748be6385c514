/**
 * The Available and Progressing conditions K-ORC writes for the end of a pass (reference §2.3), and its error
 * classes: an HTTP error other than 409 and 501 is retried; anything else on a write (dial, DNS, TLS, a conflict) is
 * terminal InvalidConfiguration, the "latched" transport error c5c3 unlatches.
 */
import type { ConditionInput } from '../../../kube/conditions.ts';
import type { Condition } from '../../../kube/object.ts';
import { OpenStackHttpError } from '../../../openstack/errors.ts';
import { korcConditions, korcReasons } from '../../apis/korc.ts';

const MESSAGE_UP_TO_DATE = 'OpenStack resource is up to date';
const MESSAGE_AVAILABLE = 'OpenStack resource is available';

export type PassEnd =
  | { readonly kind: 'available' }
  | { readonly kind: 'wait'; readonly message: string }
  | { readonly kind: 'terminal'; readonly reason: string; readonly message: string }
  | { readonly kind: 'transient'; readonly message: string };

export function korcConditionsFor(end: PassEnd, generation: number): [ConditionInput, ConditionInput] {
  const both = (
    progressing: ConditionInput['status'],
    available: ConditionInput['status'],
    reason: string,
    message: string,
  ): [ConditionInput, ConditionInput] => [
    { type: korcConditions.progressing, status: progressing, reason, message, observedGeneration: generation },
    { type: korcConditions.available, status: available, reason, message, observedGeneration: generation },
  ];
  switch (end.kind) {
    case 'available':
      return [
        {
          type: korcConditions.progressing,
          status: 'False',
          reason: korcReasons.success,
          message: MESSAGE_UP_TO_DATE,
          observedGeneration: generation,
        },
        {
          type: korcConditions.available,
          status: 'True',
          reason: korcReasons.success,
          message: MESSAGE_AVAILABLE,
          observedGeneration: generation,
        },
      ];
    case 'wait':
      return both('True', 'False', korcReasons.progressing, end.message);
    case 'terminal':
      return both('False', 'False', end.reason, end.message);
    case 'transient':
      return both('True', 'Unknown', korcReasons.transientError, end.message);
  }
}

const TERMINAL_REASONS: readonly string[] = [korcReasons.invalidConfiguration, korcReasons.unrecoverableError];

/** K-ORC's GetTerminalError: Progressing False with a terminal reason, at the object's current generation. */
export function terminalAtGeneration(conditions: readonly Condition[] | undefined, generation: number): boolean {
  const p = conditions?.find((c) => c.type === korcConditions.progressing);
  return (
    p !== undefined &&
    p.status === 'False' &&
    p.observedGeneration === generation &&
    TERMINAL_REASONS.includes(p.reason)
  );
}

/** Progressing False with Success at the object's current generation: the state K-ORC's ShouldReconcile skips. */
export function upToDateAtGeneration(conditions: readonly Condition[] | undefined, generation: number): boolean {
  const p = conditions?.find((c) => c.type === korcConditions.progressing);
  return (
    p !== undefined && p.status === 'False' && p.observedGeneration === generation && p.reason === korcReasons.success
  );
}

/** K-ORC's IsRetryable: only an HTTP answer other than 409 and 501 is worth retrying. */
export function isRetryable(error: unknown): boolean {
  return error instanceof OpenStackHttpError && error.status !== 409 && error.status !== 501;
}

/** How a failed write ends the pass: retried with backoff, or latched as terminal. */
export function writeFailure(error: unknown, verb: 'creating' | 'updating' | 'deleting'): PassEnd {
  const detail = error instanceof Error ? error.message : String(error);
  return isRetryable(error)
    ? { kind: 'transient', message: detail }
    : {
        kind: 'terminal',
        reason: korcReasons.invalidConfiguration,
        message: `invalid configuration ${verb} resource: ${detail}`,
      };
}

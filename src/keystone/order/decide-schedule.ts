/**
 * The password schedule of a KeystoneUser, as pure functions of the object's fields and the reconciler's clock.
 * spec.passwordGeneration and the schedule both drive the generation; the higher wins, nothing ever rolls back, a
 * raised spec generation is never held, and `interval: 0s` turns the schedule off. A due rotation is held while an
 * application credential order of the user is being deleted: K-ORC authenticates that delete with the user's
 * password, so changing it mid-delete would break the delete.
 */
import type { Result } from '../../runtime/types.ts';
import { parseGoDuration } from '../../util/duration.ts';
import { goQuote, goQuoteList } from './format.ts';
import { REFERENCE_HOLD_REQUEUE_AFTER_MS } from './result.ts';

export type ScheduleState =
  | { readonly row: 'Off' }
  /** No time recorded yet: the pass stamps one, which anchors a fresh order and one older than the schedule. */
  | { readonly row: 'Unanchored' }
  | { readonly row: 'NotDue' | 'Due'; readonly nextMs: number };

/** spec.rotation.interval in milliseconds; absent, unparseable or zero means off. */
function rotationIntervalMs(interval: string | undefined): number | undefined {
  const ms = interval === undefined ? undefined : parseGoDuration(interval);
  return ms !== undefined && ms > 0 ? ms : undefined;
}

export function scheduleState(
  interval: string | undefined,
  lastPasswordRotation: string | undefined,
  now: number,
): ScheduleState {
  const intervalMs = rotationIntervalMs(interval);
  if (intervalMs === undefined) return { row: 'Off' };
  const last = lastPasswordRotation === undefined ? Number.NaN : Date.parse(lastPasswordRotation);
  if (Number.isNaN(last)) return { row: 'Unanchored' };
  const nextMs = last + intervalMs;
  return { row: now >= nextMs ? 'Due' : 'NotDue', nextMs };
}

/** A stored zero (or an absent value) reads as 1. */
export function declaredGeneration(specGeneration: number | undefined): number {
  return Math.max(1, specGeneration ?? 1);
}

export interface GenerationInput {
  /** spec.passwordGeneration. */
  readonly specGeneration: number | undefined;
  /** status.passwordGeneration: the generation Keystone holds (0 or absent before the first). */
  readonly statusGeneration: number | undefined;
  /** The generation the managed User points at now; absent before it exists. */
  readonly pointedGeneration: number | undefined;
  readonly schedule: ScheduleState;
  /**
   * The application credential orders naming the user that are being deleted. Listed only once a rotation is due
   * (undefined until then), so a pass that rotates nothing reads nothing on the order's cluster.
   */
  readonly deletingCredentials: readonly string[] | undefined;
}

type GenerationRow = 'Raised' | 'InFlight' | 'CheckHolds' | 'Held' | 'Scheduled' | 'Steady';

export type GenerationDecision =
  | { readonly row: 'CheckHolds' }
  | {
      readonly row: Exclude<GenerationRow, 'CheckHolds'>;
      readonly generation: number;
      readonly holders: readonly string[];
    };

export function decidePasswordGeneration(input: GenerationInput): GenerationDecision {
  const declared = declaredGeneration(input.specGeneration);
  const current = input.statusGeneration ?? 0;
  const pointed = input.pointedGeneration ?? 0;
  const floor = Math.max(current, pointed);
  if (declared > floor) return { row: 'Raised', generation: declared, holders: [] };
  // A rotation K-ORC has not applied yet: keep pointing at it rather than stack another.
  if (pointed > current) return { row: 'InFlight', generation: pointed, holders: [] };
  if (input.schedule.row !== 'Due') return { row: 'Steady', generation: floor, holders: [] };
  if (input.deletingCredentials === undefined) return { row: 'CheckHolds' };
  if (input.deletingCredentials.length > 0) {
    return { row: 'Held', generation: floor, holders: [...input.deletingCredentials].sort() };
  }
  return { row: 'Scheduled', generation: current + 1, holders: [] };
}

/** Appended to UserReady's message while a due rotation is held. */
export function heldRotationNote(holders: readonly string[], namespace: string): string {
  return `; the due password rotation waits for KeystoneApplicationCredential(s) ${goQuoteList(holders)} in namespace ${goQuote(namespace)} to be deleted`;
}

interface StampInput {
  /** The pass pointed the User at a new password Secret. */
  readonly repointed: boolean;
  /** The pass saw K-ORC apply a generation above status.passwordGeneration. */
  readonly newlyApplied: boolean;
  readonly lastPasswordRotation: string | undefined;
  readonly now: number;
}

type StampDecision =
  | { readonly row: 'Repointed' | 'Applied' | 'Anchored'; readonly lastPasswordRotation: string }
  | { readonly row: 'Kept'; readonly lastPasswordRotation: string };

/**
 * status.lastPasswordRotation. The second stamp, when the new generation is seen applied, keeps a rotation whose
 * first status write was lost from starting another one.
 */
export function stampRotation(input: StampInput): StampDecision {
  const now = rfc3339(input.now);
  if (input.repointed) return { row: 'Repointed', lastPasswordRotation: now };
  if (input.newlyApplied) return { row: 'Applied', lastPasswordRotation: now };
  if (input.lastPasswordRotation === undefined || Number.isNaN(Date.parse(input.lastPasswordRotation))) {
    return { row: 'Anchored', lastPasswordRotation: now };
  }
  return { row: 'Kept', lastPasswordRotation: input.lastPasswordRotation };
}

/** status.nextPasswordRotation, absent while the schedule is off. */
export function nextPasswordRotation(interval: string | undefined, lastPasswordRotation: string): string | undefined {
  const intervalMs = rotationIntervalMs(interval);
  const last = Date.parse(lastPasswordRotation);
  return intervalMs === undefined || Number.isNaN(last) ? undefined : rfc3339(last + intervalMs);
}

/** The schedule's requeue: a held rotation looks again in a minute; otherwise the time until the next rotation. */
export function scheduleRequeue(decision: GenerationDecision, next: string | undefined, now: number): Result {
  if (decision.row === 'Held') return { requeueAfterMs: REFERENCE_HOLD_REQUEUE_AFTER_MS };
  if (next === undefined) return {};
  // Never 0: a zero requeue means "none", and a rotation already due should run on the next pass.
  return { requeueAfterMs: Math.max(1, Date.parse(next) - now) };
}

/** metav1.Time's format: second precision, UTC. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

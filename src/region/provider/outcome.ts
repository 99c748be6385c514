/**
 * What a provider call tells its controller (docs/architecture.md §Dispositions, not exceptions). A lifecycle call
 * returns one of four dispositions; the fifth, "transient error, back off", is a thrown TransientError from errors.ts,
 * as are not found, conflict and consistency.
 *
 * `reason` is a stable machine token (a condition reason, a metric label); `message` is shown to the tenant and
 * must be fixed text that names no cause from OpenStack. Raw detail, when there is any, rides in `cause`, which
 * only `toOperatorLog` reads.
 */
import type { ProviderError } from './errors.ts';

export interface Done<T> {
  readonly kind: 'done';
  readonly value: T;
}

/** Requeue soon without backoff: OpenStack accepted work that settles later (the 10 s re-check). */
export interface Yield {
  readonly kind: 'yield';
  readonly reason: string;
  /** Fixed tenant text saying what the wait is for, when the generic "being provisioned" says too little. */
  readonly message?: string;
  /**
   * The pass's error, when the wait is a retry of a refusal (a rebuild Nova refused): the resource reads Errored with
   * this error's fixed `userMessage`, its cause reaches operators only, and the pass still runs again on the 10 s
   * re-check rather than an exponential back-off (docs/spec/openstack-provider.md §Image rebuild).
   */
  readonly error?: ProviderError;
}

/** User action required: no requeue; a spec edit (or a watched observation) wakes the resource again. */
export interface Park {
  readonly kind: 'park';
  readonly reason: string;
  readonly message: string;
  /** Operator-only: what made the provider park. Never shown to the tenant. */
  readonly cause?: unknown;
}

/** The resource cannot converge as specified and retrying will not change that. */
export interface Terminal {
  readonly kind: 'terminal';
  readonly reason: string;
  readonly message: string;
  /** Operator-only: what made the provider give up. Never shown to the tenant. */
  readonly cause?: unknown;
}

export type Outcome<T> = Done<T> | Yield | Park | Terminal;

// `yield` is reserved in strict-mode code, so the constructors live on one object: `Outcome.yield(reason)`.
export const Outcome = {
  done<T>(value: T): Done<T> {
    return { kind: 'done', value };
  },
  /** `Outcome.done()` for calls whose success carries no value. */
  ok(): Done<undefined> {
    return { kind: 'done', value: undefined };
  },
  yield(reason: string, message?: string): Yield {
    return message === undefined ? { kind: 'yield', reason } : { kind: 'yield', reason, message };
  },
  /** A yield that surfaces `error` as the pass's error and retries on the re-check interval. */
  retry(reason: string, error: ProviderError): Yield {
    return { kind: 'yield', reason, error };
  },
  park(reason: string, message: string, cause?: unknown): Park {
    return cause === undefined ? { kind: 'park', reason, message } : { kind: 'park', reason, message, cause };
  },
  terminal(reason: string, message: string, cause?: unknown): Terminal {
    return cause === undefined ? { kind: 'terminal', reason, message } : { kind: 'terminal', reason, message, cause };
  },
} as const;

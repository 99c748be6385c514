/**
 * Time is injected (docs/architecture.md §Injected time and randomness): decisions never read the wall clock
 * themselves.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The longest delay a Node timer honours (2^31 − 1 ms, about 24.8 days). A longer one fires after 1 ms with a
 * TimeoutOverflowWarning, so a 720h password timer would loop instead of waiting.
 */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** How a one-shot timer is armed: returns the function that cancels it. `delayMs` is at most MAX_TIMER_DELAY_MS. */
export type ArmTimer = (delayMs: number, fn: () => void) => () => void;

/** Node's own timers, unref'd so a pending timer never keeps the process alive by itself. */
export const nodeTimer: ArmTimer = (delayMs, fn) => {
  const timer = setTimeout(fn, delayMs);
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
};

/**
 * Runs `fn` once `delayMs` has passed, arming `arm` in steps of at most MAX_TIMER_DELAY_MS: a step that ends short of
 * the delay re-arms for the rest instead of calling `fn`. A negative or NaN delay is 0; Infinity never fires.
 */
export function armInSteps(arm: ArmTimer, delayMs: number, fn: () => void): () => void {
  let cancelStep: () => void = () => undefined;
  let cancelled = false;
  const step = (remaining: number) => {
    const now = Math.min(remaining, MAX_TIMER_DELAY_MS);
    cancelStep = arm(now, () => {
      if (cancelled) return;
      if (remaining > now) step(remaining - now);
      else fn();
    });
  };
  step(delayMs > 0 ? delayMs : 0);
  return () => {
    cancelled = true;
    cancelStep();
  };
}

/** Node's timers as they are: a sleep holds the process open, unlike a requeue timer. */
const refTimer: ArmTimer = (delayMs, fn) => {
  const timer = setTimeout(fn, delayMs);
  return () => {
    clearTimeout(timer);
  };
};

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = () => {
        cancel();
        reject(signal?.reason as Error);
      };
      const cancel = armInSteps(refTimer, ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock for tests: time moves only when the test says so, and sleeps resolve instantly while advancing it. */
export class ManualClock implements Clock {
  #now: number;
  readonly sleeps: number[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    this.sleeps.push(ms);
    this.#now += ms;
    return Promise.resolve();
  }
}

/** A source of randomness in [0, 1), injected so jitter is reproducible in tests. */
export type Random = () => number;

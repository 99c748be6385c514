/**
 * Timers behind an interface, so the work queue, informers and leader election can be driven by a test clock:
 * `ManualScheduler.advance()` moves time and fires what fell due, with no real sleeps. Both schedulers arm delays
 * longer than a Node timer holds (a 720h password timer) in steps, so the manual one shows what the real one does.
 */
import { armInSteps, nodeTimer, type ArmTimer, type Clock, type ManualClock } from '../util/clock.ts';

export interface Scheduler {
  readonly clock: Clock;
  /** Runs `fn` once `delayMs` has passed on the clock; the returned function cancels it. */
  schedule(delayMs: number, fn: () => void): () => void;
}

/**
 * Real timers; unref'd so a pending requeue never keeps the process alive by itself. `arm` is Node's timer; a test
 * may pass its own to watch the steps.
 */
export function systemScheduler(clock: Clock, arm: ArmTimer = nodeTimer): Scheduler {
  return {
    clock,
    schedule: (delayMs, fn) => armInSteps(arm, delayMs, fn),
  };
}

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** Timers that fire only when a test advances the clock through this scheduler. */
export class ManualScheduler implements Scheduler {
  readonly clock: ManualClock;
  readonly #timers = new Set<Timer>();
  #seq = 0;

  constructor(clock: ManualClock) {
    this.clock = clock;
  }

  schedule(delayMs: number, fn: () => void): () => void {
    return armInSteps(this.#arm, delayMs, fn);
  }

  readonly #arm: ArmTimer = (delayMs, fn) => {
    const timer: Timer = { due: this.clock.now() + delayMs, seq: this.#seq++, fn };
    this.#timers.add(timer);
    return () => {
      this.#timers.delete(timer);
    };
  };

  /** Timers waiting to fire, soonest first (delays from now); a long delay shows as its current step. */
  pending(): number[] {
    const now = this.clock.now();
    return [...this.#timers].map((t) => t.due - now).sort((a, b) => a - b);
  }

  /**
   * Moves the clock forward by `ms`, firing every timer that falls due in order of due time; between timers it lets
   * promise callbacks run, so work a timer starts can schedule further timers inside the same advance.
   */
  async advance(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    for (;;) {
      await settle();
      const next = this.#nextDue(end);
      if (next === undefined) break;
      this.#timers.delete(next);
      if (next.due > this.clock.now()) this.clock.advance(next.due - this.clock.now());
      next.fn();
    }
    if (end > this.clock.now()) this.clock.advance(end - this.clock.now());
    await settle();
  }

  #nextDue(end: number): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.#timers) {
      if (t.due > end) continue;
      if (best === undefined || t.due < best.due || (t.due === best.due && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Lets queued promise callbacks and immediates run (a few macrotask turns). */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Resolves after `ms` on the scheduler's clock, or rejects with the signal's reason when it aborts first. */
export function delay(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      cancel();
      reject(abortReason(signal));
    };
    const cancel = scheduler.schedule(ms, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted');
}

/**
 * A rate-limited work queue as client-go's workqueue has it: a key is queued at most once, at most one pass per key
 * is in flight (a key added meanwhile is queued once more after `done`), failures back off exponentially per key
 * with jitter and a cap, and delayed adds keep the earliest due time. All timing goes through the Scheduler.
 *
 * Unlike client-go, a pass that starts takes its key's pending delayed add with it: the re-check (or retry) an
 * earlier pass asked for is what this pass, reading afresh, does now, and this pass asks for its own if it needs
 * one. With several workers a key rarely waits in the queue, so this is where duplicate passes merge (ADR 0027).
 */
import type { Random } from '../util/clock.ts';
import { delay, type Scheduler } from './scheduler.ts';

export interface BackoffOptions {
  /** The first retry's delay; each further failure doubles it. */
  readonly baseMs: number;
  readonly capMs: number;
  /** A delay is shortened by up to this fraction, at random, so retries of many keys spread out. */
  readonly jitter: number;
}

/** controller-runtime's per-item limiter: 5 ms doubling to 1000 s; jitter added here. */
const defaultBackoff: BackoffOptions = { baseMs: 5, capMs: 1_000_000, jitter: 0.1 };

/** The delay after `failures` earlier failures: min(cap, base·2ⁿ), less up to `jitter` of it. */
export function backoffDelay(failures: number, options: BackoffOptions, random: Random): number {
  const raw = Math.min(options.capMs, options.baseMs * 2 ** Math.min(failures, 62));
  return raw * (1 - options.jitter * random());
}

export interface QueueObserver {
  depth(depth: number): void;
  /** A key entered the queue (a re-add of a key already waiting is not counted, as in client-go). */
  add(): void;
  retry(): void;
}

interface WorkQueueOptions<T> {
  readonly keyOf: (item: T) => string;
  readonly scheduler: Scheduler;
  readonly random?: Random;
  readonly backoff?: Partial<BackoffOptions>;
  readonly observer?: QueueObserver;
}

interface Delayed<T> {
  readonly due: number;
  readonly item: T;
  readonly cancel: () => void;
}

export class WorkQueue<T> {
  readonly #keyOf: (item: T) => string;
  readonly #scheduler: Scheduler;
  readonly #random: Random;
  readonly #backoff: BackoffOptions;
  readonly #observer: QueueObserver | undefined;

  /** Keys waiting for a worker, in order, with the latest item added for each. */
  readonly #queue = new Map<string, T>();
  readonly #processing = new Map<string, T>();
  /** Keys added while in flight: queued again on `done`. */
  readonly #redo = new Map<string, T>();
  readonly #delayed = new Map<string, Delayed<T>>();
  readonly #failures = new Map<string, { readonly count: number; readonly item: T }>();
  readonly #waiters: ((item: T | undefined) => void)[] = [];
  #retries = 0;
  #shuttingDown = false;
  #idle: (() => void) | undefined;

  constructor(options: WorkQueueOptions<T>) {
    this.#keyOf = options.keyOf;
    this.#scheduler = options.scheduler;
    this.#random = options.random ?? Math.random;
    this.#backoff = { ...defaultBackoff, ...options.backoff };
    this.#observer = options.observer;
  }

  /** Keys waiting for a worker (not counting passes in flight). */
  get depth(): number {
    return this.#queue.size;
  }

  /** Retries scheduled by `addRateLimited` since the queue was made. */
  get retries(): number {
    return this.#retries;
  }

  get inFlight(): number {
    return this.#processing.size;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(item: T): void {
    if (this.#shuttingDown) return;
    const key = this.#keyOf(item);
    if (this.#processing.has(key)) {
      this.#redo.set(key, item);
      return;
    }
    if (this.#queue.has(key)) {
      this.#queue.set(key, item);
      return;
    }
    this.#observer?.add();
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#start(key, item);
      waiter(item);
      return;
    }
    this.#queue.set(key, item);
    this.#observer?.depth(this.#queue.size);
  }

  /** Adds `item` once `ms` has passed; a pending delayed add of the same key keeps whichever is due first. */
  addAfter(item: T, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) {
      this.add(item);
      return;
    }
    const key = this.#keyOf(item);
    const due = this.#scheduler.clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.due <= due) return;
      pending.cancel();
    }
    const cancel = this.#scheduler.schedule(ms, () => {
      if (this.#delayed.get(key)?.cancel !== cancel) return;
      this.#delayed.delete(key);
      this.add(item);
    });
    this.#delayed.set(key, { due, item, cancel });
  }

  /** Adds `item` after its key's next backoff delay and counts the failure; returns the delay. */
  addRateLimited(item: T): number {
    const key = this.#keyOf(item);
    const failures = this.#failures.get(key)?.count ?? 0;
    const wait = backoffDelay(failures, this.#backoff, this.#random);
    this.#failures.set(key, { count: failures + 1, item });
    this.#retries++;
    this.#observer?.retry();
    this.addAfter(item, wait);
    return wait;
  }

  /** Resets the key's backoff: the next failure waits the base delay again. */
  forget(item: T): void {
    this.#failures.delete(this.#keyOf(item));
  }

  numRequeues(item: T): number {
    return this.#failures.get(this.#keyOf(item))?.count ?? 0;
  }

  /** The next item to process, waiting for one; undefined once the queue shuts down. Call `done` after. */
  get(): Promise<T | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const first = this.#queue.entries().next();
    if (!first.done) {
      const [key, item] = first.value;
      this.#queue.delete(key);
      this.#observer?.depth(this.#queue.size);
      this.#start(key, item);
      return Promise.resolve(item);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Keys with a delayed add pending (a re-check or a retry). */
  get delayed(): number {
    return this.#delayed.size;
  }

  /** Hands `key` to a worker; the pass subsumes the key's pending delayed add. */
  #start(key: string, item: T): void {
    this.#processing.set(key, item);
    const pending = this.#delayed.get(key);
    if (pending === undefined) return;
    pending.cancel();
    this.#delayed.delete(key);
  }

  done(item: T): void {
    const key = this.#keyOf(item);
    this.#processing.delete(key);
    const again = this.#redo.get(key);
    if (again !== undefined) {
      this.#redo.delete(key);
      this.add(again);
    }
    if (this.#processing.size === 0) this.#idle?.();
  }

  /** Forgets every queued, delayed and re-queued item that matches, with its backoff (a disengaged cluster). */
  drop(matches: (item: T) => boolean): void {
    for (const [key, item] of this.#queue) if (matches(item)) this.#queue.delete(key);
    for (const [key, item] of this.#redo) if (matches(item)) this.#redo.delete(key);
    for (const [key, pending] of this.#delayed) {
      if (!matches(pending.item)) continue;
      pending.cancel();
      this.#delayed.delete(key);
    }
    for (const [key, failure] of this.#failures) if (matches(failure.item)) this.#failures.delete(key);
    this.#observer?.depth(this.#queue.size);
  }

  /** Stops handing out work and waits for passes in flight, up to `deadlineMs`; true when they all finished. */
  async shutDownWithDrain(deadlineMs: number): Promise<boolean> {
    this.#shutDown();
    if (this.#processing.size === 0) return true;
    const stop = new AbortController();
    const idle = new Promise<boolean>((resolve) => {
      this.#idle = () => {
        resolve(true);
      };
    });
    const timeout = delay(this.#scheduler, deadlineMs, stop.signal).then(
      () => false,
      () => false,
    );
    const drained = await Promise.race([idle, timeout]);
    stop.abort();
    return drained;
  }

  #shutDown(): void {
    this.#shuttingDown = true;
    for (const pending of this.#delayed.values()) pending.cancel();
    this.#delayed.clear();
    this.#queue.clear();
    this.#redo.clear();
    this.#observer?.depth(0);
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }
}

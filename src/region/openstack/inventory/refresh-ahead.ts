/**
 * A refresh-ahead cache of one keyed list (upstream core `RefreshAheadCache`; docs/spec/openstack-provider.md §Image
 * handling: raw image API latency is too expensive to expose to every caller). Readers always get the last snapshot at
 * once; a scheduler refreshes it in the background every period, and a failed refresh keeps the old snapshot (and is
 * retried next period).
 *
 * Writes between refreshes:
 * - `insertIfAbsent` (create, snapshot): a write-through overlay entry. It survives any refresh that started before
 *   it was inserted (that listing may predate the new item), and gives way to the first refresh started after.
 * - `upsert` (delete's tombstone): replaces the item in every snapshot until a refresh started after it completes.
 *
 * Snapshots carry an epoch that moves whenever the view changes; a snapshot is built once per epoch and shared.
 */
import type { Clock } from '../../../util/clock.ts';

/**
 * Runs `task` every `ms` until cancelled; injected so tests drive time (docs/architecture.md §Injected time and
 * randomness).
 */
export interface Scheduler {
  every(ms: number, task: () => void): { cancel(): void };
}

/** Timers that never hold the process open. */
export const timerScheduler: Scheduler = {
  every(ms, task) {
    const timer = setInterval(task, ms);
    timer.unref();
    return {
      cancel: () => {
        clearInterval(timer);
      },
    };
  },
};

interface Snapshot<T> {
  readonly epoch: number;
  readonly items: readonly T[];
}

interface RefreshAheadOptions<T> {
  readonly load: () => Promise<readonly T[]>;
  readonly key: (item: T) => string;
  /** Snapshot order. */
  readonly compare: (a: T, b: T) => number;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly periodMs: number;
  readonly onRefreshError?: ((error: unknown) => void) | undefined;
}

interface Overlay<T> {
  readonly item: T;
  /** How many refreshes had started when it was written: a refresh numbered above this one supersedes it. */
  readonly writtenAt: number;
}

export class RefreshAheadCache<T> {
  readonly #options: RefreshAheadOptions<T>;
  #base = new Map<string, T>();
  #inserted = new Map<string, Overlay<T>>();
  #upserted = new Map<string, Overlay<T>>();
  /** Keys hidden until a refresh started after they were forgotten: the source deleted them. */
  #forgotten = new Map<string, number>();
  #started = 0;
  #epoch = 0;
  #snapshot: Snapshot<T> | undefined;
  #first: Promise<void> | undefined;
  #refreshing: Promise<void> | undefined;
  #timer: { cancel(): void } | undefined;
  /** When the last refresh completed, on the injected clock (diagnostics). */
  lastRefreshAt: number | undefined;

  constructor(options: RefreshAheadOptions<T>) {
    this.#options = options;
  }

  /** Resolves once the first load has completed (it starts the periodic refresh on first call). */
  ready(): Promise<void> {
    if (this.#first === undefined) {
      this.#first = this.refresh();
      this.#timer = this.#options.scheduler.every(this.#options.periodMs, () => {
        this.refresh().catch(() => undefined);
      });
    }
    return this.#first;
  }

  /** The current view; `ready()` first. */
  snapshot(): Snapshot<T> {
    this.#snapshot ??= this.#build();
    return this.#snapshot;
  }

  async list(): Promise<Snapshot<T>> {
    await this.ready();
    return this.snapshot();
  }

  /** One refresh now (single-flight: a refresh in progress is shared). The first load's failure is thrown. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refreshOnce().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  insertIfAbsent(item: T): void {
    const key = this.#options.key(item);
    if (this.#base.has(key) || this.#inserted.has(key) || this.#upserted.has(key)) return;
    this.#inserted.set(key, { item, writtenAt: this.#started });
    this.#changed();
  }

  upsert(item: T): void {
    this.#upserted.set(this.#options.key(item), { item, writtenAt: this.#started });
    this.#changed();
  }

  /**
   * Hides the item with `key` at once, as `upsert` shows one: until a refresh that started after this call, which
   * lists what the source then holds (so an item the source still has comes back).
   */
  forget(key: string): void {
    this.#inserted.delete(key);
    this.#upserted.delete(key);
    this.#forgotten.set(key, this.#started);
    this.#changed();
  }

  stop(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  async #refreshOnce(): Promise<void> {
    const number = ++this.#started;
    let items: readonly T[];
    try {
      items = await this.#options.load();
    } catch (error) {
      this.#options.onRefreshError?.(error);
      if (this.lastRefreshAt === undefined) {
        // A failed first load leaves nothing to serve: the next caller tries again.
        this.#first = undefined;
        this.stop();
      }
      throw error;
    }
    this.#base = new Map(items.map((item) => [this.#options.key(item), item]));
    for (const overlay of [this.#inserted, this.#upserted]) {
      for (const [key, entry] of overlay) if (entry.writtenAt < number) overlay.delete(key);
    }
    for (const [key, writtenAt] of this.#forgotten) if (writtenAt < number) this.#forgotten.delete(key);
    this.lastRefreshAt = this.#options.clock.now();
    this.#changed();
  }

  #changed(): void {
    this.#epoch++;
    this.#snapshot = undefined;
  }

  #build(): Snapshot<T> {
    const view = new Map(this.#base);
    for (const [key, entry] of this.#inserted) if (!view.has(key)) view.set(key, entry.item);
    for (const [key, entry] of this.#upserted) view.set(key, entry.item);
    for (const key of this.#forgotten.keys()) view.delete(key);
    return { epoch: this.#epoch, items: Object.freeze([...view.values()].sort(this.#options.compare)) };
  }
}

/**
 * Group commit: the writes asked for within one turn of the event loop run together in one transaction, one
 * fsync, on the next turn; each in a savepoint of its own, so one that fails rolls back alone and rejects alone.
 * A write is acknowledged only once its group is committed and on disk, exactly as before (the sync itself runs
 * off the event loop, ADR 0031). A writer awaiting its writes one
 * after another (the server monitor's poll) now lets the event loop run between them instead of holding it for
 * the whole loop (ADR 0028).
 */
import type { Db } from './db.ts';

interface Pending {
  readonly fn: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** At most this many writes in one transaction, so one group never holds the event loop for long (ADR 0028). */
const MAX_GROUP = 16;

export class GroupCommit {
  readonly #db: Db;
  readonly #durable: () => Promise<void>;
  #pending: Pending[] = [];
  #scheduled: NodeJS.Immediate | undefined;

  /** `durable` resolves once what was committed before it was asked is on disk (durability.ts). */
  constructor(db: Db, durable: () => Promise<void>) {
    this.#db = db;
    this.#durable = durable;
  }

  /**
   * Runs `fn` in the next group; resolves once that has committed. `fn` must do its writing inside `db.write` (as
   * every Writer method does), whose savepoint rolls a failed write back alone.
   */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  /** Commits what is pending now (close calls it so nothing asked for is dropped). */
  flush(): void {
    while (this.#pending.length > 0) this.#commitGroup();
  }

  /** The next group on the next turn; a group at a time, so the loop turns between groups. */
  #schedule(): void {
    if (this.#scheduled !== undefined || this.#pending.length === 0) return;
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      this.#commitGroup();
      this.#schedule();
    });
  }

  #commitGroup(): void {
    const group = this.#pending.splice(0, MAX_GROUP);
    const outcomes: (() => void)[] = [];
    try {
      this.#db.write(() => {
        for (const pending of group) {
          try {
            // The write's own transaction (Writer's db.write), nested in the group's, is its savepoint: wrapping
            // it in a second one cost a SAVEPOINT and a RELEASE more per write for nothing.
            const value = pending.fn();
            outcomes.push(() => {
              pending.resolve(value);
            });
          } catch (error) {
            outcomes.push(() => {
              pending.reject(asError(error));
            });
          }
        }
      });
    } catch (error) {
      // The commit itself failed: nothing of the group is on disk.
      for (const pending of group) pending.reject(asError(error));
      return;
    }
    // Acknowledged only once on disk; the sync runs off the event loop, and the next group may commit meanwhile.
    this.#durable().then(
      () => {
        for (const settle of outcomes) settle();
      },
      (error: unknown) => {
        for (const pending of group) pending.reject(asError(error));
      },
    );
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * Durability off the event loop (ADR 0031): SQLite commits to the write-ahead log without syncing it
 * (`synchronous = NORMAL`), and this syncs the log on libuv's thread pool. A commit counts as durable once an
 * fdatasync that began after it has returned; only then are its writes acknowledged and its changes delivered to
 * watches, exactly as when SQLite synced inside the commit (ADR 0003), but without holding the event loop for the
 * disk. Commits made while a sync runs share the next one.
 */
import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

export class Durability {
  readonly #walPath: string | undefined;
  /** The resourceVersion committed when a sync begins: durable, with everything before it, once the sync returns. */
  readonly #committedRv: () => number;
  readonly #onDurable: (rv: number) => void;
  #fd: number | undefined;
  #waiting: Waiter[] = [];
  #syncing = false;
  #closed = false;

  /** `walPath` undefined: an in-memory database, where there is nothing to sync and a commit is final at once. */
  constructor(walPath: string | undefined, committedRv: () => number, onDurable: (rv: number) => void) {
    this.#walPath = walPath;
    this.#committedRv = committedRv;
    this.#onDurable = onDurable;
  }

  /** Resolves once everything committed before this call is on disk. */
  synced(): Promise<void> {
    if (this.#walPath === undefined) {
      this.#onDurable(this.#committedRv());
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (!this.#syncing) this.#sync();
    });
  }

  /** Syncs now, on this thread, and settles every waiter: for close, so nothing acknowledged is left unsynced. */
  syncNow(): void {
    if (this.#walPath === undefined) return;
    const waiting = this.#waiting.splice(0);
    const rv = this.#committedRv();
    try {
      fdatasyncSync(this.#open());
    } catch (error) {
      for (const waiter of waiting) waiter.reject(asError(error));
      return;
    }
    this.#onDurable(rv);
    for (const waiter of waiting) waiter.resolve();
  }

  /** Closes the log's descriptor, once a sync still running on it has returned. */
  close(): void {
    this.#closed = true;
    if (!this.#syncing) this.#release();
  }

  #release(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #sync(): void {
    const waiting = this.#waiting.splice(0);
    const rv = this.#committedRv();
    let fd: number;
    try {
      fd = this.#open();
    } catch (error) {
      for (const waiter of waiting) waiter.reject(asError(error));
      return;
    }
    this.#syncing = true;
    fdatasync(fd, (error) => {
      this.#syncing = false;
      if (error === null) {
        // After close the store's watches are gone; the waiters still learn their writes are on disk.
        if (!this.#closed) this.#onDurable(rv);
        for (const waiter of waiting) waiter.resolve();
      } else {
        for (const waiter of waiting) waiter.reject(error);
      }
      if (this.#closed) this.#release();
      else if (this.#waiting.length > 0) this.#sync();
    });
  }

  /** The log's descriptor, opened on first use: SQLite makes the file when the connection first writes. */
  #open(): number {
    this.#fd ??= openSync(this.#walPath ?? '', 'r');
    return this.#fd;
  }
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

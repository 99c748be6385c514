/**
 * Checkpoints off the event loop (docs/adr/0053-cpu-per-server.md). In WAL mode SQLite copies the log back into
 * the database file from inside whichever commit crosses `wal_autocheckpoint` pages: a few MB copied and two
 * fsyncs, on the event loop, every thousand pages (at 1,000 servers a wave, some thirty times). Here a worker
 * thread with its own connection runs PASSIVE checkpoints instead, at most one at a time and at most one per
 * `periodMs` while commits arrive; a PASSIVE checkpoint never waits for readers or writers, so this process's
 * commits go on meanwhile. The connection's own autocheckpoint stays, at a high mark, as the bound should the
 * worker fall behind (and for every other process that opens the file, which checkpoints as SQLite does).
 *
 * The worker starts only after `startAfterCommits` commits, so a short command that writes once or twice never
 * pays for a thread.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** The autocheckpoint mark of a connection that has a checkpointer: ten times SQLite's default. */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;

interface CheckpointerOptions {
  readonly path: string;
  readonly now: () => number;
  /** At most one checkpoint per this many ms while commits arrive. */
  readonly periodMs?: number;
  readonly startAfterCommits?: number;
  readonly onError: (error: unknown) => void;
  /** Told after each checkpoint the worker ran. */
  readonly onCheckpointed?: () => void;
}

// CommonJS, evaluated in the worker: the driver is required by its resolved path, so it loads as the store's does.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: String(error && error.message || error) });
  }
});
`;

export class Checkpointer {
  readonly #options: CheckpointerOptions;
  readonly #periodMs: number;
  #commits = 0;
  #worker: Worker | undefined;
  #running = false;
  #last = Number.NEGATIVE_INFINITY;
  #closed = false;

  constructor(options: CheckpointerOptions) {
    this.#options = options;
    this.#periodMs = options.periodMs ?? 250;
  }

  /** Told after commits are on disk: checkpoints if none runs and none ran within the period. */
  committed(): void {
    if (this.#closed || this.#running) return;
    if (++this.#commits < (this.#options.startAfterCommits ?? 64)) return;
    const now = this.#options.now();
    if (now - this.#last < this.#periodMs) return;
    this.#last = now;
    this.#running = true;
    this.#start().postMessage('checkpoint');
  }

  /**
   * Stops the worker once a checkpoint in progress has ended (undefined when none was started); the connection's
   * close checkpoints what is left.
   */
  close(): Promise<void> | undefined {
    this.#closed = true;
    const worker = this.#worker;
    if (worker === undefined) return undefined;
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        resolve();
      });
    });
    worker.ref(); // the process waits for the thread's end, as the caller does
    worker.postMessage('close');
    return exited;
  }

  #start(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.#options.path, driver } });
    worker.unref();
    worker.on('message', (reply: { ok: boolean; message?: string }) => {
      this.#running = false;
      if (reply.ok) this.#options.onCheckpointed?.();
      else this.#options.onError(new Error(`checkpoint: ${reply.message ?? 'failed'}`));
    });
    worker.on('error', (error) => {
      this.#running = false;
      this.#worker = undefined;
      this.#options.onError(error);
    });
    this.#worker = worker;
    return worker;
  }
}

/**
 * Watches over the change log. One hub per open store reads every committed change in resourceVersion order and
 * hands it to its listeners: after each local write at once, and for other processes' writes when SQLite's
 * `PRAGMA data_version` moves (polled every `pollMs`).
 */
import type { WatchEvent, WatchOptions } from '../client.ts';
import { KubeGoneError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { apiVersionOf } from '../resource-type.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../selector.ts';
import { isDeepStrictEqual } from 'node:util';
import type { ChangeType, Db, LoggedChange } from './db.ts';
import type { Kind } from './kinds.ts';

export interface Change {
  readonly rv: number;
  readonly resource: string;
  readonly type: ChangeType;
  readonly object: KubeObject;
  /** The object before the change (modifications only); parsed on first use, since most listeners never look. */
  readonly old: KubeObject | undefined;
  readonly hasOld: boolean;
  /** Whether the owner references differ from the old object's (always for an addition). */
  readonly refsChanged: boolean;
}

/** A change from its JSON: the object parsed once for every listener, the old one only if someone asks. */
class LoggedObjects implements Change {
  readonly object: KubeObject;
  readonly hasOld: boolean;
  #oldJson: string | null;
  #old: KubeObject | undefined;
  #refsChanged: boolean | undefined;

  constructor(
    readonly rv: number,
    readonly resource: string,
    readonly type: ChangeType,
    json: string,
    oldJson: string | null,
    refsChanged?: boolean,
  ) {
    this.object = JSON.parse(json) as KubeObject;
    this.hasOld = oldJson !== null;
    this.#oldJson = oldJson;
    this.#refsChanged = refsChanged;
  }

  get old(): KubeObject | undefined {
    if (this.#oldJson !== null) {
      this.#old = JSON.parse(this.#oldJson) as KubeObject;
      this.#oldJson = null;
    }
    return this.#old;
  }

  get refsChanged(): boolean {
    this.#refsChanged ??=
      this.type === 'ADDED' ||
      !isDeepStrictEqual(this.old?.metadata.ownerReferences, this.object.metadata.ownerReferences);
    return this.#refsChanged;
  }
}

const fromLog = (c: LoggedChange): Change =>
  new LoggedObjects(c.rv, c.resource, c.type, c.json, c.oldJson, c.refsChanged);

const fromRow = (r: ReturnType<Db['changesAfter']>[number]): Change =>
  new LoggedObjects(r.rv, r.resource, r.type, r.body, r.old_body);

type Listener = { change(c: Change): void; gone(): void };

export class Hub {
  #last: number;
  #dataVersion: number;
  readonly #listeners = new Set<Listener>();
  readonly #timer: NodeJS.Timeout;

  /**
   * `foreignCommit` is told when another process has committed: it has the log synced and then pumps, so a watch
   * here never delivers a change that is not on disk yet (ADR 0031).
   */
  constructor(
    private readonly db: Db,
    pollMs: number,
    foreignCommit: () => void,
  ) {
    this.#last = db.currentRv();
    this.#dataVersion = db.dataVersion();
    this.#timer = setInterval(() => {
      const v = this.db.dataVersion();
      if (v !== this.#dataVersion) {
        this.#dataVersion = v;
        foreignCommit();
      }
    }, pollMs);
    this.#timer.unref();
  }

  get last(): number {
    return this.#last;
  }

  add(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Delivers every change since the last pump up to `durableRv`: what is committed and on disk. */
  pump(durableRv: number): void {
    for (;;) {
      if (this.#last >= durableRv) return;
      // This process's own commits are in memory; another process's are read from the log.
      const local = this.db.takeLogged(this.#last + 1);
      if (local !== undefined) {
        this.#last = local.rv;
        this.#deliver(fromLog(local));
        continue;
      }
      if (this.db.compactedRv() > this.#last) {
        // This process fell behind the change log's window: its watchers must relist.
        for (const l of [...this.#listeners]) l.gone();
        this.#last = this.db.currentRv();
        this.db.forgetLogged(this.#last);
        return;
      }
      const rows = this.db.changesAfter(this.#last, Math.min(500, durableRv - this.#last));
      if (rows.length === 0) return;
      for (const row of rows) {
        if (row.rv > durableRv) return;
        this.#last = row.rv;
        this.db.forgetLogged(row.rv);
        this.#deliver(fromRow(row));
      }
    }
  }

  #deliver(change: Change): void {
    for (const l of [...this.#listeners]) l.change(change);
  }

  stop(): void {
    clearInterval(this.#timer);
    for (const l of [...this.#listeners]) l.gone();
    this.#listeners.clear();
  }
}

/** One watch: its filter, its queue, and the async iterator a caller consumes. */
export class Subscription<T extends KubeObject> implements AsyncIterable<WatchEvent<T>> {
  readonly #queue: WatchEvent<T>[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #error: Error | undefined;
  #cursor: number;
  #sent: number;
  readonly #cleanups: (() => void)[] = [];
  readonly #matches: (o: KubeObject) => boolean;
  /** Whether the watch filters by labels or fields. */
  readonly #selective: boolean;

  constructor(
    hub: Hub,
    db: Db,
    private readonly kind: Kind,
    options: WatchOptions,
    bookmarkMs: number,
  ) {
    const labels = parseLabelSelector(options.labelSelector ?? '');
    const fields = parseFieldSelector(options.fieldSelector ?? '');
    const ns = kind.type.namespaced ? options.namespace : undefined;
    this.#selective = labels.length > 0 || fields.length > 0;
    this.#matches = (o) =>
      (ns === undefined || o.metadata.namespace === ns) &&
      matchesLabels(labels, o.metadata.labels) &&
      matchesFields(fields, o);
    const rv = options.resourceVersion;
    this.#cursor = rv === undefined || rv === '' || rv === '0' ? hub.last : Number(rv);
    this.#sent = this.#cursor;
    if (!Number.isInteger(this.#cursor) || this.#cursor < db.compactedRv()) {
      this.#error = new KubeGoneError(`too old resource version: ${rv ?? ''} (${db.compactedRv()})`);
      this.#done = true;
      return;
    }
    // Catch up from the log to where the hub is, then take live changes from the hub.
    for (let after = this.#cursor; after < hub.last;) {
      const rows = db.changesAfter(after, 500).filter((r) => r.rv <= hub.last);
      if (rows.length === 0) break;
      for (const r of rows) {
        after = r.rv;
        if (r.resource !== kind.resource) continue;
        this.#change(fromRow(r));
      }
    }
    this.#cursor = Math.max(this.#cursor, hub.last);
    this.#cleanups.push(
      hub.add({
        change: (c) => {
          this.#change(c);
        },
        gone: () => {
          this.#fail(new KubeGoneError('the watch fell behind the change log; relist'));
        },
      }),
    );
    if (options.allowBookmarks === true) {
      const timer = setInterval(() => {
        this.#bookmark(hub.last);
      }, bookmarkMs);
      timer.unref();
      this.#cleanups.push(() => {
        clearInterval(timer);
      });
    }
    const signal = options.signal;
    if (signal) {
      const onAbort = (): void => {
        this.close();
      };
      if (signal.aborted) this.close();
      else {
        signal.addEventListener('abort', onAbort, { once: true });
        this.#cleanups.push(() => {
          signal.removeEventListener('abort', onAbort);
        });
      }
    }
  }

  #change(c: Change): void {
    if (c.rv <= this.#cursor) return;
    this.#cursor = Math.max(this.#cursor, c.rv);
    if (c.resource !== this.kind.resource) return;
    const now = this.#matches(c.object);
    // Without a label or field selector the old state matched as the new one does (a namespace never changes).
    const before = (): boolean => c.hasOld && (this.#selective ? this.#matches(c.old as KubeObject) : now);
    let type: WatchEvent<T>['type'] | undefined;
    if (c.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (c.type === 'DELETED') type = now ? 'DELETED' : undefined;
    else if (now) type = !c.hasOld || before() ? 'MODIFIED' : 'ADDED';
    else if (before()) type = 'DELETED';
    if (type === undefined || type === 'BOOKMARK') return;
    this.#sent = c.rv;
    this.#push({ type, object: c.object as T });
  }

  #bookmark(rv: number): void {
    if (rv <= this.#sent) return;
    this.#sent = rv;
    const object: KubeObject = {
      apiVersion: apiVersionOf(this.kind.type),
      kind: this.kind.type.kind,
      metadata: { name: '', resourceVersion: String(rv) },
    };
    this.#push({ type: 'BOOKMARK', object });
  }

  #push(event: WatchEvent<T>): void {
    if (this.#done) return;
    this.#queue.push(event);
    this.#wake?.();
  }

  #fail(error: Error): void {
    if (this.#done) return;
    this.#error = error;
    this.close();
  }

  close(): void {
    this.#done = true;
    for (const c of this.#cleanups.splice(0)) c();
    this.#wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return {
      next: async (): Promise<IteratorResult<WatchEvent<T>>> => {
        for (;;) {
          const event = this.#queue.shift();
          if (event) return { value: event, done: false };
          if (this.#done) {
            const error = this.#error;
            this.#error = undefined;
            if (error) throw error;
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (this.#wake = resolve));
          this.#wake = undefined;
        }
      },
      return: (): Promise<IteratorResult<WatchEvent<T>>> => {
        this.close();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

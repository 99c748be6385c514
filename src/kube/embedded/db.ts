/**
 * The SQLite layer: objects, the change log watches read, owner references for the garbage collector, and one global
 * resourceVersion counter. Every write runs in a BEGIN IMMEDIATE transaction, so writers in several processes are
 * serialised and the change log commits in resourceVersion order.
 *
 * Durability: WAL with synchronous=NORMAL, so a commit writes the log without syncing it; durability.ts syncs the
 * log off the event loop and only then is a write acknowledged or its change delivered (ADR 0031). An acknowledged
 * write survives a power cut, as etcd's do; a commit not yet synced survives a kill -9 (it is in the page cache).
 *
 * Secrets at rest (ADR 0025): the codec seals the bodies of the resources it is given; rows are decoded here, so
 * nothing above this file sees ciphertext. The change log keeps a change only for the watch window (and at most
 * `changeRetention` of them), so a deleted object's data leaves it too; secure_delete zeroes what SQLite frees.
 */
import { isDeepStrictEqual } from 'node:util';
import Database from 'better-sqlite3';
import type { KubeObject } from '../object.ts';
import { BodyCodec } from './encryption.ts';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Row {
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
  readonly body: string;
}

interface ChangeRow {
  readonly rv: number;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: ChangeType;
  readonly body: string;
  readonly old_body: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('rv', 0), ('compacted', 0);
CREATE TABLE IF NOT EXISTS objects (
  resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  uid TEXT NOT NULL, rv INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (resource, namespace, name)) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS objects_uid ON objects (uid);
CREATE TABLE IF NOT EXISTS owner_refs (
  owner_uid TEXT NOT NULL, dependent_uid TEXT NOT NULL,
  PRIMARY KEY (owner_uid, dependent_uid)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS owner_refs_dependent ON owner_refs (dependent_uid);
CREATE TABLE IF NOT EXISTS changes (
  rv INTEGER PRIMARY KEY, resource TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  type TEXT NOT NULL, body TEXT NOT NULL, old_body TEXT, at INTEGER);
`;

/**
 * A change this connection logged, held in memory from its commit until the hub delivers it, so the hub need not
 * read back and decode what was just written. The JSON is the plain (unsealed) text.
 */
export interface LoggedChange {
  readonly rv: number;
  readonly resource: string;
  readonly type: ChangeType;
  readonly json: string;
  readonly oldJson: string | null;
  /** Whether the owner references differ from the old object's (always for an addition or a deletion). */
  readonly refsChanged: boolean;
}

interface DbOptions {
  /** How many change-log entries watches can resume from; older resourceVersions answer Gone. */
  readonly changeRetention: number;
  /** Seals and opens stored bodies (default: stores them as they are). */
  readonly codec?: BodyCodec;
  /** The time a change is logged at (ms), for the watch window. */
  readonly now?: () => number;
}

export class Db {
  readonly sqlite: Database.Database;
  readonly #retention: number;
  readonly #codec: BodyCodec;
  readonly #now: () => number;
  readonly #stmts;
  /** Changes logged in the open transaction; cut back when it, or a savepoint in it, rolls back. */
  #txLog: LoggedChange[] = [];
  /** Committed changes of this connection the hub has not delivered yet, in resourceVersion order. */
  readonly #committed = new Map<number, LoggedChange>();
  /** Resources the open transaction wrote. */
  readonly #touched = new Set<string>();
  /**
   * The open write transaction's resourceVersion counter and compaction mark, read once when it begins and the
   * counter written back once before it commits (not a statement per write). A savepoint rolled back takes back
   * the resourceVersions it used, as the rolled-back UPDATE of the counter did.
   */
  #tx: { rv: number; readonly startRv: number; compacted: number } | undefined;
  /** The JSON text an object was parsed from (parse), so logging it as a change's old state costs no stringify. */
  readonly #texts = new WeakMap<KubeObject, string>();

  constructor(path: string, options: DbOptions) {
    this.sqlite = new Database(path);
    this.sqlite.pragma('journal_mode = WAL');
    // The commit writes the log; durability.ts syncs it off the event loop before anything is acknowledged.
    this.sqlite.pragma('synchronous = NORMAL');
    this.sqlite.pragma('busy_timeout = 10000');
    // What a delete or an update frees is overwritten with zeros, not left readable in free pages.
    this.sqlite.pragma('secure_delete = ON');
    this.sqlite.exec(SCHEMA);
    // A store written before the watch window had no time on its changes: they count as old.
    const columns = this.sqlite.pragma('table_info(changes)') as { name: string }[];
    if (!columns.some((c) => c.name === 'at')) this.sqlite.exec('ALTER TABLE changes ADD COLUMN at INTEGER');
    this.#retention = options.changeRetention;
    this.#codec = options.codec ?? new BodyCodec(undefined);
    this.#now = options.now ?? Date.now;
    const s = this.sqlite;
    this.#stmts = {
      meta: s.prepare<[string], { value: number }>(`SELECT value FROM meta WHERE key = ?`),
      setMeta: s.prepare<[number, string]>(`UPDATE meta SET value = ? WHERE key = ?`),
      get: s.prepare<[string, string, string], Row>(
        `SELECT * FROM objects WHERE resource = ? AND namespace = ? AND name = ?`,
      ),
      byUid: s.prepare<[string], Row>(`SELECT * FROM objects WHERE uid = ?`),
      listAll: s.prepare<[string], Row>(`SELECT * FROM objects WHERE resource = ? ORDER BY namespace, name`),
      listNs: s.prepare<[string, string], Row>(
        `SELECT * FROM objects WHERE resource = ? AND namespace = ? ORDER BY name`,
      ),
      inNamespace: s.prepare<[string], Row>(`SELECT * FROM objects WHERE namespace = ?`),
      put: s.prepare<[string, string, string, string, number, string]>(
        `INSERT OR REPLACE INTO objects (resource, namespace, name, uid, rv, body) VALUES (?, ?, ?, ?, ?, ?)`,
      ),
      // A write that keeps the object's uid rewrites its row in place: no delete and re-insert of the uid index.
      rewrite: s.prepare<[number, string, string, string, string]>(
        `UPDATE objects SET rv = ?, body = ? WHERE resource = ? AND namespace = ? AND name = ?`,
      ),
      del: s.prepare<[string, string, string]>(`DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?`),
      change: s.prepare<[number, string, string, string, string, string, string | null, number]>(
        `INSERT INTO changes (rv, resource, namespace, name, type, body, old_body, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      // The last resourceVersion up to which every change is older than the cutoff (a change without a time is).
      lastExpired: s.prepare<[{ compacted: number; cutoff: number }], { rv: number | null }>(
        `SELECT COALESCE((SELECT MIN(rv) - 1 FROM changes WHERE rv > @compacted AND at > @cutoff),
                         (SELECT MAX(rv) FROM changes WHERE rv > @compacted)) AS rv`,
      ),
      deleting: s.prepare<[], Row>(
        `SELECT * FROM objects WHERE body LIKE '%"deletionTimestamp"%' OR body NOT LIKE '{%'`,
      ),
      objectsOf: s.prepare<[string], Row>(`SELECT * FROM objects WHERE resource = ?`),
      changesOf: s.prepare<[string], ChangeRow>(`SELECT * FROM changes WHERE resource = ?`),
      reseal: s.prepare<[string, string, string, string]>(
        `UPDATE objects SET body = ? WHERE resource = ? AND namespace = ? AND name = ?`,
      ),
      resealChange: s.prepare<[string, string | null, number]>(
        `UPDATE changes SET body = ?, old_body = ? WHERE rv = ?`,
      ),
      changesAfter: s.prepare<[number, number], ChangeRow>(`SELECT * FROM changes WHERE rv > ? ORDER BY rv LIMIT ?`),
      compact: s.prepare<[number]>(`DELETE FROM changes WHERE rv <= ?`),
      refsDel: s.prepare<[string]>(`DELETE FROM owner_refs WHERE dependent_uid = ?`),
      refAdd: s.prepare<[string, string]>(`INSERT OR IGNORE INTO owner_refs (owner_uid, dependent_uid) VALUES (?, ?)`),
      dependents: s.prepare<[string], { dependent_uid: string }>(
        `SELECT dependent_uid FROM owner_refs WHERE owner_uid = ?`,
      ),
      danglingRefs: s.prepare<[], { dependent_uid: string }>(
        `SELECT DISTINCT dependent_uid FROM owner_refs r WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.uid = r.owner_uid)`,
      ),
    };
  }

  /** Called after each outermost write transaction commits: the store delivers the changes to its watches. */
  onCommit: (() => void) | undefined;

  /** Runs `fn` in a write transaction that takes the database lock up front. */
  write<T>(fn: () => T): T {
    const outermost = !this.sqlite.inTransaction;
    const mark = this.#txLog.length;
    const counters = this.#tx === undefined ? undefined : { rv: this.#tx.rv, compacted: this.#tx.compacted };
    let result: T;
    try {
      result = this.sqlite.transaction(outermost ? () => this.#counted(fn) : fn).immediate();
    } catch (error) {
      // Rolled back: the transaction, or this write's savepoint in it, logged nothing and used no resourceVersion.
      this.#txLog.length = mark;
      if (this.#tx !== undefined && counters !== undefined) Object.assign(this.#tx, counters);
      if (outermost) this.#touched.clear();
      throw error;
    } finally {
      if (outermost) this.#tx = undefined;
    }
    if (outermost) {
      for (const change of this.#txLog) this.#committed.set(change.rv, change);
      this.#txLog = [];
      this.#touched.clear();
      this.onCommit?.();
    }
    return result;
  }

  /** `fn` inside the outermost transaction, with the counter read at its start and written back at its end. */
  #counted<T>(fn: () => T): T {
    const rv = this.#stmts.meta.get('rv')?.value;
    if (rv === undefined) throw new Error('store metadata is missing its resourceVersion counter');
    this.#tx = { rv, startRv: rv, compacted: this.#stmts.meta.get('compacted')?.value ?? 0 };
    const result = fn();
    if (this.#tx.rv !== this.#tx.startRv) this.#stmts.setMeta.run(this.#tx.rv, 'rv');
    return result;
  }

  /** Whether the open write transaction has written `resource` (what it read of it may yet roll back). */
  writing(resource: string): boolean {
    return this.#touched.has(resource);
  }

  /** `row`'s object; its text is kept, so storing it as a change's old state does not stringify it again. */
  parse(row: { readonly body: string }): KubeObject {
    const object = JSON.parse(row.body) as KubeObject;
    this.#texts.set(object, row.body);
    return object;
  }

  /** The committed change at `rv` if this connection logged it and it was not yet taken; forgets it. */
  takeLogged(rv: number): LoggedChange | undefined {
    const change = this.#committed.get(rv);
    if (change !== undefined) this.#committed.delete(rv);
    return change;
  }

  /** Forgets the logged changes up to `rv`: the hub delivered them from the log instead. */
  forgetLogged(rv: number): void {
    for (const key of this.#committed.keys()) {
      if (key > rv) return;
      this.#committed.delete(key);
    }
  }

  /** Runs `fn` against one consistent snapshot. */
  read<T>(fn: () => T): T {
    return this.sqlite.transaction(fn).deferred();
  }

  currentRv(): number {
    return this.#tx?.rv ?? this.#stmts.meta.get('rv')?.value ?? 0;
  }

  compactedRv(): number {
    return this.#tx?.compacted ?? this.#stmts.meta.get('compacted')?.value ?? 0;
  }

  /** Bumped by SQLite whenever another connection commits: the cheap poll that wakes cross-process watches. */
  dataVersion(): number {
    return this.sqlite.pragma('data_version', { simple: true }) as number;
  }

  get(resource: string, namespace: string, name: string): Row | undefined {
    return this.#open(this.#stmts.get.get(resource, namespace, name));
  }

  byUid(uid: string): Row | undefined {
    return this.#open(this.#stmts.byUid.get(uid));
  }

  list(resource: string, namespace: string | undefined): Row[] {
    const rows =
      namespace === undefined ? this.#stmts.listAll.all(resource) : this.#stmts.listNs.all(resource, namespace);
    return rows.map((r) => this.#open(r));
  }

  inNamespace(namespace: string): Row[] {
    return this.#stmts.inNamespace.all(namespace).map((r) => this.#open(r));
  }

  /** Objects being deleted (a sealed body is opened to see). */
  deleting(): Row[] {
    return this.#stmts.deleting
      .all()
      .map((r) => this.#open(r))
      .filter((r) => r.body.includes('"deletionTimestamp"'));
  }

  #open<R extends Row | undefined>(row: R): R {
    if (row === undefined || row.body.startsWith('{')) return row;
    return { ...row, body: this.#codec.decode(row, row.body) };
  }

  #openChange(row: ChangeRow): ChangeRow {
    return {
      ...row,
      body: this.#codec.decode(row, row.body),
      old_body: row.old_body === null ? null : this.#codec.decode(row, row.old_body),
    };
  }

  /**
   * Rewrites every stored body the codec would now write differently: plain rows of sealed resources, rows sealed
   * with a key that is no longer the first. In place, under the same resourceVersions: only the bytes at rest change.
   * Returns how many rows it rewrote.
   */
  reseal(): number {
    let rewritten = 0;
    this.write(() => {
      for (const resource of this.#codec.sealed) {
        for (const row of this.#stmts.objectsOf.all(resource)) {
          if (!this.#codec.stale(resource, row.body)) continue;
          const json = this.#codec.decode(row, row.body);
          this.#stmts.reseal.run(this.#codec.encode(row, json), row.resource, row.namespace, row.name);
          rewritten++;
        }
        for (const raw of this.#stmts.changesOf.all(resource)) {
          if (
            !this.#codec.stale(resource, raw.body) &&
            (raw.old_body === null || !this.#codec.stale(resource, raw.old_body))
          )
            continue;
          const row = this.#openChange(raw);
          const old = row.old_body === null ? null : this.#codec.encode(row, row.old_body);
          this.#stmts.resealChange.run(this.#codec.encode(row, row.body), old, row.rv);
          rewritten++;
        }
      }
    });
    // Rebuild the file, so no page keeps what was there before, then empty the WAL that holds the old pages. Once
    // per migration or rotation; another process holding the file open makes this best effort.
    if (rewritten > 0) {
      try {
        this.sqlite.exec('VACUUM');
      } catch {
        // Busy: secure_delete has zeroed what the rewrite freed; the rest goes at the next reseal.
      }
      this.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    }
    return rewritten;
  }

  dependents(ownerUid: string): string[] {
    return this.#stmts.dependents.all(ownerUid).map((r) => r.dependent_uid);
  }

  danglingDependents(): string[] {
    return this.#stmts.danglingRefs.all().map((r) => r.dependent_uid);
  }

  changesAfter(rv: number, limit: number): ChangeRow[] {
    return this.#stmts.changesAfter.all(rv, limit).map((r) => this.#openChange(r));
  }

  /** Stores `object` under a fresh resourceVersion and logs the change; returns the stored object. */
  put(resource: string, object: KubeObject, type: 'ADDED' | 'MODIFIED', old: KubeObject | undefined): KubeObject {
    const rv = this.#nextRv();
    const stored: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    const ns = stored.metadata.namespace ?? '';
    const uid = stored.metadata.uid ?? '';
    const at = { resource, namespace: ns, name: stored.metadata.name };
    const json = JSON.stringify(stored);
    const oldJson = old === undefined ? null : (this.#texts.get(old) ?? JSON.stringify(old));
    const body = this.#codec.encode(at, json);
    const oldBody = oldJson === null ? null : this.#codec.encode(at, oldJson);
    if (old !== undefined && old.metadata.uid === uid)
      this.#stmts.rewrite.run(rv, body, resource, ns, stored.metadata.name);
    else this.#stmts.put.run(resource, ns, stored.metadata.name, uid, rv, body);
    this.#stmts.change.run(rv, resource, ns, stored.metadata.name, type, body, oldBody, this.#now());
    const refsChanged = old === undefined || old.metadata.uid !== uid || refsDiffer(old, stored);
    this.#logged(rv, resource, type, json, oldJson, refsChanged);
    // A write that keeps the owner references (a status write) leaves their rows as they are.
    if (refsChanged) {
      this.#stmts.refsDel.run(uid);
      for (const ref of stored.metadata.ownerReferences ?? []) this.#stmts.refAdd.run(ref.uid, uid);
    }
    this.#maybeCompact(rv);
    return stored;
  }

  /** Removes the object; the DELETED event carries its last state under the deletion's resourceVersion. */
  remove(resource: string, object: KubeObject): KubeObject {
    const rv = this.#nextRv();
    const gone: KubeObject = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } };
    const ns = gone.metadata.namespace ?? '';
    this.#stmts.del.run(resource, ns, gone.metadata.name);
    const json = JSON.stringify(gone);
    const body = this.#codec.encode({ resource, namespace: ns, name: gone.metadata.name }, json);
    this.#stmts.change.run(rv, resource, ns, gone.metadata.name, 'DELETED', body, null, this.#now());
    this.#logged(rv, resource, 'DELETED', json, null, gone.metadata.ownerReferences !== undefined);
    this.#stmts.refsDel.run(gone.metadata.uid ?? '');
    this.#maybeCompact(rv);
    return gone;
  }

  /** Forgets change-log history older than the last `keep` entries. */
  compact(keep: number): void {
    this.write(() => {
      const upTo = Math.max(0, this.currentRv() - keep);
      if (upTo <= this.compactedRv()) return;
      this.#setCompacted(upTo);
    });
  }

  /**
   * Forgets changes logged `windowMs` or longer ago, as kube-apiserver compacts etcd: a watch from before them gets
   * 410 Gone and relists, and a deleted object's last state leaves the log. Returns the compacted resourceVersion.
   */
  compactOlderThan(windowMs: number): number {
    return this.write(() => {
      const compacted = this.compactedRv();
      const upTo = this.#stmts.lastExpired.get({ compacted, cutoff: this.#now() - windowMs })?.rv ?? null;
      if (upTo === null || upTo <= compacted) return compacted;
      this.#setCompacted(upTo);
      return upTo;
    });
  }

  #logged(
    rv: number,
    resource: string,
    type: ChangeType,
    json: string,
    oldJson: string | null,
    refsChanged: boolean,
  ): void {
    this.#touched.add(resource);
    this.#txLog.push({ rv, resource, type, json, oldJson, refsChanged });
  }

  #nextRv(): number {
    if (this.#tx === undefined) throw new Error('a write outside a write transaction');
    return ++this.#tx.rv;
  }

  #setCompacted(upTo: number): void {
    this.#stmts.compact.run(upTo);
    this.#stmts.setMeta.run(upTo, 'compacted');
    if (this.#tx !== undefined) this.#tx.compacted = upTo;
  }

  #maybeCompact(rv: number): void {
    // Trimming in batches keeps the per-write cost flat.
    if (rv - this.compactedRv() < this.#retention + 1024) return;
    this.#setCompacted(rv - this.#retention);
  }

  close(): void {
    this.sqlite.close();
  }
}

const refsDiffer = (old: KubeObject, next: KubeObject): boolean =>
  !isDeepStrictEqual(old.metadata.ownerReferences, next.metadata.ownerReferences);

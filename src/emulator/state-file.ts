/**
 * A persistent emulator's cloud on disk: one SQLite file (better-sqlite3) with a row per service — its records,
 * serialized — one for the timeline, and the port it last listened on. The emulator writes the rows that changed
 * after every request and before the answer goes out, in one transaction, WAL with synchronous=FULL (fsynced
 * before the commit returns), so a kill -9 or a power cut loses nothing the cloud acknowledged.
 */
import Database from 'better-sqlite3';
import { ownerOnlySqlite } from '../util/owner-only.ts';

/** Bumped when a service's records change shape: an older file is refused rather than misread. */
export const STATE_FORMAT = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS parts (name TEXT PRIMARY KEY, body BLOB NOT NULL) WITHOUT ROWID;
`;

/**
 * Seals each part at rest (the embedded store's AES-GCM, docs/adr/0025; `up` passes it): the records hold the
 * region's and KeystoneUsers' passwords. Injected, so the emulator knows no keys.
 */
export interface PartCodec {
  seal(name: string, body: Buffer): Buffer;
  open(name: string, stored: Buffer): Buffer;
  /** Whether a stored part is sealed as `seal` writes it now (plain, or under an older key, is not). */
  current(stored: Buffer): boolean;
}

export interface StoredCloud {
  /** Serialized records by part: each service's name, and `timeline`. */
  readonly parts: ReadonlyMap<string, Buffer>;
  readonly port: number | undefined;
}

export class StateFile {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #put: Database.Statement<[string, Buffer]>;
  readonly #setMeta: Database.Statement<[string, string]>;

  readonly #codec: PartCodec | undefined;

  constructor(path: string, codec?: PartCodec) {
    this.path = path;
    this.#codec = codec;
    ownerOnlySqlite(path);
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.exec(SCHEMA);
    this.#put = this.#db.prepare(
      'INSERT INTO parts (name, body) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET body = excluded.body',
    );
    this.#setMeta = this.#db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
  }

  /** The cloud stored here, or undefined for a new file; throws for a file another format wrote. */
  read(): StoredCloud | undefined {
    const meta = new Map(
      (this.#db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((row) => [
        row.key,
        row.value,
      ]),
    );
    const format = meta.get('format');
    if (format === undefined) return undefined;
    if (Number(format) !== STATE_FORMAT) {
      throw new Error(
        `${this.path} holds an emulator cloud in format ${format}, this emulator reads format ${String(STATE_FORMAT)}: ` +
          'remove the file to start a new cloud',
      );
    }
    const rows = this.#db.prepare('SELECT name, body FROM parts').all() as { name: string; body: Buffer }[];
    const codec = this.#codec;
    const parts = new Map(
      rows.map((row) => [row.name, codec === undefined ? row.body : codec.open(row.name, row.body)]),
    );
    // A part written plain (before encryption) or under an older key is sealed again now, and the file compacted,
    // so no page keeps the old bytes (as the embedded store re-seals when it opens).
    if (codec !== undefined && rows.some((row) => !codec.current(row.body))) {
      this.write(parts);
      this.#db.exec('VACUUM');
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    }
    const port = meta.get('port');
    return {
      parts,
      port: port === undefined ? undefined : Number(port),
    };
  }

  /** Writes the changed parts (and the format) in one durable transaction. */
  write(changed: ReadonlyMap<string, Buffer>): void {
    this.#db.transaction(() => {
      this.#setMeta.run('format', String(STATE_FORMAT));
      for (const [name, body] of changed) this.#put.run(name, this.#codec?.seal(name, body) ?? body);
    })();
  }

  rememberPort(port: number): void {
    this.#setMeta.run('port', String(port));
  }

  close(): void {
    this.#db.close();
  }
}

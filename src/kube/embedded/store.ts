/**
 * The embedded backend: a Client over one SQLite file (or `:memory:`). Several processes may open the same file;
 * each sees the others' writes in its watches within one poll interval.
 */
import { randomUUID } from 'node:crypto';
import type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  DeleteOptions,
  ListOptions,
  ObjectList,
  Patch,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../client.ts';
import { ownerOnlySqlite } from '../../util/owner-only.ts';
import { KubeBadRequestError, KubeNotFoundError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { builtin, type ResourceType } from '../resource-type.ts';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../selector.ts';
import type { Clock, Random } from '../../util/clock.ts';
import { Db } from './db.ts';
import { BodyCodec, type StoreEncryption } from './encryption.ts';
import { GarbageCollector } from './gc.ts';
import { Checkpointer, FALLBACK_AUTOCHECKPOINT_PAGES } from './checkpoint.ts';
import { Durability } from './durability.ts';
import { GroupCommit } from './group-commit.ts';
import { Kinds, type Kind } from './kinds.ts';
import { Hub, Subscription } from './watch.ts';
import { Writer } from './write.ts';

interface EmbeddedStoreOptions {
  readonly clock: Clock;
  /** How often to look for other processes' writes (PRAGMA data_version). */
  readonly pollIntervalMs?: number;
  /** How often a watch that allows bookmarks gets one when its resourceVersion has moved. */
  readonly bookmarkIntervalMs?: number;
  /** Change-log entries kept for watches to resume from. */
  readonly changeRetention?: number;
  /** Run the garbage collector in this process (off for short-lived CLI commands). */
  readonly garbageCollection?: boolean;
  readonly random?: Random;
  /** Errors from background work (the garbage collector); they are retried on the next change. */
  readonly onError?: (error: unknown) => void;
  /** Seal these resources' bodies at rest with these keys (ADR 0025). */
  readonly encryption?: StoreEncryption | undefined;
  /** How long a change stays in the log for watches to resume from (default 5 minutes, as kube compacts etcd). */
  readonly watchWindowMs?: number;
}

export interface EmbeddedStore extends Client {
  /** Forgets change-log history except the last `keep` entries: watches from older versions get GoneError. */
  compact(keep?: number): void;
  /** Forgets changes older than the watch window (done every minute too); returns the compacted resourceVersion. */
  expireChanges(): number;
  /** The kinds served now: built-ins and every version of every stored CRD. */
  servedKinds(): ReturnType<Kinds['all']>;
  close(): Promise<void>;
}

const DEFAULT_WATCH_WINDOW_MS = 5 * 60_000;
const EXPIRY_PERIOD_MS = 60_000;

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function openEmbeddedStore(path: string, options: EmbeddedStoreOptions): EmbeddedStore {
  // It holds identity passwords, application-credential secrets and SSH keys.
  if (path !== ':memory:') ownerOnlySqlite(path);
  const db = new Db(path, {
    changeRetention: options.changeRetention ?? 10_000,
    codec: new BodyCodec(options.encryption),
    now: () => options.clock.now(),
  });
  // Rows written before encryption was on, or under a key that is no longer first, are sealed anew.
  db.reseal();
  const random = options.random ?? Math.random;
  const kinds = new Kinds(db);
  const writer = new Writer({
    db,
    kinds,
    clock: options.clock,
    newUid: randomUUID,
    nameSuffix: () =>
      Array.from({ length: 5 }, () => SUFFIX_ALPHABET.charAt(Math.floor(random() * SUFFIX_ALPHABET.length))).join(''),
  });
  const onError = options.onError ?? (() => undefined);
  const checkpointer =
    path === ':memory:' ? undefined : new Checkpointer({ path, now: () => options.clock.now(), onError });
  if (checkpointer !== undefined) db.sqlite.pragma(`wal_autocheckpoint = ${String(FALLBACK_AUTOCHECKPOINT_PAGES)}`);
  const durability = new Durability(
    path === ':memory:' ? undefined : `${path}-wal`,
    () => db.currentRv(),
    (rv) => {
      hub.pump(rv);
      checkpointer?.committed();
    },
  );
  const synced = () => {
    durability.synced().catch(onError);
  };
  const hub = new Hub(db, options.pollIntervalMs ?? 100, synced);
  kinds.follow(hub);
  db.onCommit = synced;
  db.write(() => {
    if (db.get('namespaces', '', 'default') === undefined) {
      writer.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    }
  });
  const gc = options.garbageCollection === false ? undefined : new GarbageCollector(db, writer, hub, onError);
  const windowMs = options.watchWindowMs ?? DEFAULT_WATCH_WINDOW_MS;
  const expire = setInterval(() => {
    try {
      db.compactOlderThan(windowMs);
    } catch (error) {
      options.onError?.(error);
    }
  }, EXPIRY_PERIOD_MS).unref();
  return new EmbeddedClient(db, kinds, writer, hub, gc, durability, options.bookmarkIntervalMs ?? 10_000, {
    expire: () => db.compactOlderThan(windowMs),
    stop: () => {
      clearInterval(expire);
      return checkpointer?.close();
    },
  });
}

class EmbeddedClient implements EmbeddedStore {
  #closed = false;
  readonly #group: GroupCommit;

  constructor(
    private readonly db: Db,
    private readonly kinds: Kinds,
    private readonly writer: Writer,
    private readonly hub: Hub,
    private readonly gc: GarbageCollector | undefined,
    private readonly durability: Durability,
    private readonly bookmarkMs: number,
    /** The change log's expiry and the checkpoints: background work that stops (and finishes) before the close. */
    private readonly upkeep: { readonly expire: () => number; readonly stop: () => Promise<void> | undefined },
  ) {
    this.#group = new GroupCommit(db, () => durability.synced());
  }

  #ns(kind: Kind, namespace: string | undefined): string {
    if (!kind.type.namespaced) return '';
    if (namespace === undefined || namespace === '')
      throw new KubeBadRequestError(`${kind.type.kind} is namespaced: a namespace is required`);
    return namespace;
  }

  get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return run(() => {
      const kind = this.kinds.resolve(type);
      const row = this.db.get(kind.resource, this.#ns(kind, namespace), name);
      if (row === undefined) throw new KubeNotFoundError(`${kind.resource} "${name}" not found`);
      return JSON.parse(row.body) as T;
    });
  }

  list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    return run(() => {
      const kind = this.kinds.resolve(type);
      const labels = parseLabelSelector(options.labelSelector ?? '');
      const fields = parseFieldSelector(options.fieldSelector ?? '');
      const ns = kind.type.namespaced && options.namespace ? options.namespace : undefined;
      return this.db.read(() => {
        const items: T[] = [];
        for (const row of this.db.list(kind.resource, ns)) {
          const o = JSON.parse(row.body) as T;
          if (matchesLabels(labels, o.metadata.labels) && matchesFields(fields, o)) items.push(o);
        }
        return { items, resourceVersion: String(this.db.currentRv()) };
      });
    });
  }

  watch<T extends KubeObject>(type: ResourceType<T>, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    const kind = this.kinds.resolve(type);
    return new Subscription<T>(this.hub, this.db, kind, options, this.bookmarkMs);
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#group.write(() => this.writer.create(type, object, options) as T);
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#group.write(() => this.writer.update(type, object, options) as T);
  }

  patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#group.write(() => this.writer.patch(type, namespace, name, patch, options) as T);
  }

  apply<T extends KubeObject>(type: ResourceType<T>, object: ApplyConfiguration, options: ApplyOptions): Promise<T> {
    return this.#group.write(() => this.writer.apply(type, object, options) as T);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void> {
    return this.#group.write(() => {
      this.writer.delete(type, namespace, name, options);
    });
  }

  servedVersions(group: string, plural: string): Promise<string[]> {
    return run(() => this.kinds.servedVersions(group, plural));
  }

  compact(keep = 0): void {
    this.db.compact(keep);
  }

  expireChanges(): number {
    return this.upkeep.expire();
  }

  servedKinds(): ReturnType<Kinds['all']> {
    return this.kinds.all();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#group.flush();
    this.durability.syncNow();
    this.gc?.stop();
    this.hub.stop();
    const finish = () => {
      this.db.close();
      this.durability.close();
    };
    // Synchronous unless a checkpoint thread must end first: a caller that does not await still finds it closed.
    const stopping = this.upkeep.stop();
    if (stopping === undefined) {
      finish();
      return Promise.resolve();
    }
    return stopping.then(finish);
  }
}

/** Runs synchronous store work as a promise, so a thrown KubeError becomes a rejection. */
function run<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The informer-backed cache of one kind on one cluster, with the manager's field indexes: one informer for the whole
 * cluster, or one per namespace when the cluster's registration restricts it to a list of namespaces.
 */
import type { Logger } from 'pino';
import type { Client } from '../kube/client.ts';
import { objectKey, type KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Random } from '../util/clock.ts';
import { Informer, type InformerHandlers } from './informer.ts';
import type { Scheduler } from './scheduler.ts';

/** The values an object is indexed under for one field index (none: not indexed). */
export type IndexFunc = (object: KubeObject) => readonly string[];

export interface CacheListOptions {
  readonly namespace?: string;
  /** An index registered with `Manager.index`, and the value to look up. */
  readonly index?: string;
  readonly value?: string;
}

interface TypeCacheOptions<T extends KubeObject> {
  readonly client: Client;
  readonly type: ResourceType<T>;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  readonly indexers: ReadonlyMap<string, IndexFunc>;
  /** Watch only these namespaces (a registration's `namespaces`); omit for all. */
  readonly namespaces?: readonly string[] | undefined;
  readonly resyncMs?: number;
  readonly random?: Random;
}

export class TypeCache<T extends KubeObject = KubeObject> {
  readonly type: ResourceType<T>;
  /** The namespaces its informers watch; undefined when they watch every one. */
  readonly #namespaces: readonly string[] | undefined;
  readonly #informers: Informer<T>[];
  readonly #indexers: ReadonlyMap<string, IndexFunc>;
  /** index name → value → object keys. */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();

  constructor(options: TypeCacheOptions<T>) {
    this.type = options.type;
    this.#indexers = options.indexers;
    this.#namespaces = options.type.namespaced ? options.namespaces : undefined;
    const scopes: (string | undefined)[] = this.#namespaces === undefined ? [undefined] : [...this.#namespaces];
    this.#informers = scopes.map(
      (namespace) =>
        new Informer({
          client: options.client,
          type: options.type,
          scheduler: options.scheduler,
          log: options.log,
          namespace,
          ...(options.resyncMs === undefined ? {} : { resyncMs: options.resyncMs }),
          ...(options.random === undefined ? {} : { random: options.random }),
        }),
    );
    // Registered before any controller's handlers, so a mapper that reads an index sees the event's object.
    for (const informer of this.#informers) {
      informer.addHandlers({
        add: (o) => {
          this.#reindex(undefined, o);
        },
        update: (old, o) => {
          this.#reindex(old, o);
        },
        delete: (o) => {
          this.#reindex(o, undefined);
        },
      });
    }
  }

  /** Whether it holds every object of its kind in `namespace` (undefined: in every namespace). */
  covers(namespace: string | undefined): boolean {
    if (this.#namespaces === undefined) return true;
    return namespace !== undefined && this.#namespaces.includes(namespace);
  }

  get hasSynced(): boolean {
    return this.#informers.every((i) => i.hasSynced);
  }

  async synced(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.synced()));
  }

  start(): void {
    for (const informer of this.#informers) informer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#informers.map((i) => i.stop()));
  }

  addHandlers(handlers: InformerHandlers<T>): () => void {
    const removers = this.#informers.map((i) => i.addHandlers(handlers));
    return () => {
      for (const remove of removers) remove();
    };
  }

  get(namespace: string | undefined, name: string): T | undefined {
    for (const informer of this.#informers) {
      const found = informer.get(namespace, name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  list(options: CacheListOptions = {}): T[] {
    let objects: T[];
    if (options.index !== undefined) {
      if (!this.#indexers.has(options.index)) {
        throw new Error(`no index "${options.index}" is registered for ${this.type.kind}`);
      }
      const keys = this.#indexes.get(options.index)?.get(options.value ?? '') ?? new Set<string>();
      objects = [...keys].flatMap((key) => {
        const [namespace, name] = splitKey(key);
        const found = this.get(namespace, name);
        return found === undefined ? [] : [found];
      });
    } else {
      objects = this.#informers.flatMap((i) => i.list());
    }
    return options.namespace === undefined
      ? objects
      : objects.filter((o) => o.metadata.namespace === options.namespace);
  }

  /**
   * How many objects (in `namespace`, if given) each value of the index `index` holds, from the index alone: no
   * object is looked at (a metrics scrape's count of a fleet).
   */
  indexCounts(index: string, namespace?: string): Map<string, number> {
    if (!this.#indexers.has(index)) throw new Error(`no index "${index}" is registered for ${this.type.kind}`);
    const counts = new Map<string, number>();
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    for (const [value, keys] of this.#indexes.get(index) ?? []) {
      let n = 0;
      if (prefix === undefined) n = keys.size;
      else for (const key of keys) if (key.startsWith(prefix)) n++;
      if (n > 0) counts.set(value, n);
    }
    return counts;
  }

  #reindex(old: T | undefined, current: T | undefined): void {
    for (const [name, fn] of this.#indexers) {
      let index = this.#indexes.get(name);
      if (index === undefined) {
        index = new Map();
        this.#indexes.set(name, index);
      }
      if (old !== undefined) {
        const key = objectKey(old.metadata);
        for (const value of fn(old)) {
          const keys = index.get(value);
          keys?.delete(key);
          if (keys?.size === 0) index.delete(value);
        }
      }
      if (current !== undefined) {
        const key = objectKey(current.metadata);
        for (const value of fn(current)) {
          let keys = index.get(value);
          if (keys === undefined) {
            keys = new Set();
            index.set(value, keys);
          }
          keys.add(key);
        }
      }
    }
  }
}

function splitKey(key: string): [string | undefined, string] {
  const slash = key.indexOf('/');
  return slash < 0 ? [undefined, key] : [key.slice(0, slash), key.slice(slash + 1)];
}

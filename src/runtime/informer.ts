/**
 * A backend-neutral informer over the Client interface: list, then watch from the list's resourceVersion; relist
 * when the watch ends, when the server says the version is Gone, and periodically (a full resync that repairs any
 * drift); restart with backoff on error. Handlers are isolated: one that throws is logged and the others still run.
 *
 * (src/kube/informer.ts did not exist when the runtime was written, so the runtime carries its own.)
 */
import type { Logger } from 'pino';
import type { Client } from '../kube/client.ts';
import { KubeGoneError } from '../kube/errors.ts';
import { objectKey, type KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Random } from '../util/clock.ts';
import { delay, type Scheduler } from './scheduler.ts';
import { backoffDelay, type BackoffOptions } from './workqueue.ts';

export interface InformerHandlers<T extends KubeObject> {
  add(object: T): void;
  update(old: T, object: T): void;
  delete(object: T): void;
}

interface InformerOptions<T extends KubeObject> {
  readonly client: Client;
  readonly type: ResourceType<T>;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  /** Restrict to one namespace; omit for all. */
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  /** Full relist period; each period is shortened by up to 10 % at random. Default 10 minutes. */
  readonly resyncMs?: number;
  readonly backoff?: Partial<BackoffOptions>;
  readonly random?: Random;
}

const defaultInformerBackoff: BackoffOptions = { baseMs: 1_000, capMs: 60_000, jitter: 0.2 };

export class Informer<T extends KubeObject> {
  readonly #options: InformerOptions<T>;
  readonly #backoff: BackoffOptions;
  readonly #random: Random;
  readonly #store = new Map<string, T>();
  readonly #handlers = new Set<InformerHandlers<T>>();
  readonly #stop = new AbortController();
  readonly #syncWaiters: (() => void)[] = [];
  #synced = false;
  #running: Promise<void> | undefined;

  constructor(options: InformerOptions<T>) {
    this.#options = options;
    this.#backoff = { ...defaultInformerBackoff, ...options.backoff };
    this.#random = options.random ?? Math.random;
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the first list has been stored (never, if the informer stops first). */
  synced(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.#store.get(namespace === undefined ? name : `${namespace}/${name}`);
  }

  list(): T[] {
    return [...this.#store.values()];
  }

  /** Subscribes; objects already stored are delivered as adds first, as controller-runtime does. */
  addHandlers(handlers: InformerHandlers<T>): () => void {
    this.#handlers.add(handlers);
    for (const object of this.#store.values()) {
      this.#call('add', () => {
        handlers.add(object);
      });
    }
    return () => {
      this.#handlers.delete(handlers);
    };
  }

  start(): void {
    this.#running ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort(new Error('informer stopped'));
    await this.#running;
  }

  async #run(): Promise<void> {
    const stop = this.#stop.signal;
    let failures = 0;
    while (!stop.aborted) {
      try {
        const delivered = await this.#listAndWatch(stop);
        if (delivered) {
          failures = 0;
          continue;
        }
        // A watch that ended at once without an event would otherwise relist in a tight loop.
        await delay(this.#options.scheduler, backoffDelay(failures++, this.#backoff, this.#random), stop);
      } catch (error) {
        if (this.#stop.signal.aborted) break;
        const wait = backoffDelay(failures++, this.#backoff, this.#random);
        this.#options.log.warn({ err: error, kind: this.#options.type.kind, retryInMs: wait }, 'list/watch failed');
        await delay(this.#options.scheduler, wait, stop).catch(() => undefined);
      }
    }
  }

  /** One list and the watch after it; true when the watch delivered an event or was cut by the resync timer. */
  async #listAndWatch(stop: AbortSignal): Promise<boolean> {
    const { client, type, namespace, labelSelector, scheduler } = this.#options;
    const list = await client.list(type, { namespace, labelSelector });
    if (stop.aborted) return false;
    this.#replace(list.items);
    let resourceVersion = list.resourceVersion;
    let delivered = false;

    const watch = new AbortController();
    const onStop = () => {
      watch.abort();
    };
    stop.addEventListener('abort', onStop, { once: true });
    const resyncMs = (this.#options.resyncMs ?? 600_000) * (1 - 0.1 * this.#random());
    const cancelResync = scheduler.schedule(resyncMs, () => {
      delivered = true;
      watch.abort();
    });
    try {
      const events = client.watch(type, {
        namespace,
        labelSelector,
        resourceVersion,
        allowBookmarks: true,
        signal: watch.signal,
      });
      for await (const event of events) {
        if (watch.signal.aborted) break;
        delivered = true;
        resourceVersion = event.object.metadata.resourceVersion ?? resourceVersion;
        if (event.type === 'BOOKMARK') continue;
        if (event.type === 'DELETED') this.#remove(event.object);
        else this.#put(event.object);
      }
    } catch (error) {
      if (watch.signal.aborted) return delivered;
      if (error instanceof KubeGoneError) return true;
      throw error;
    } finally {
      cancelResync();
      stop.removeEventListener('abort', onStop);
    }
    return delivered;
  }

  /** Makes the store equal to a fresh list, emitting the adds, updates and deletes that differ. */
  #replace(items: readonly T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(objectKey(item.metadata));
      this.#put(item);
    }
    for (const [key, object] of this.#store) if (!seen.has(key)) this.#remove(object);
    if (!this.#synced) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
  }

  #put(received: T): void {
    const object = withoutManagedFields(received);
    const key = objectKey(object.metadata);
    const old = this.#store.get(key);
    if (old !== undefined && old.metadata.resourceVersion === object.metadata.resourceVersion) return;
    this.#store.set(key, object);
    for (const h of this.#handlers) {
      if (old === undefined) {
        this.#call('add', () => {
          h.add(object);
        });
      } else {
        this.#call('update', () => {
          h.update(old, object);
        });
      }
    }
  }

  #remove(object: T): void {
    const key = objectKey(object.metadata);
    const old = this.#store.get(key);
    if (old === undefined) return;
    this.#store.delete(key);
    for (const h of this.#handlers) {
      this.#call('delete', () => {
        h.delete(old);
      });
    }
  }

  #call(event: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#options.log.error({ err: error, kind: this.#options.type.kind, event }, 'informer handler threw');
    }
  }
}

/**
 * The object as the cache keeps it: without metadata.managedFields, as controller-runtime's informers strip them
 * (cache.TransformStripManagedFields). No pass reads them, an update that omits them keeps the server's, and on
 * kube-apiserver they were a fifth to a third of each cached object's size (bench/README.md, ADR 0052).
 */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

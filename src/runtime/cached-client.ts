/**
 * The client a reconcile pass reads through: gets of kinds an informer holds are answered from it, as
 * controller-runtime's cached client answers them, so a pass over a converged object costs no API server request;
 * lists (which decide cascades and claims) and every write go to the API server. At 1,000 servers on kube-apiserver
 * the live reads were 21.9 requests a server (docs/adr/0048-reconcile-reads-from-informer-caches.md).
 *
 * An informer lags the API server, so this client keeps the rules that make a lagging answer harmless:
 *
 * - **A write's answer primes the next read.** The object a create, update or patch returned is what a read of it
 *   answers until the informer holds that version or a later one, so a pass never sees the state before its own
 *   previous write (a finalizer it put on, a record it created).
 * - **A conflict, a NotFound on a write, and any delete re-read live.** The key is marked, and its next read goes to
 *   the API server (and primes in turn); the cache is trusted again once it has caught up.
 * - **A miss is confirmed live.** An object the cache does not hold is read from the API server before "not found"
 *   is answered: an absence decides deletions (a record gone proves nothing was realised) and creates (a record
 *   absent is made anew), so it is never taken from a cache that may not have seen the object yet.
 *
 * What is left is a present object older than another writer's latest, as with controller-runtime: the pass was
 * woken by the informer, so it reads at least the version that woke it; every write carries the resourceVersion it
 * read, so a write on an old one fails with a conflict (then re-read live); cloud-side, a create re-finds its
 * resource by its deterministic name first, so a pass that acted on an old status never makes a second one; and a
 * record read to prove nothing was realised is read live when it lacks the proof (openstack/identity/record.ts).
 *
 * resourceVersions are compared as the numbers both backends make them (etcd's revision, the embedded store's
 * counter); one that is not a number is never judged older, so its prime is kept until the cache shows it exactly.
 */
import { KubeConflictError, KubeNotFoundError } from '../kube/errors.ts';
import type { ApplyConfiguration, ApplyOptions, Client, DeleteOptions, Patch, WriteOptions } from '../kube/client.ts';
import { ForwardingClient } from '../kube/forwarding-client.ts';
import { objectKey, type KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import { withoutManagedFields } from './informer.ts';

/**
 * Objects an informer holds. `undefined`: no synced informer covers that kind there (ask the API server); `null`:
 * one does and does not hold the object.
 */
export interface CacheSource {
  peek<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): T | null | undefined;
}

/** How many primes are kept at most; the oldest goes first (a dropped prime costs at most a conflict and a re-read). */
const MAX_PRIMES = 10_000;
/** The fewest primes a sweep waits for. */
const SWEEP_MIN = 256;

const typeKey = (type: ResourceType): string => `${type.group}/${type.version}/${type.plural}`;

/** Whether `a` is known to be at least as new as `b` (both decimal revisions, a ≥ b; or the same string). */
function atLeast(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return a.length === b.length ? a > b : a.length > b.length;
}

/**
 * Lists are always the API server's: they decide deletions and claims (a cascade's dependents, a server's volumes)
 * and say so, "read fresh" (controllers/cascade.ts); a list that may come from the cache is runtime/cached-lists.ts's,
 * for the API and the monitor.
 */
export class CachedClient extends ForwardingClient {
  readonly #sources: readonly CacheSource[];
  /** type/namespace/name → the newest object this process wrote or read live, until the cache holds it. */
  readonly #primes = new Map<string, Prime>();
  /** The size at which the next write sweeps the primes the caches have caught up with. */
  #sweepAt = SWEEP_MIN;
  /** Keys whose next read goes to the API server (a conflict, a failed write, a delete). */
  readonly #live = new Set<string>();

  constructor(client: Client, sources: readonly CacheSource[]) {
    super(client);
    this.#sources = sources;
  }

  override async get<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
  ): Promise<T> {
    const key = this.#key(type, namespace, name);
    const cached = this.#live.has(key) ? undefined : this.#peek(type, namespace, name);
    if (cached === undefined || cached === null) return this.#readLive(type, namespace, name, key);
    const prime = this.#primes.get(key)?.object as T | undefined;
    if (prime === undefined) return cached;
    // The prime is the same object only while the uid matches: a recreated object is the cache's.
    if (
      prime.metadata.uid !== cached.metadata.uid ||
      atLeast(cached.metadata.resourceVersion, prime.metadata.resourceVersion)
    ) {
      this.#primes.delete(key);
      return cached;
    }
    return prime;
  }

  /** The object as the API server holds it now (and the next reads' prime): for a decision a lagging answer must not take. */
  getFresh<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return this.#readLive(type, namespace, name, this.#key(type, namespace, name));
  }

  override create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    const key = this.#key(type, object.metadata.namespace, object.metadata.name);
    return this.#written(type, key, this.inner.create(type, object, options));
  }

  override update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    const key = this.#key(type, object.metadata.namespace, object.metadata.name);
    return this.#written(type, key, this.inner.update(type, object, options));
  }

  override patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#written(
      type,
      this.#key(type, namespace, name),
      this.inner.patch(type, namespace, name, patch, options),
    );
  }

  override apply<T extends KubeObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration,
    options: ApplyOptions,
  ): Promise<T> {
    const key = this.#key(type, object.metadata.namespace, object.metadata.name);
    const written = this.inner.apply(type, object, options);
    // A dry run writes nothing: nothing to prime.
    return options.dryRun === true ? written : this.#written(type, key, written);
  }

  override async delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options?: DeleteOptions,
  ): Promise<void> {
    const key = this.#key(type, namespace, name);
    // Gone or marked for deletion, the answer does not say which: the next read asks.
    this.#primes.delete(key);
    this.#markLive(key);
    await this.inner.delete(type, namespace, name, options);
  }

  #key(type: ResourceType, namespace: string | undefined, name: string): string {
    return `${typeKey(type)}/${objectKey({ name, ...(type.namespaced && namespace !== undefined ? { namespace } : {}) })}`;
  }

  #peek<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
  ): T | null | undefined {
    const ns = type.namespaced ? namespace : undefined;
    for (const source of this.#sources) {
      const found = source.peek(type, ns, name);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  async #readLive<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    key: string,
  ): Promise<T> {
    try {
      const object = await this.inner.get(type, namespace, name);
      this.#live.delete(key);
      if (this.#peek(type, namespace, name) !== undefined) this.#prime(key, type, object);
      return object;
    } catch (error) {
      if (error instanceof KubeNotFoundError) {
        this.#live.delete(key);
        this.#primes.delete(key);
      }
      throw error;
    }
  }

  async #written<T extends KubeObject>(type: ResourceType<T>, key: string, write: Promise<T>): Promise<T> {
    try {
      const object = await write;
      this.#live.delete(key);
      this.#prime(key, type, object);
      return object;
    } catch (error) {
      // The object is not as this process last saw it: the next read asks the API server.
      if (error instanceof KubeConflictError || error instanceof KubeNotFoundError) {
        this.#primes.delete(key);
        this.#markLive(key);
      }
      throw error;
    }
  }

  /** Bounded as the primes are: a mark dropped costs at most one stale read, which its write's conflict corrects. */
  #markLive(key: string): void {
    this.#live.add(key);
    if (this.#live.size > MAX_PRIMES) {
      const oldest = this.#live.values().next().value;
      if (oldest !== undefined) this.#live.delete(oldest);
    }
  }

  /** Primes held now (what the sweeps keep small). */
  get primed(): number {
    return this.#primes.size;
  }

  #prime(key: string, type: ResourceType, object: KubeObject): void {
    this.#primes.delete(key);
    // Without managedFields, as the caches hold objects (informer.ts); the caller keeps the answer as written.
    this.#primes.set(key, { type, object: withoutManagedFields(object) });
    if (this.#primes.size >= this.#sweepAt) {
      this.#sweep();
      this.#sweepAt = Math.max(SWEEP_MIN, 2 * this.#primes.size);
    }
    if (this.#primes.size > MAX_PRIMES) {
      const oldest = this.#primes.keys().next().value;
      if (oldest !== undefined) this.#primes.delete(oldest);
    }
  }

  /**
   * Drops the primes the caches have caught up with (or that a recreated object replaced): a read would drop each
   * anyway, but a wave's last writes are never read again, and at 10,000 servers their primes held a second copy of
   * the fleet. Run when the primes have doubled since the last sweep, so it costs O(1) a write.
   */
  #sweep(): void {
    for (const [key, { type, object }] of this.#primes) {
      const cached = this.#peek(type, object.metadata.namespace, object.metadata.name);
      if (cached === undefined || cached === null) continue;
      if (
        cached.metadata.uid !== object.metadata.uid ||
        atLeast(cached.metadata.resourceVersion, object.metadata.resourceVersion)
      )
        this.#primes.delete(key);
    }
  }
}

interface Prime {
  readonly type: ResourceType;
  readonly object: KubeObject;
}

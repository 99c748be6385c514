/**
 * Reads of a few kinds in one namespace served from informers, as controller-runtime's cached client serves a Get: a
 * hot path that reads the same objects on every pass (the region provider's lookup reads its Region and credentials
 * Secret for every reconcile of every resource) costs no API server request once the informers have synced.
 *
 * Only the kinds named, in the one namespace named, are cached; any other read goes to the client. A miss (an object
 * the informer has not seen yet, one just created) is read through the client too, so a read never answers "not
 * found" for an object the API server has: the cache saves requests, it never changes an answer.
 */
import type { Logger } from 'pino';
import type { Client } from '../kube/client.ts';
import type { CacheSource } from './cached-client.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Random } from '../util/clock.ts';
import { Informer } from './informer.ts';
import type { Scheduler } from './scheduler.ts';

/** The one read the cached path serves. */
export type Reader = Pick<Client, 'get'>;

interface CachedReadsOptions {
  readonly client: Client;
  readonly namespace: string;
  readonly types: readonly ResourceType[];
  readonly scheduler: Scheduler;
  readonly log: Logger;
  readonly random?: Random;
}

const keyOf = (type: ResourceType): string => `${type.group}/${type.version}/${type.plural}`;

export class CachedReads implements Reader, CacheSource {
  readonly #client: Client;
  readonly #namespace: string;
  readonly #informers = new Map<string, Informer<KubeObject>>();

  constructor(options: CachedReadsOptions) {
    this.#client = options.client;
    this.#namespace = options.namespace;
    for (const type of options.types) {
      this.#informers.set(
        keyOf(type),
        new Informer({
          client: options.client,
          type,
          scheduler: options.scheduler,
          log: options.log,
          namespace: type.namespaced ? options.namespace : undefined,
          ...(options.random === undefined ? {} : { random: options.random }),
        }),
      );
    }
  }

  /** Starts every informer and resolves once each has listed once. */
  async start(): Promise<void> {
    for (const informer of this.#informers.values()) informer.start();
    await Promise.all([...this.#informers.values()].map((i) => i.synced()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }

  peek<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): T | null | undefined {
    const informer = this.#informers.get(keyOf(type));
    if (informer?.hasSynced !== true || (type.namespaced && namespace !== this.#namespace)) return undefined;
    return (informer.get(type.namespaced ? namespace : undefined, name) as T | undefined) ?? null;
  }

  async get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    const informer = this.#informers.get(keyOf(type));
    const covered = informer?.hasSynced === true && (!type.namespaced || namespace === this.#namespace);
    const cached = covered ? informer.get(type.namespaced ? namespace : undefined, name) : undefined;
    return cached === undefined ? this.#client.get(type, namespace, name) : (cached as T);
  }
}

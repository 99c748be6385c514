/**
 * A Client whose lists come from the manager's caches when a synced one holds the kind, as controller-runtime's
 * cached client serves reads: a list of every Server costs no store read and no parse of each object, which the
 * REST API pays on every `GET /api/v2/servers` otherwise. Everything else, and a list with a selector or of a kind
 * nothing watches, goes to the client. The cache is the same one the controllers act on, fed by the store's watch
 * before a write is acknowledged, so a list made after a write's answer shows it.
 */
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
} from '../kube/client.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Manager } from './manager.ts';

export class CachedListClient implements Client {
  readonly #client: Client;
  readonly #manager: Pick<Manager, 'cachedList'>;

  constructor(client: Client, manager: Pick<Manager, 'cachedList'>) {
    this.#client = client;
    this.#manager = manager;
  }

  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    const plain = options.labelSelector === undefined && options.fieldSelector === undefined;
    const cached = plain ? this.#manager.cachedList(type, options.namespace) : undefined;
    return cached === undefined ? this.#client.list(type, options) : { items: cached, resourceVersion: '' };
  }

  get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return this.#client.get(type, namespace, name);
  }

  watch<T extends KubeObject>(type: ResourceType<T>, options?: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return this.#client.watch(type, options);
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#client.create(type, object, options);
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#client.update(type, object, options);
  }

  patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#client.patch(type, namespace, name, patch, options);
  }

  apply<T extends KubeObject>(type: ResourceType<T>, object: ApplyConfiguration, options: ApplyOptions): Promise<T> {
    return this.#client.apply(type, object, options);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void> {
    return this.#client.delete(type, namespace, name, options);
  }

  servedVersions(group: string, plural: string): Promise<string[]> {
    return this.#client.servedVersions(group, plural);
  }
}

/**
 * A Client whose lists come from the manager's caches when a synced one holds the kind, as controller-runtime's
 * cached client serves reads: a list of every Server costs no store read and no parse of each object, which the
 * REST API pays on every `GET /api/v2/servers` otherwise. Everything else, and a list with a selector or of a kind
 * nothing watches, goes to the client. The cache is the same one the controllers act on, fed by the store's watch
 * before a write is acknowledged, so a list made after a write's answer shows it.
 */
import type { Client, ListOptions, ObjectList } from '../kube/client.ts';
import { ForwardingClient } from '../kube/forwarding-client.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Manager } from './manager.ts';

export class CachedListClient extends ForwardingClient {
  readonly #manager: Pick<Manager, 'cachedList'>;

  constructor(client: Client, manager: Pick<Manager, 'cachedList'>) {
    super(client);
    this.#manager = manager;
  }

  override async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    const plain = options.labelSelector === undefined && options.fieldSelector === undefined;
    const cached = plain ? this.#manager.cachedList(type, options.namespace) : undefined;
    return cached === undefined ? this.inner.list(type, options) : { items: cached, resourceVersion: '' };
  }
}

/**
 * A Client that forwards every call to another: the base of the clients that change a few calls and pass the rest
 * through (the cached reads and lists under runtime/, test clients that shape some calls).
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
} from './client.ts';
import type { KubeObject } from './object.ts';
import type { ResourceType } from './resource-type.ts';

export class ForwardingClient implements Client {
  constructor(protected readonly inner: Client) {}

  get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return this.inner.get(type, namespace, name);
  }

  list<T extends KubeObject>(type: ResourceType<T>, options?: ListOptions): Promise<ObjectList<T>> {
    return this.inner.list(type, options);
  }

  watch<T extends KubeObject>(type: ResourceType<T>, options?: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return this.inner.watch(type, options);
  }

  create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.inner.create(type, object, options);
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.inner.update(type, object, options);
  }

  patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T> {
    return this.inner.patch(type, namespace, name, patch, options);
  }

  apply<T extends KubeObject>(type: ResourceType<T>, object: ApplyConfiguration, options: ApplyOptions): Promise<T> {
    return this.inner.apply(type, object, options);
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void> {
    return this.inner.delete(type, namespace, name, options);
  }

  servedVersions(group: string, plural: string): Promise<string[]> {
    return this.inner.servedVersions(group, plural);
  }
}

/**
 * Test support for the VLAN allocator: a Client whose reads and writes a fast-check scheduler interleaves (its
 * store is the region test store, apis/testing/store.ts, serving the VLANAllocation kind alone).
 */
import type { Scheduler } from 'fast-check';
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
} from '../../../kube/client.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';

export const NAMESPACE = 'default';

/** Forwards every call to another Client: tests override the calls they want to shape. */
export class DelegatingClient implements Client {
  constructor(protected readonly inner: Client) {}

  get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return this.inner.get(type, namespace, name);
  }
  create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.inner.create(type, object, options);
  }
  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.inner.update(type, object, options);
  }
  list<T extends KubeObject>(type: ResourceType<T>, options?: ListOptions): Promise<ObjectList<T>> {
    return this.inner.list(type, options);
  }
  watch<T extends KubeObject>(type: ResourceType<T>, options?: WatchOptions): AsyncIterable<WatchEvent<T>> {
    return this.inner.watch(type, options);
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

/**
 * Each get, create and update waits for the scheduler before it runs and again before its answer is seen, so
 * the scheduler decides how concurrent read-decide-write rounds interleave.
 */
export class ScheduledClient extends DelegatingClient {
  constructor(
    inner: Client,
    private readonly scheduler: Scheduler,
    private readonly label: string,
  ) {
    super(inner);
  }

  async #gate<T>(op: string, call: () => Promise<T>): Promise<T> {
    await this.scheduler.schedule(Promise.resolve(), `${this.label} ${op}`);
    const answer = call();
    // The store settles a write a turn later; its refusal reaches the caller when the scheduler releases it.
    answer.catch(() => undefined);
    return this.scheduler.schedule(answer, `${this.label} ${op} answer`);
  }

  override get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    return this.#gate('get', () => super.get(type, namespace, name));
  }
  override create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#gate('create', () => super.create(type, object, options));
  }
  override update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T> {
    return this.#gate('update', () => super.update(type, object, options));
  }
}

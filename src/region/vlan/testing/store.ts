/**
 * Test support for the VLAN allocator: a Client whose reads and writes a fast-check scheduler interleaves (its
 * store is the region test store, apis/testing/store.ts, serving the VLANAllocation kind alone).
 */
import type { Scheduler } from 'fast-check';
import type { Client, WriteOptions } from '../../../kube/client.ts';
import { ForwardingClient } from '../../../kube/forwarding-client.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';

export const NAMESPACE = 'default';

/**
 * Each get, create and update waits for the scheduler before it runs and again before its answer is seen, so
 * the scheduler decides how concurrent read-decide-write rounds interleave.
 */
export class ScheduledClient extends ForwardingClient {
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

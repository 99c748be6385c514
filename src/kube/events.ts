/** core/v1 Events about an object, as client-go's recorder writes them (one object per occurrence). */
import { randomInt } from 'node:crypto';
import type { Client } from './client.ts';
import type { KubeObject } from './object.ts';
import { builtin } from './resource-type.ts';
import type { Clock } from '../util/clock.ts';

export type EventType = 'Normal' | 'Warning';

export interface CoreEvent extends KubeObject {
  readonly involvedObject: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly source: { readonly component: string };
}

/**
 * Records an Event in the involved object's namespace (`default` for cluster-scoped objects). The name follows
 * client-go's `<name>.<hex nanoseconds>`, with random sub-millisecond digits so two events in one millisecond differ.
 */
export async function recordEvent(
  client: Client,
  involved: KubeObject,
  type: EventType,
  reason: string,
  message: string,
  clock: Clock,
  component = 'openregion',
): Promise<CoreEvent> {
  const now = clock.now();
  const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const nanos = (BigInt(now) * 1_000_000n + BigInt(randomInt(1_000_000))).toString(16);
  const namespace = involved.metadata.namespace ?? 'default';
  const event: CoreEvent = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${involved.metadata.name}.${nanos}`, namespace },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.metadata.name,
      ...(involved.metadata.namespace === undefined ? {} : { namespace: involved.metadata.namespace }),
      ...(involved.metadata.uid === undefined ? {} : { uid: involved.metadata.uid }),
      ...(involved.metadata.resourceVersion === undefined
        ? {}
        : { resourceVersion: involved.metadata.resourceVersion }),
    },
    type,
    reason,
    message,
    count: 1,
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    source: { component },
  };
  return client.create(builtin.event, event, { fieldManager: component });
}

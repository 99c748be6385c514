/**
 * core/v1 Events about an object, as client-go's recorder writes them: `recordEvent` writes one; an EventRecorder
 * correlates them first, as client-go's EventCorrelator does, so a failure that repeats does not write a new object
 * each time:
 *
 * - the same event again (source, object, type, reason, message) patches the Event it wrote: count + 1 and a new
 *   lastTimestamp;
 * - more than 10 different messages of one reason about one object within 10 minutes become one Event whose
 *   message is the latest with the prefix "(combined from similar events): ", counted from then on.
 *
 * Recording never fails the caller: a write the API refuses is handed to `onError` and forgotten. Messages are
 * capped at 1 KiB (what Kubernetes accepts for a note).
 */
import { randomInt } from 'node:crypto';
import type { Client } from './client.ts';
import { isKubeNotFound } from './errors.ts';
import type { CoreEvent, EventType, KubeObject } from './object.ts';
import { builtin } from './resource-type.ts';
import type { Clock } from '../util/clock.ts';
import { defined } from '../util/defined.ts';

/** client-go's defaults: the correlator's cache, and how many similar messages before they are combined, in what window. */
const CACHE_ENTRIES = 4096;
const SIMILAR_MAX = 10;
const SIMILAR_WINDOW_MS = 600_000;
const MESSAGE_MAX = 1024;
export const COMBINED_PREFIX = '(combined from similar events): ';

const timestamp = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * A new Event's object. The name follows client-go's `<name>.<hex nanoseconds>`, with random sub-millisecond digits so
 * two events in one millisecond differ.
 */
function newEvent(
  involved: KubeObject,
  type: EventType,
  reason: string,
  message: string,
  now: number,
  component: string,
): CoreEvent {
  const stamp = timestamp(now);
  const nanos = (BigInt(now) * 1_000_000n + BigInt(randomInt(1_000_000))).toString(16);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `${involved.metadata.name}.${nanos}`, namespace: involved.metadata.namespace ?? 'default' },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.metadata.name,
      ...defined({ namespace: involved.metadata.namespace, uid: involved.metadata.uid }),
      ...(involved.metadata.resourceVersion === undefined
        ? {}
        : { resourceVersion: involved.metadata.resourceVersion }),
    },
    type,
    reason,
    message: message.slice(0, MESSAGE_MAX),
    count: 1,
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    source: { component },
  };
}

/** Records one Event in the involved object's namespace (`default` for cluster-scoped objects), uncorrelated. */
export async function recordEvent(
  client: Client,
  involved: KubeObject,
  type: EventType,
  reason: string,
  message: string,
  clock: Clock,
  component = 'openregion',
): Promise<CoreEvent> {
  return client.create(builtin.event, newEvent(involved, type, reason, message, clock.now(), component), {
    fieldManager: component,
  });
}

interface EventRecorderOptions {
  readonly client: Client;
  readonly clock: Clock;
  /** `source.component`: who reports (kubectl describe's "From"). */
  readonly component: string;
  /** A write the API refused; the event is dropped. */
  readonly onError?: (error: unknown) => void;
}

interface Written {
  readonly namespace: string;
  readonly name: string;
  readonly count: number;
}

export class EventRecorder {
  readonly #options: EventRecorderOptions;
  /** What was written for each event key (least recently used first), so a repeat patches instead. */
  readonly #written = new Map<string, Written>();
  /** The distinct messages seen per object and reason since the window opened. */
  readonly #similar = new Map<string, { messages: Set<string>; since: number }>();
  /** The write under way per event key: the next one for that key waits for it, so counts never race. */
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(options: EventRecorderOptions) {
    this.#options = options;
  }

  /** Records an event about `involved`; resolves once it is written (or dropped), never rejects. */
  record(involved: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const now = this.#options.clock.now();
    const object = JSON.stringify([
      involved.apiVersion,
      involved.kind,
      involved.metadata.namespace ?? '',
      involved.metadata.name,
      involved.metadata.uid ?? '',
    ]);
    const similarKey = `${this.#options.component}\u0000${object}\u0000${type}\u0000${reason}`;
    const text = message.slice(0, MESSAGE_MAX);
    const combined = this.#tooManySimilar(similarKey, text, now);
    const key = combined ? `${similarKey}\u0000combined` : `${similarKey}\u0000${text}`;
    const shown = combined ? `${COMBINED_PREFIX}${text}`.slice(0, MESSAGE_MAX) : text;
    const previous = this.#inFlight.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.#write(key, involved, type, reason, shown, now))
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        if (this.#inFlight.get(key) === next) this.#inFlight.delete(key);
      });
    this.#inFlight.set(key, next);
    return next;
  }

  #tooManySimilar(similarKey: string, message: string, now: number): boolean {
    let seen = this.#similar.get(similarKey);
    if (seen === undefined || now - seen.since > SIMILAR_WINDOW_MS) {
      seen = { messages: new Set(), since: now };
      this.#similar.delete(similarKey);
    }
    seen.messages.add(message);
    this.#remember(this.#similar, similarKey, seen);
    return seen.messages.size > SIMILAR_MAX;
  }

  async #write(
    key: string,
    involved: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    now: number,
  ): Promise<void> {
    const { client, component } = this.#options;
    const written = this.#written.get(key);
    if (written !== undefined) {
      try {
        const count = written.count + 1;
        await client.patch(
          builtin.event,
          written.namespace,
          written.name,
          { type: 'merge', patch: { count, lastTimestamp: timestamp(now), message } },
          { fieldManager: component },
        );
        this.#remember(this.#written, key, { ...written, count });
        return;
      } catch (error) {
        // The Event expired (its TTL) or was deleted: start a new one.
        if (!isKubeNotFound(error)) throw error;
        this.#written.delete(key);
      }
    }
    const created = await client.create(builtin.event, newEvent(involved, type, reason, message, now, component), {
      fieldManager: component,
    });
    this.#remember(this.#written, key, {
      namespace: created.metadata.namespace ?? '',
      name: created.metadata.name,
      count: 1,
    });
  }

  /** Sets `key` as the most recently used entry, dropping the least recently used beyond the cache's size. */
  #remember<V>(cache: Map<string, V>, key: string, value: V): void {
    cache.delete(key);
    cache.set(key, value);
    for (const oldest of cache.keys()) {
      if (cache.size <= CACHE_ENTRIES) break;
      cache.delete(oldest);
    }
  }
}

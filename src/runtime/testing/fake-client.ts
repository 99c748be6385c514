/**
 * A small in-memory Client for the runtime's tests: namespaced objects with resourceVersions and generations, label
 * selectors of `k=v` and `k` terms, a watch that replays its event log from a resourceVersion, and knobs to make a
 * kind unserved, fail the next list, end every watch stream or compact the log (so an old resourceVersion is Gone).
 */
import type {
  ApplyConfiguration,
  Client,
  ListOptions,
  ObjectList,
  Patch,
  WatchEvent,
  WatchOptions,
} from '../../kube/client.ts';
import { KubeAlreadyExistsError, KubeConflictError, KubeGoneError, KubeNotFoundError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';

interface LoggedEvent {
  readonly rv: number;
  readonly typeKey: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
}

const typeKeyOf = (t: Pick<ResourceType, 'group' | 'plural'>) => `${t.group}/${t.plural}`;
const objKey = (namespace: string | undefined, name: string) => `${namespace ?? ''}/${name}`;

export class FakeClient implements Client {
  readonly #objects = new Map<string, Map<string, KubeObject>>();
  readonly #log: LoggedEvent[] = [];
  readonly #listeners = new Set<() => void>();
  readonly #unserved = new Set<string>();
  /** Versions a kind is served at: declared with serveVersions, or every version a call has used. */
  readonly #versions = new Map<string, Set<string>>();
  readonly #declared = new Set<string>();
  readonly #listFailures = new Map<string, Error[]>();
  readonly #watchFailures = new Map<string, Error>();
  #rv = 0;
  #uid = 0;
  #compactedTo = 0;
  #streamGeneration = 0;
  /** Calls made, for assertions: `list secrets`, `watch secrets@3`. */
  readonly calls: string[] = [];

  unserve(type: ResourceType): void {
    this.#unserved.add(typeKeyOf(type));
  }

  serve(type: ResourceType): void {
    this.#unserved.delete(typeKeyOf(type));
  }

  /** What discovery answers for the kind from now on (an empty list: installed at no version). */
  serveVersions(group: string, plural: string, versions: readonly string[]): void {
    const key = typeKeyOf({ group, plural });
    this.#declared.add(key);
    this.#versions.set(key, new Set(versions));
  }

  servedVersions(group: string, plural: string): Promise<string[]> {
    const key = typeKeyOf({ group, plural });
    return Promise.resolve(this.#unserved.has(key) ? [] : [...(this.#versions.get(key) ?? [])]);
  }

  failNextList(type: ResourceType, error: Error): void {
    const key = typeKeyOf(type);
    this.#listFailures.set(key, [...(this.#listFailures.get(key) ?? []), error]);
  }

  /** The next watch of the kind fails with `error` before delivering anything. */
  failNextWatch(type: ResourceType, error: Error): void {
    this.#watchFailures.set(typeKeyOf(type), error);
  }

  /** Ends every open watch stream cleanly, as a server's watch timeout does. */
  endWatches(): void {
    this.#streamGeneration++;
    this.#notify();
  }

  /** Forgets the event log: a watch from any earlier resourceVersion fails with KubeGoneError. */
  compact(): void {
    this.#compactedTo = this.#rv;
    this.#log.length = 0;
  }

  async get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    await Promise.resolve();
    this.#checkServed(type);
    const found = this.#bucket(type).get(objKey(namespace, name));
    if (found === undefined) throw new KubeNotFoundError(`${type.plural} "${name}" not found`);
    return structuredClone(found) as T;
  }

  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    await Promise.resolve();
    this.calls.push(`list ${type.plural}`);
    this.#checkServed(type);
    const failure = this.#listFailures.get(typeKeyOf(type))?.shift();
    if (failure !== undefined) throw failure;
    const items = [...this.#bucket(type).values()].filter((o) => matches(o, options));
    return { items: structuredClone(items) as T[], resourceVersion: String(this.#rv) };
  }

  async *watch<T extends KubeObject>(type: ResourceType<T>, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    this.calls.push(`watch ${type.plural}@${options.resourceVersion ?? ''}`);
    this.#checkServed(type);
    const failure = this.#watchFailures.get(typeKeyOf(type));
    if (failure !== undefined) {
      this.#watchFailures.delete(typeKeyOf(type));
      throw failure;
    }
    let from = Number(options.resourceVersion ?? this.#rv);
    if (from < this.#compactedTo) throw new KubeGoneError(`too old resource version: ${from}`);
    const generation = this.#streamGeneration;
    const typeKey = typeKeyOf(type);
    for (;;) {
      if (options.signal?.aborted === true || generation !== this.#streamGeneration) return;
      const next = this.#log.find((e) => e.rv > from && e.typeKey === typeKey && matches(e.object, options));
      if (next !== undefined) {
        from = next.rv;
        yield { type: next.type, object: structuredClone(next.object) as T };
        continue;
      }
      const changed = this.#log.at(-1)?.rv ?? 0;
      if (changed > from) {
        from = changed;
        continue;
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#listeners.delete(wake);
          options.signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.#listeners.add(wake);
        options.signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  async create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>): Promise<T> {
    await Promise.resolve();
    this.#checkServed(type);
    const key = objKey(object.metadata.namespace, object.metadata.name);
    if (this.#bucket(type).has(key))
      throw new KubeAlreadyExistsError(`${type.plural} "${object.metadata.name}" exists`);
    const stored = {
      ...structuredClone(object),
      metadata: { ...structuredClone(object.metadata), uid: `uid-${++this.#uid}`, generation: 1 },
    };
    return this.#write(type, key, stored, 'ADDED') as T;
  }

  async update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>): Promise<T> {
    const current = await this.get(type, object.metadata.namespace, object.metadata.name);
    if (object.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw new KubeConflictError(`${type.plural} "${object.metadata.name}": the object has been modified`);
    }
    const specChanged = JSON.stringify(object['spec']) !== JSON.stringify(current['spec']);
    const generation = (current.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    const stored = {
      ...structuredClone(object),
      metadata: { ...structuredClone(object.metadata), uid: current.metadata.uid, generation },
    };
    const key = objKey(object.metadata.namespace, object.metadata.name);
    return this.#write(type, key, stored, 'MODIFIED') as T;
  }

  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
  ): Promise<T> {
    if (patch.type !== 'merge') throw new Error('the fake client supports merge patches only');
    const current = await this.get(type, namespace, name);
    const merged = mergePatch(current, patch.patch) as T;
    return this.update(type, {
      ...merged,
      metadata: { ...merged.metadata, resourceVersion: current.metadata.resourceVersion },
    });
  }

  async apply<T extends KubeObject>(type: ResourceType<T>, object: ApplyConfiguration): Promise<T> {
    try {
      return await this.patch(type, object.metadata.namespace, object.metadata.name, {
        type: 'merge',
        patch: object,
      });
    } catch (e) {
      if (e instanceof KubeNotFoundError) return this.create(type, object as T);
      throw e;
    }
  }

  async delete(type: ResourceType, namespace: string | undefined, name: string): Promise<void> {
    const current = await this.get(type, namespace, name);
    this.#bucket(type).delete(objKey(namespace, name));
    this.#rv++;
    this.#log.push({ rv: this.#rv, typeKey: typeKeyOf(type), type: 'DELETED', object: current });
    this.#notify();
  }

  #write(type: ResourceType, key: string, object: KubeObject, event: 'ADDED' | 'MODIFIED'): KubeObject {
    this.#rv++;
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(this.#rv) } };
    this.#bucket(type).set(key, stored);
    this.#log.push({ rv: this.#rv, typeKey: typeKeyOf(type), type: event, object: stored });
    this.#notify();
    return structuredClone(stored);
  }

  #bucket(type: ResourceType): Map<string, KubeObject> {
    const key = typeKeyOf(type);
    if (!this.#declared.has(key)) this.#versions.set(key, new Set([...(this.#versions.get(key) ?? []), type.version]));
    let bucket = this.#objects.get(key);
    if (bucket === undefined) {
      bucket = new Map();
      this.#objects.set(key, bucket);
    }
    return bucket;
  }

  #checkServed(type: ResourceType): void {
    if (this.#unserved.has(typeKeyOf(type))) {
      throw new KubeNotFoundError(`the server could not find the requested resource (${type.plural})`);
    }
  }

  #notify(): void {
    for (const wake of [...this.#listeners]) wake();
  }
}

function matches(object: KubeObject, options: ListOptions): boolean {
  if (options.namespace !== undefined && object.metadata.namespace !== options.namespace) return false;
  for (const term of (options.labelSelector ?? '').split(',').filter((t) => t !== '')) {
    const [k, v] = term.split('=');
    const labels = object.metadata.labels ?? {};
    if (k === undefined || !(k in labels)) return false;
    if (v !== undefined && labels[k] !== v) return false;
  }
  return true;
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out = new Map<string, unknown>(
    typeof target === 'object' && target !== null && !Array.isArray(target) ? Object.entries(target) : [],
  );
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) out.delete(k);
    else out.set(k, mergePatch(out.get(k), v));
  }
  return Object.fromEntries(out);
}

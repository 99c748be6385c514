/**
 * The API's view of the store: region resources in the service namespace, filtered to what a principal may see.
 * Anything out of scope is reported exactly like anything absent, so a token learns nothing about other tenants.
 * Store failures become problems here, with fixed text; their detail goes to the log only.
 */
import type { Logger } from 'pino';
import { getOptional, type Client, type WatchEvent } from '../../kube/client.ts';
import { KubeAlreadyExistsError, KubeConflictError, KubeInvalidError, KubeNotFoundError } from '../../kube/errors.ts';
import type { EventFields, KubeObject, ObjectMeta } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import { activeTraceparent, TRACEPARENT_ANNOTATION } from '../../util/tracing.ts';
import { labels, regionType, type Region } from '../apis/index.ts';
import { canAccess, type Principal } from './auth.ts';
import type { CachedObject } from './context.ts';
import { Problem, problems, violation } from './problem.ts';

export interface ListFilters {
  readonly organizationID?: readonly string[] | undefined;
  readonly projectID?: readonly string[] | undefined;
  readonly regionID?: readonly string[] | undefined;
  readonly networkID?: readonly string[] | undefined;
  /** Upstream's tag selector: `name=value` pairs the resource's tags must all hold. */
  readonly tag?: readonly string[] | undefined;
}

/** An Event as stored, read defensively: one another client wrote need not carry every field the recorder sets. */
export type RecordedEvent = KubeObject & EventFields;

const label = (object: KubeObject, key: string): string => object.metadata.labels?.[key] ?? '';

export function visibleTo(principal: Principal, object: KubeObject): boolean {
  return canAccess(principal, label(object, labels.organization), label(object, labels.project));
}

/** Whether the object passes a list's filters (organization, project, region, network, tags). */
export function matches(object: KubeObject, filters: ListFilters): boolean {
  const pass = (values: readonly string[] | undefined, key: string) =>
    values === undefined || values.length === 0 || values.includes(label(object, key));
  return (
    pass(filters.organizationID, labels.organization) &&
    pass(filters.projectID, labels.project) &&
    pass(filters.regionID, labels.regionID) &&
    pass(filters.networkID, labels.networkID) &&
    (filters.tag ?? []).every((selector) => hasTag(object, selector))
  );
}

function hasTag(object: KubeObject, selector: string): boolean {
  const at = selector.indexOf('=');
  const [name, value] = [selector.slice(0, at), selector.slice(at + 1)];
  const tags = (object['spec'] as { tags?: readonly { name: string; value: string }[] } | undefined)?.tags ?? [];
  return tags.some((t) => t.name === name && t.value === value);
}

/** Oldest first. RFC 3339 timestamps in one format order as strings: no locale collation needed. */
const byCreation = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function regionVisibleTo(region: Region, organizationID: string): boolean {
  const allowed = region.spec.security?.organizations;
  return allowed === undefined || allowed.length === 0 || allowed.some((o) => o.id === organizationID);
}

export class Repository {
  readonly #client: Client;
  readonly #namespace: string;
  readonly #log: Logger | undefined;
  readonly #created: ((type: ResourceType, object: KubeObject) => void)[] = [];
  readonly #cached: CachedObject | undefined;

  constructor(client: Client, namespace: string, log?: Logger, cached?: CachedObject) {
    this.#client = client;
    this.#namespace = namespace;
    this.#log = log;
    this.#cached = cached;
  }

  async list<T extends KubeObject>(
    type: ResourceType<T>,
    principal: Principal,
    filters: ListFilters = {},
  ): Promise<T[]> {
    const { items } = await this.#guard(() => this.#client.list(type, { namespace: this.#namespace }));
    return items
      .filter((o) => visibleTo(principal, o) && matches(o, filters))
      .sort((a, b) => byCreation(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? ''));
  }

  /** Changes to the kind in the service namespace from now on, whoever may see them: the caller filters each. */
  watch<T extends KubeObject>(type: ResourceType<T>, signal: AbortSignal): AsyncIterable<WatchEvent<T>> {
    return this.#client.watch(type, { namespace: this.#namespace, signal });
  }

  /**
   * Every object of the kind (with the labels `labelSelector` asks for), whatever the principal may see: for a rule
   * that spans scopes (a claim), never a read.
   */
  async unscoped<T extends KubeObject>(type: ResourceType<T>, labelSelector?: string): Promise<T[]> {
    const options = { namespace: this.#namespace, ...(labelSelector === undefined ? {} : { labelSelector }) };
    return (await this.#guard(() => this.#client.list(type, options))).items;
  }

  /** The object, or 404 (`what` not found) when it is absent or out of the principal's scope. */
  async get<T extends KubeObject>(type: ResourceType<T>, principal: Principal, id: string, what: string): Promise<T> {
    const object = await this.find(type, id);
    if (object === undefined || !visibleTo(principal, object)) throw problems.notFound(what);
    return object;
  }

  find<T extends KubeObject>(type: ResourceType<T>, id: string): Promise<T | undefined> {
    return this.#guard(() => getOptional(this.#client, type, this.#namespace, id));
  }

  /**
   * The object as the informers hold it, absent when they do not (no live confirmation), or the store's where no
   * synced informer holds the kind. Only for a check an informer's lag cannot make wrong: each caller says why
   * (docs/adr/0051-fewer-writes-and-reads-per-server.md).
   */
  findCached<T extends KubeObject>(type: ResourceType<T>, id: string): Promise<T | undefined> {
    const cached = this.#cached?.(type, id);
    return cached === undefined ? this.find(type, id) : Promise.resolve(cached ?? undefined);
  }

  /** The Events recorded about `object` (found by kind and name, and uid when they carry it), oldest first. */
  async eventsAbout(object: KubeObject): Promise<RecordedEvent[]> {
    const events: ResourceType<RecordedEvent> = builtin.event;
    const { items } = await this.#guard(() => this.#client.list(events, { namespace: this.#namespace }));
    const { uid, name } = object.metadata;
    return items
      .filter((e) => {
        const about = e.involvedObject;
        return about?.kind === object.kind && about.name === name && (about.uid === undefined || about.uid === uid);
      })
      .sort((a, b) => byCreation(a.lastTimestamp ?? '', b.lastTimestamp ?? ''));
  }

  /** The region, if it exists and the organization may use it. */
  async region(regionID: string, organizationID: string): Promise<Region | undefined> {
    const region = await this.find(regionType, regionID);
    return region !== undefined && regionVisibleTo(region, organizationID) ? region : undefined;
  }

  async create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>): Promise<T> {
    const metadata = withTraceparent({ ...object.metadata, namespace: this.#namespace });
    const created = await this.#guard(() => this.#client.create(type, { ...object, metadata }));
    for (const listener of this.#created) listener(type, created);
    return created;
  }

  /** Told of every object this API creates, once the store has it (the limits count it until an informer does). */
  onCreate(listener: (type: ResourceType, object: KubeObject) => void): void {
    this.#created.push(listener);
  }

  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>): Promise<T> {
    return this.#guard(() => this.#client.update(type, object));
  }

  /**
   * Read-modify-write: `next` reads the object and returns what to write (undefined: nothing to do); a write another
   * writer beat (a controller's status update) is retried on a fresh read, a few times.
   */
  async edit<T extends KubeObject>(
    type: ResourceType,
    next: () => Promise<T | undefined>,
    attempts = 5,
  ): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const object = await next();
      if (object === undefined) return;
      try {
        await this.#client.update(type, object);
        return;
      } catch (error) {
        if (!(error instanceof KubeConflictError) || attempt >= attempts) throw this.#problem(error);
      }
    }
  }

  /** Deletes; `Foreground` (upstream's choice for roots) removes what the object owns before the object itself. */
  async delete(type: ResourceType, id: string, propagationPolicy?: 'Foreground' | 'Background'): Promise<void> {
    await this.#guard(() =>
      this.#client.delete(
        type,
        this.#namespace,
        id,
        propagationPolicy === undefined ? undefined : { propagationPolicy },
      ),
    );
  }

  async #guard<R>(run: () => Promise<R>): Promise<R> {
    try {
      return await run();
    } catch (error) {
      throw this.#problem(error);
    }
  }

  #problem(error: unknown): Problem {
    if (error instanceof Problem) return error;
    if (error instanceof KubeNotFoundError) return problems.notFound('resource');
    if (error instanceof KubeConflictError)
      return problems.conflict('the resource changed meanwhile; read it and retry');
    if (error instanceof KubeAlreadyExistsError) return problems.conflict('the resource already exists');
    if (error instanceof KubeInvalidError) {
      // The API validates first; the store refusing anyway is reported without its text, which names CR fields.
      this.#log?.warn({ err: error }, 'the store refused a write the API accepted');
      return problems.invalid([violation('/spec', 'storeValidation', 'the specification is not valid')]);
    }
    this.#log?.error({ err: error }, 'store request failed');
    return problems.internal();
  }
}

/** Stamps the request's traceparent (when tracing) so the reconciles the create causes continue its trace. */
function withTraceparent(metadata: ObjectMeta): ObjectMeta {
  const traceparent = activeTraceparent();
  if (traceparent === undefined) return metadata;
  return { ...metadata, annotations: { ...metadata.annotations, [TRACEPARENT_ANNOTATION]: traceparent } };
}

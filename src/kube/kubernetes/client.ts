/**
 * The Kubernetes backend of `Client`: a real API server over raw JSON (see transport.ts for why not the typed
 * models). Patch kinds map to their content types, server-side apply sends fieldManager/force on the query
 * string, and every failure arrives as a src/kube/errors.ts class.
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
} from '../client.ts';
import type { KubeObject, ObjectMeta } from '../object.ts';
import { ignoreNotFound } from '../errors.ts';
import { apiVersionOf, type ResourceType } from '../resource-type.ts';
import { errorFromStatus } from './errors.ts';
import { resourcePath } from './paths.ts';
import type { RequestInit, Transport } from './transport.ts';

const contentTypes = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml', // a JSON body is valid YAML
} as const;

/** Page size for list: big lists arrive in consistent pages instead of one huge answer. */
const listPageSize = 500;

interface ListBody {
  readonly items?: unknown[];
  readonly metadata?: { readonly resourceVersion?: string; readonly continue?: string };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function selectorQuery(options: ListOptions): URLSearchParams {
  const query = new URLSearchParams();
  if (options.labelSelector !== undefined && options.labelSelector !== '') {
    query.set('labelSelector', options.labelSelector);
  }
  if (options.fieldSelector !== undefined && options.fieldSelector !== '') {
    query.set('fieldSelector', options.fieldSelector);
  }
  return query;
}

/** The discovery document of an API group (`/apis/<group>`). */
interface APIGroupBody {
  readonly versions?: readonly { readonly version?: string }[];
  readonly preferredVersion?: { readonly version?: string };
}

interface KubernetesClientOptions {
  /** Where a namespaced object without metadata.namespace goes: the kubeconfig context's namespace. */
  readonly defaultNamespace?: string;
}

export class KubernetesClient implements Client {
  readonly #transport: Transport;
  readonly #defaultNamespace: string;

  constructor(transport: Transport, options: KubernetesClientOptions = {}) {
    this.#transport = transport;
    this.#defaultNamespace = options.defaultNamespace ?? 'default';
  }

  /** Drops the connections, open watches included (their iterations end with an error). */
  close(): void {
    this.#transport.close();
  }

  async get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T> {
    const path = resourcePath(type, this.#ns(type, namespace), name);
    return this.#object(type, await this.#call('GET', path)) as T;
  }

  async list<T extends KubeObject>(type: ResourceType<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
    const path = resourcePath(type, options.namespace);
    const items: T[] = [];
    let resourceVersion: string | undefined;
    let token: string | undefined;
    do {
      const query = selectorQuery(options);
      query.set('limit', String(listPageSize));
      if (token !== undefined) query.set('continue', token);
      const page = (await this.#call('GET', path, { query })) as ListBody;
      for (const item of page.items ?? []) items.push(this.#object(type, item) as T);
      // Every page of one list is the same snapshot; the first page's version is the list's.
      resourceVersion ??= page.metadata?.resourceVersion;
      token = page.metadata?.continue === '' ? undefined : page.metadata?.continue;
    } while (token !== undefined);
    return { items, resourceVersion: resourceVersion ?? '' };
  }

  watch<T extends KubeObject>(type: ResourceType<T>, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return this.#watch<T>(type, options);
  }

  async create<T extends KubeObject>(
    type: ResourceType<T>,
    object: NoInfer<T>,
    options: WriteOptions = {},
  ): Promise<T> {
    const path = resourcePath(type, this.#ns(type, object.metadata.namespace));
    return this.#object(type, await this.#call('POST', path, this.#body(object, options))) as T;
  }

  async update<T extends KubeObject>(
    type: ResourceType<T>,
    object: NoInfer<T>,
    options: WriteOptions = {},
  ): Promise<T> {
    const namespace = this.#ns(type, object.metadata.namespace);
    const path = resourcePath(type, namespace, object.metadata.name, options.subresource);
    return this.#object(type, await this.#call('PUT', path, this.#body(object, options))) as T;
  }

  async patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions = {},
  ): Promise<T> {
    const path = resourcePath(type, this.#ns(type, namespace), name, options.subresource);
    const init = { ...this.#body(patch.patch, options), contentType: contentTypes[patch.type] };
    return this.#object(type, await this.#call('PATCH', path, init)) as T;
  }

  async apply<T extends KubeObject>(
    type: ResourceType<T>,
    object: ApplyConfiguration,
    options: ApplyOptions,
  ): Promise<T> {
    const namespace = this.#ns(type, object.metadata.namespace);
    const path = resourcePath(type, namespace, object.metadata.name, options.subresource);
    const query = new URLSearchParams({ fieldManager: options.fieldManager });
    if (options.force === true) query.set('force', 'true');
    if (options.dryRun === true) query.set('dryRun', 'All');
    const init = { query, body: JSON.stringify(object), contentType: contentTypes.apply };
    return this.#object(type, await this.#call('PATCH', path, init)) as T;
  }

  async delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<void> {
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(options.propagationPolicy !== undefined ? { propagationPolicy: options.propagationPolicy } : {}),
      ...(options.preconditions !== undefined ? { preconditions: options.preconditions } : {}),
    };
    await this.#call('DELETE', resourcePath(type, this.#ns(type, namespace), name), { body: JSON.stringify(body) });
  }

  async *#watch<T extends KubeObject>(type: ResourceType<T>, options: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    const signal = options.signal;
    // A function, so the compiler does not carry the first check's narrowing past the awaits.
    const aborted = (): boolean => signal?.aborted === true;
    if (aborted()) return;
    // Without a version the server first replays every object as ADDED; "from now" means from the current version.
    const from =
      options.resourceVersion !== undefined && options.resourceVersion !== ''
        ? options.resourceVersion
        : await this.#currentVersion(type, options);
    const query = selectorQuery(options);
    query.set('watch', '1');
    query.set('resourceVersion', from);
    if (options.allowBookmarks === true) query.set('allowWatchBookmarks', 'true');

    let stream;
    try {
      stream = await this.#transport.stream(resourcePath(type, options.namespace), query, signal);
    } catch (error) {
      if (aborted()) return;
      throw error;
    }
    if (!stream.ok) throw errorFromStatus(stream.status, stream.body);
    try {
      for await (const line of stream.lines) {
        if (line.trim() === '') continue;
        const event: unknown = JSON.parse(line);
        if (!isRecord(event) || typeof event.type !== 'string' || !isRecord(event.object)) {
          throw new Error(`watch ${type.plural}: malformed event ${line.slice(0, 200)}`);
        }
        // A failure mid-stream (e.g. 410 Expired) arrives as an ERROR event carrying a Status.
        if (event.type === 'ERROR') {
          const code = typeof event.object.code === 'number' ? event.object.code : 500;
          throw errorFromStatus(code, event.object);
        }
        if (event.type === 'BOOKMARK') {
          yield { type: 'BOOKMARK', object: event.object as unknown as KubeObject };
        } else if (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED') {
          yield { type: event.type, object: this.#object(type, event.object) as T };
        }
      }
    } catch (error) {
      if (aborted()) return;
      throw error;
    } finally {
      stream.close();
    }
  }

  async servedVersions(group: string, plural: string): Promise<string[]> {
    const discover = (path: string) => ignoreNotFound(this.#call('GET', path));
    const serves = async (path: string) => {
      const list = (await discover(path)) as { resources?: readonly { name?: string }[] } | undefined;
      return list?.resources?.some((r) => r.name === plural) === true;
    };
    if (group === '') return (await serves('/api/v1')) ? ['v1'] : [];
    const body = (await discover(`/apis/${group}`)) as APIGroupBody | undefined;
    const preferred = body?.preferredVersion?.version;
    const versions = (body?.versions ?? []).map((v) => v.version ?? '').filter((v) => v !== '');
    const ordered = [...versions.filter((v) => v === preferred), ...versions.filter((v) => v !== preferred)];
    const served: string[] = [];
    for (const version of ordered) if (await serves(`/apis/${group}/${version}`)) served.push(version);
    return served;
  }

  async #currentVersion(type: ResourceType, options: ListOptions): Promise<string> {
    const query = selectorQuery(options);
    query.set('limit', '1');
    const body = (await this.#call('GET', resourcePath(type, options.namespace), { query })) as ListBody;
    return body.metadata?.resourceVersion ?? '0';
  }

  async #call(method: string, path: string, init?: RequestInit): Promise<unknown> {
    const response = await this.#transport.request(method, path, init);
    if (response.status < 200 || response.status >= 300) throw errorFromStatus(response.status, response.body);
    return response.body === '' ? {} : (JSON.parse(response.body) as unknown);
  }

  #body(value: unknown, options: WriteOptions): RequestInit {
    const query = new URLSearchParams();
    if (options.fieldManager !== undefined) query.set('fieldManager', options.fieldManager);
    return { query, body: JSON.stringify(value) };
  }

  #ns(type: ResourceType, namespace: string | undefined): string | undefined {
    if (!type.namespaced) return undefined;
    return namespace !== undefined && namespace !== '' ? namespace : this.#defaultNamespace;
  }

  /** List items from a real server lack apiVersion and kind; both backends return them filled in. */
  #object(type: ResourceType, value: unknown): KubeObject {
    if (!isRecord(value) || !isRecord(value.metadata)) {
      throw new Error(`${type.kind}: the server answered with something that is not an object`);
    }
    return {
      ...value,
      metadata: value.metadata as unknown as ObjectMeta,
      apiVersion: apiVersionOf(type),
      kind: type.kind,
    };
  }
}

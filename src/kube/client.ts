/**
 * The one interface product code uses to talk to Kubernetes. Two backends implement it: `embedded/` (SQLite, one
 * machine, no cluster) and `kubernetes/` (a real API server through @kubernetes/client-node). Both pass the
 * conformance suite in `test/kube/`, so a controller behaves the same on either.
 */
import type { KubeObject } from './object.ts';
import { ignoreNotFound } from './errors.ts';
import type { ResourceType } from './resource-type.ts';

export interface ListOptions {
  /** Omit for all namespaces (or for cluster-scoped kinds). */
  readonly namespace?: string | undefined;
  /** Kubernetes label selector syntax: `a=b,c!=d,e in (f,g),!h`. */
  readonly labelSelector?: string | undefined;
  /** `metadata.name=x`, `metadata.namespace=y` (what a real server supports for custom resources). */
  readonly fieldSelector?: string | undefined;
}

export interface ObjectList<T extends KubeObject> {
  readonly items: T[];
  /** The list's resourceVersion: watch from here to see every later change. */
  readonly resourceVersion: string;
}

export type WatchEvent<T extends KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  /** Progress without a change: the object carries only metadata.resourceVersion. */
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject };

export interface WatchOptions extends ListOptions {
  /** Start after this version; a version the server no longer has fails with KubeGoneError. */
  readonly resourceVersion?: string | undefined;
  readonly allowBookmarks?: boolean | undefined;
  readonly signal?: AbortSignal | undefined;
}

export type Patch =
  /** RFC 7386 JSON merge patch. */
  | { readonly type: 'merge'; readonly patch: Readonly<Record<string, unknown>> }
  /** RFC 6902 JSON patch. */
  | { readonly type: 'json'; readonly patch: readonly JsonPatchOperation[] };

export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

export interface WriteOptions {
  /** Who is writing: recorded in managedFields. */
  readonly fieldManager?: string | undefined;
  /** Write the status subresource: only `status` changes, and generation does not move. */
  readonly subresource?: 'status' | undefined;
}

export interface ApplyOptions {
  readonly fieldManager: string;
  /** Take fields another manager owns instead of failing with KubeConflictError. */
  readonly force?: boolean | undefined;
  readonly subresource?: 'status' | undefined;
  /** Validate and answer with the result, writing nothing (the API's `dryRun=All`). */
  readonly dryRun?: boolean | undefined;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  /** Delete only if the object still has this uid / resourceVersion (else KubeConflictError). */
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string } | undefined;
}

/** An object to apply: the fields this manager wants to own, with apiVersion, kind and metadata.name. */
export type ApplyConfiguration = KubeObject;

/**
 * Every call takes its object type from the resource type: `get(serverType, …)` is a `Promise<Server>`. Objects
 * written are checked against it (`NoInfer`: the resource type decides, the object does not widen it).
 */
export interface Client {
  get<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T>;
  list<T extends KubeObject>(type: ResourceType<T>, options?: ListOptions): Promise<ObjectList<T>>;
  /** Events after `resourceVersion` (or from now), until the signal aborts or the server ends the stream. */
  watch<T extends KubeObject>(type: ResourceType<T>, options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
  create<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T>;
  /** Replaces the object; fails with KubeConflictError unless metadata.resourceVersion is current. */
  update<T extends KubeObject>(type: ResourceType<T>, object: NoInfer<T>, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options?: WriteOptions,
  ): Promise<T>;
  /** Server-side apply: creates or updates, owning exactly the fields in `object` for `fieldManager`. */
  apply<T extends KubeObject>(type: ResourceType<T>, object: ApplyConfiguration, options: ApplyOptions): Promise<T>;
  /** Deletes, or marks for deletion while finalizers remain; KubeNotFoundError when absent. */
  delete(type: ResourceType, namespace: string | undefined, name: string, options?: DeleteOptions): Promise<void>;
  /**
   * API discovery: the versions of `group` that serve the kind `plural`, the server's preferred version first; empty
   * when none does (the group or the kind is not installed).
   */
  servedVersions(group: string, plural: string): Promise<string[]>;
}

/** The object, or undefined when it does not exist (controller-runtime's `client.IgnoreNotFound` on a get). */
export function getOptional<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  return ignoreNotFound(client.get(type, namespace, name));
}

/**
 * A client whose reads may come from a cache (runtime/cached-client.ts) and that can read an object from the API
 * server itself, for the rare decision a lagging answer must not take.
 */
interface FreshReadingClient extends Client {
  getFresh<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): Promise<T>;
}

/** The object as the API server holds it now, or undefined: a cached client's live read, another client's get. */
export function getFreshOptional<T extends KubeObject>(
  client: Client,
  type: ResourceType<T>,
  namespace: string | undefined,
  name: string,
): Promise<T | undefined> {
  const reader = client as Partial<FreshReadingClient>;
  const read =
    reader.getFresh === undefined ? client.get(type, namespace, name) : reader.getFresh(type, namespace, name);
  return ignoreNotFound(read);
}

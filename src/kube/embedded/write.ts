/**
 * The write paths: create, update, patch, apply and delete, each one transaction. System metadata (uid,
 * creationTimestamp, generation, resourceVersion, deletionTimestamp, managedFields) is the store's; the rest is the
 * caller's. A write that changes nothing is not stored, so it wakes no watch, as on a real server.
 */
import type { ApplyOptions, DeleteOptions, Patch, WriteOptions } from '../client.ts';
import {
  KubeAlreadyExistsError,
  KubeBadRequestError,
  KubeConflictError,
  KubeForbiddenError,
  KubeNotFoundError,
} from '../errors.ts';
import type { KubeObject, ObjectMeta } from '../object.ts';
import { apiVersionOf, type ResourceType } from '../resource-type.ts';
import type { Clock } from '../../util/clock.ts';
import type { Db } from './db.ts';
import {
  applyFields,
  describePath,
  entriesFrom,
  entriesTo,
  recordUpdate,
  type FieldPath,
  type OwnedEntry,
} from './fields.ts';
import { deepEqual, isPlainObject, jsonEqual, type JsonObject } from './json.ts';
import { CRD_RESOURCE, type Kind, type Kinds } from './kinds.ts';
import { invalid, prepareForKind, validateMetadata } from './meta.ts';
import { jsonPatch, mergePatch } from './patch.ts';

/** Thrown to end a dry run's transaction, rolling back what it wrote. */
const ROLL_BACK = new Error('dry run: rolled back');

/** Finalizers the garbage collector owns, as kube-controller-manager names them. */
export const FOREGROUND = 'foregroundDeletion';
export const ORPHAN = 'orphan';
const DEFAULT_MANAGER = 'openregion';

interface WriterDeps {
  readonly db: Db;
  readonly kinds: Kinds;
  readonly clock: Clock;
  readonly newUid: () => string;
  /** Five characters for generateName, as the API server appends them. */
  readonly nameSuffix: () => string;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Which field paths a write through `subresource` may touch and own. */
function scope(kind: Kind, subresource: string | undefined): (p: FieldPath) => boolean {
  if (subresource === 'status') return (p) => p[0] === 'status';
  if (kind.statusSubresource) return (p) => p[0] !== 'status';
  return () => true;
}

export class Writer {
  constructor(private readonly d: WriterDeps) {}

  #now(): string {
    return rfc3339(this.d.clock.now());
  }

  #namespace(kind: Kind, namespace: string | undefined): string {
    if (!kind.type.namespaced) return '';
    if (namespace === undefined || namespace === '')
      throw new KubeBadRequestError(`${kind.type.kind} is namespaced: a namespace is required`);
    return namespace;
  }

  #load(kind: Kind, namespace: string, name: string): KubeObject {
    const row = this.d.db.get(kind.resource, namespace, name);
    if (row === undefined) throw new KubeNotFoundError(`${kind.resource} "${name}" not found`);
    return this.d.db.parse(row);
  }

  #checkNamespace(kind: Kind, namespace: string): void {
    if (!kind.type.namespaced) return;
    const row = this.d.db.get('namespaces', '', namespace);
    if (row === undefined) throw new KubeNotFoundError(`namespaces "${namespace}" not found`);
    if ((JSON.parse(row.body) as KubeObject).metadata.deletionTimestamp !== undefined) {
      throw new KubeForbiddenError(
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
    }
  }

  #checkTypeOf(kind: Kind, object: KubeObject): void {
    const apiVersion = apiVersionOf(kind.type);
    if ((object.apiVersion && object.apiVersion !== apiVersion) || (object.kind && object.kind !== kind.type.kind)) {
      throw new KubeBadRequestError(
        `${object.apiVersion}/${object.kind} does not match the endpoint ${apiVersion}/${kind.type.kind}`,
      );
    }
  }

  create(type: ResourceType, object: KubeObject, options: WriteOptions = {}): KubeObject {
    return this.d.db.write(() => {
      const kind = this.d.kinds.resolve(type);
      if (options.subresource !== undefined) throw new KubeBadRequestError('create does not take a subresource');
      this.#checkTypeOf(kind, object);
      const namespace = this.#namespace(kind, object.metadata.namespace);
      this.#checkNamespace(kind, namespace);
      const name =
        object.metadata.name ||
        (object.metadata.generateName ? object.metadata.generateName + this.d.nameSuffix() : '');
      if (this.d.db.get(kind.resource, namespace, name)) throw this.#exists(kind, name);
      const next = this.#fresh(kind, object, namespace, name);
      const manager = options.fieldManager ?? DEFAULT_MANAGER;
      return this.#persist(kind, undefined, next, (prepared) =>
        recordUpdate([], undefined, prepared, manager, undefined, this.#now(), scope(kind, undefined)),
      );
    });
  }

  #exists(kind: Kind, name: string): KubeAlreadyExistsError {
    return new KubeAlreadyExistsError(`${kind.resource} "${name}" already exists`);
  }

  /** A new object's metadata: the caller's fields plus the server's, status dropped where a subresource owns it. */
  #fresh(kind: Kind, object: KubeObject, namespace: string, name: string): KubeObject {
    const m = object.metadata;
    const meta: ObjectMeta = {
      ...pickUserMeta(m),
      name,
      ...(kind.type.namespaced ? { namespace } : {}),
      uid: this.d.newUid(),
      creationTimestamp: this.#now(),
      ...(hasGeneration(kind) ? { generation: 1 } : {}),
    };
    const next: Record<string, unknown> = {
      ...object,
      apiVersion: apiVersionOf(kind.type),
      kind: kind.type.kind,
      metadata: meta,
    };
    if (kind.statusSubresource) delete next.status;
    return next as KubeObject;
  }

  update(type: ResourceType, object: KubeObject, options: WriteOptions = {}): KubeObject {
    return this.d.db.write(() => {
      const kind = this.d.kinds.resolve(type);
      this.#checkTypeOf(kind, object);
      const namespace = this.#namespace(kind, object.metadata.namespace);
      const old = this.#load(kind, namespace, object.metadata.name);
      const rv = object.metadata.resourceVersion;
      if (rv === undefined || rv === '') {
        throw invalid(kind, object.metadata.name, [
          {
            field: 'metadata.resourceVersion',
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
          },
        ]);
      }
      if (rv !== old.metadata.resourceVersion) throw this.#conflict(kind, object.metadata.name);
      return this.#updateFrom(kind, old, object, options.subresource, options.fieldManager ?? DEFAULT_MANAGER);
    });
  }

  #conflict(kind: Kind, name: string): KubeConflictError {
    return new KubeConflictError(
      `Operation cannot be fulfilled on ${kind.resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    );
  }

  #updateFrom(
    kind: Kind,
    old: KubeObject,
    object: KubeObject,
    subresource: string | undefined,
    manager: string,
  ): KubeObject {
    if (subresource === 'status' && !kind.statusSubresource)
      throw new KubeNotFoundError(`${kind.resource} has no status subresource`);
    const next = this.#merged(kind, old, object, subresource);
    return this.#persist(kind, old, next, (prepared) =>
      recordUpdate(
        entriesFrom(old.metadata.managedFields),
        old,
        prepared,
        manager,
        subresource,
        this.#now(),
        scope(kind, subresource),
      ),
    );
  }

  /** The caller's object with the server's metadata restored, and only the fields its subresource may write. */
  #merged(kind: Kind, old: KubeObject, object: KubeObject, subresource: string | undefined): KubeObject {
    if (subresource === 'status') {
      const next: Record<string, unknown> = { ...old };
      if (object.status === undefined) delete next.status;
      else next.status = object.status;
      return next as KubeObject;
    }
    const next: Record<string, unknown> = {
      ...object,
      apiVersion: old.apiVersion,
      kind: old.kind,
      metadata: { ...pickUserMeta(object.metadata), ...serverMeta(old.metadata) },
    };
    if (kind.statusSubresource) {
      if (old.status === undefined) delete next.status;
      else next.status = old.status;
    }
    return next as KubeObject;
  }

  /** Validates, prepares, bumps generation, records ownership and stores; a no-op returns the stored object. */
  #persist(
    kind: Kind,
    old: KubeObject | undefined,
    next: KubeObject,
    track: (prepared: KubeObject) => OwnedEntry[],
  ): KubeObject {
    const causes = validateMetadata(kind, next.metadata, old?.metadata);
    if (causes.length > 0) throw invalid(kind, next.metadata.name, causes);
    let prepared = prepareForKind(kind, next, old);
    if (old && hasGeneration(kind) && specChanged(kind, old, prepared)) {
      prepared = { ...prepared, metadata: { ...prepared.metadata, generation: (old.metadata.generation ?? 0) + 1 } };
    }
    const managedFields = entriesTo(track(prepared), prepared);
    const withFields: KubeObject = { ...prepared, metadata: { ...prepared.metadata, managedFields } };
    if (old && sameContent(old, withFields)) return old;
    if (withFields.metadata.deletionTimestamp !== undefined && (withFields.metadata.finalizers ?? []).length === 0) {
      this.d.db.remove(kind.resource, withFields);
      return withFields;
    }
    return this.d.db.put(kind.resource, withFields, old ? 'MODIFIED' : 'ADDED', old);
  }

  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: Patch,
    options: WriteOptions = {},
  ): KubeObject {
    return this.d.db.write(() => {
      const kind = this.d.kinds.resolve(type);
      const ns = this.#namespace(kind, namespace);
      const old = this.#load(kind, ns, name);
      const patched = patch.type === 'merge' ? mergePatch(old, patch.patch) : jsonPatch(old, patch.patch);
      if (!isPlainObject(patched) || !isPlainObject(patched.metadata))
        throw new KubeBadRequestError('the patch must leave an object with metadata');
      const object = patched as unknown as KubeObject;
      if (object.metadata.resourceVersion !== old.metadata.resourceVersion) throw this.#conflict(kind, name);
      if (object.metadata.name !== name || (object.metadata.namespace ?? '') !== ns)
        throw new KubeBadRequestError('a patch may not change the name or namespace');
      return this.#updateFrom(kind, old, object, options.subresource, options.fieldManager ?? DEFAULT_MANAGER);
    });
  }

  apply(type: ResourceType, object: KubeObject, options: ApplyOptions): KubeObject {
    if (options.dryRun !== true) return this.#apply(type, object, options);
    // A dry run is the whole apply, validation and all, in a transaction rolled back: what it would have written.
    let wouldBe: KubeObject | undefined;
    try {
      this.d.db.write(() => {
        wouldBe = this.#apply(type, object, options);
        throw ROLL_BACK;
      });
    } catch (error) {
      if (error !== ROLL_BACK) throw error;
    }
    return wouldBe as KubeObject;
  }

  #apply(type: ResourceType, object: KubeObject, options: ApplyOptions): KubeObject {
    return this.d.db.write(() => {
      const kind = this.d.kinds.resolve(type);
      if (!object.apiVersion || !object.kind || !object.metadata.name) {
        throw invalid(kind, object.metadata.name, [
          {
            field: 'metadata.name',
            reason: 'FieldValueRequired',
            message: 'Required value: apply needs apiVersion, kind and metadata.name',
          },
        ]);
      }
      this.#checkTypeOf(kind, object);
      const namespace = this.#namespace(kind, object.metadata.namespace);
      const row = this.d.db.get(kind.resource, namespace, object.metadata.name);
      const old = row ? this.d.db.parse(row) : undefined;
      const rv = object.metadata.resourceVersion;
      if (rv !== undefined && rv !== old?.metadata.resourceVersion) throw this.#conflict(kind, object.metadata.name);
      if (old === undefined) {
        if (options.subresource === 'status')
          throw new KubeNotFoundError(`${kind.resource} "${object.metadata.name}" not found`);
        this.#checkNamespace(kind, namespace);
      }
      if (options.subresource === 'status' && !kind.statusSubresource)
        throw new KubeNotFoundError(`${kind.resource} has no status subresource`);
      const base =
        old ??
        this.#fresh(
          kind,
          { apiVersion: object.apiVersion, kind: object.kind, metadata: { name: object.metadata.name } },
          namespace,
          object.metadata.name,
        );
      const result = applyFields(
        base,
        object,
        entriesFrom(base.metadata.managedFields),
        options.fieldManager,
        options.subresource,
        options.force === true,
        this.#now(),
        scope(kind, options.subresource),
      );
      if (result.conflicts.length > 0 && options.force !== true) {
        const list = result.conflicts.map((c) => `conflict with "${c.manager}": ${describePath(c.path)}`);
        throw new KubeConflictError(
          `Apply failed with ${result.conflicts.length} conflict${result.conflicts.length > 1 ? 's' : ''}: ${list.join(', ')}`,
        );
      }
      const merged = result.object as unknown as KubeObject;
      const next: KubeObject = {
        ...merged,
        metadata: { ...pickUserMeta(merged.metadata), ...serverMeta(base.metadata) },
      };
      return this.#persist(kind, old, next, () => result.entries);
    });
  }

  delete(type: ResourceType, namespace: string | undefined, name: string, options: DeleteOptions = {}): void {
    this.d.db.write(() => {
      const kind = this.d.kinds.resolve(type);
      const ns = this.#namespace(kind, namespace);
      const old = this.#load(kind, ns, name);
      const pre = options.preconditions;
      if (
        (pre?.uid !== undefined && pre.uid !== old.metadata.uid) ||
        (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion)
      ) {
        throw new KubeConflictError(
          `Operation cannot be fulfilled on ${kind.resource} "${name}": the precondition does not match`,
        );
      }
      this.deleteObject(kind.resource, old, options.propagationPolicy ?? 'Background');
    });
  }

  /** Deletion inside a transaction, shared with the garbage collector. */
  deleteObject(resource: string, old: KubeObject, policy: 'Foreground' | 'Background' | 'Orphan'): void {
    const finalizers = [...(old.metadata.finalizers ?? [])];
    if (resource === 'namespaces') {
      if (old.metadata.deletionTimestamp === undefined) {
        this.#markDeleting(resource, old, finalizers, {
          ...(old.status as JsonObject | undefined),
          phase: 'Terminating',
        });
      }
      return;
    }
    if (old.metadata.deletionTimestamp === undefined) {
      if (policy === 'Foreground' && !finalizers.includes(FOREGROUND)) finalizers.push(FOREGROUND);
      if (policy === 'Orphan' && !finalizers.includes(ORPHAN)) finalizers.push(ORPHAN);
    }
    if (finalizers.length === 0) {
      if (resource === CRD_RESOURCE) this.#dropCustomResources(old);
      this.d.db.remove(resource, old);
      return;
    }
    if (old.metadata.deletionTimestamp === undefined) this.#markDeleting(resource, old, finalizers, old.status);
  }

  #markDeleting(resource: string, old: KubeObject, finalizers: string[], status: unknown): void {
    const generation = old.metadata.generation;
    const next: Record<string, unknown> = {
      ...old,
      metadata: {
        ...old.metadata,
        deletionTimestamp: this.#now(),
        deletionGracePeriodSeconds: 0,
        ...(finalizers.length > 0 ? { finalizers } : {}),
        ...(generation !== undefined ? { generation: generation + 1 } : {}),
      },
    };
    if (status !== undefined) next.status = status;
    this.d.db.put(resource, next as KubeObject, 'MODIFIED', old);
  }

  #dropCustomResources(crd: KubeObject): void {
    for (const row of this.d.db.list(crd.metadata.name, undefined))
      this.d.db.remove(row.resource, this.d.db.parse(row));
  }

  /** A metadata-only edit by the garbage collector: no generation bump, deletion once no finalizer is left. */
  editMetadata(uid: string, edit: (meta: ObjectMeta) => ObjectMeta): void {
    this.d.db.write(() => {
      const row = this.d.db.byUid(uid);
      if (row === undefined) return;
      const old = this.d.db.parse(row);
      const next: KubeObject = { ...old, metadata: withoutEmptyLists(edit(old.metadata)) };
      if (deepEqual(next.metadata, old.metadata)) return;
      if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
        this.d.db.remove(row.resource, next);
      } else {
        this.d.db.put(row.resource, next, 'MODIFIED', old);
      }
    });
  }

  /** Deletes by uid with a propagation policy; absent objects are already done. */
  deleteUid(uid: string, policy: 'Foreground' | 'Background'): void {
    this.d.db.write(() => {
      const row = this.d.db.byUid(uid);
      if (row) this.deleteObject(row.resource, this.d.db.parse(row), policy);
    });
  }

  /** Removes a namespace whose contents are all gone. */
  finishNamespace(name: string): void {
    this.d.db.write(() => {
      const row = this.d.db.get('namespaces', '', name);
      if (row === undefined || this.d.db.inNamespace(name).length > 0) return;
      const ns = this.d.db.parse(row);
      if (ns.metadata.deletionTimestamp === undefined || (ns.metadata.finalizers ?? []).length > 0) return;
      this.d.db.remove('namespaces', ns);
    });
  }
}

function hasGeneration(kind: Kind): boolean {
  return kind.custom !== undefined || kind.resource === CRD_RESOURCE;
}

/** The metadata a client may set. */
function pickUserMeta(m: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = { name: m.name };
  for (const k of ['namespace', 'generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const) {
    const v = m[k];
    if (v !== undefined && !(Array.isArray(v) && v.length === 0) && !(isPlainObject(v) && Object.keys(v).length === 0))
      out[k] = v;
  }
  return out as unknown as ObjectMeta;
}

/** The metadata only the server sets, carried over from the stored object. */
function serverMeta(m: ObjectMeta): Partial<ObjectMeta> {
  const out: Record<string, unknown> = { name: m.name };
  for (const k of [
    'namespace',
    'uid',
    'generation',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'managedFields',
  ] as const) {
    if (m[k] !== undefined) out[k] = m[k];
  }
  return out;
}

function specChanged(kind: Kind, old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): JsonObject => {
    const copy: JsonObject = { ...o };
    delete copy.metadata;
    if (kind.statusSubresource) delete copy.status;
    return copy;
  };
  return !deepEqual(strip(old), strip(next));
}

function sameContent(old: KubeObject, next: KubeObject): boolean {
  const strip = (o: KubeObject): JsonObject => {
    const meta: JsonObject = { ...o.metadata };
    delete meta.resourceVersion;
    meta.managedFields = (o.metadata.managedFields ?? []).map((e) => ({ ...e, time: undefined }));
    return { ...o, metadata: meta };
  };
  return jsonEqual(strip(old), strip(next));
}

/** Kubernetes omits an empty finalizers or ownerReferences list. */
function withoutEmptyLists(meta: ObjectMeta): ObjectMeta {
  const out: Record<string, unknown> = { ...meta };
  for (const k of ['finalizers', 'ownerReferences'] as const) if (meta[k]?.length === 0) Reflect.deleteProperty(out, k);
  return out as unknown as ObjectMeta;
}

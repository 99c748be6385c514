/**
 * Field ownership for server-side apply, in Kubernetes' FieldsV1 form. Lists are atomic (a list is one field), which
 * is all Secrets and openregion's custom resources need; maps are owned key by key.
 */
import type { ManagedFieldsEntry } from '../object.ts';
import { deepEqual, isPlainObject, type JsonObject } from './json.ts';

export type FieldPath = readonly string[];

/** Metadata fields a manager can own; the rest of metadata is the server's. */
const OWNABLE_METADATA = new Set(['labels', 'annotations', 'finalizers', 'ownerReferences', 'generateName']);

/** The leaf paths of the fields an object sets: scalars, lists and empty maps. */
export function leafPaths(object: JsonObject, include: (path: FieldPath) => boolean = () => true): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (isPlainObject(value) && Object.keys(value).length > 0) {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    } else if (include(path)) out.push(path);
  };
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind') continue;
    if (key === 'metadata') {
      for (const [mk, mv] of Object.entries(isPlainObject(value) ? value : {})) {
        if (OWNABLE_METADATA.has(mk)) walk(mv, ['metadata', mk]);
      }
    } else walk(value, [key]);
  }
  return out;
}

function getPath(object: unknown, path: FieldPath): unknown {
  let cur = object;
  for (const k of path) {
    if (!isPlainObject(cur) || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/** Sets a value, creating maps on the way; `object` is mutated (callers pass their own copy). */
function setPath(object: JsonObject, path: FieldPath, value: unknown): void {
  let cur = object;
  path.forEach((k, i) => {
    if (i === path.length - 1) {
      // An empty map applied over an existing map owns the map, not the keys other managers put in it.
      if (isPlainObject(value) && Object.keys(value).length === 0 && isPlainObject(cur[k])) return;
      cur[k] = value;
      return;
    }
    const next = cur[k];
    if (!isPlainObject(next)) cur[k] = {};
    cur = cur[k] as JsonObject;
  });
}

function deletePath(object: JsonObject, path: FieldPath): void {
  const parent = getPath(object, path.slice(0, -1));
  const last = path[path.length - 1];
  if (isPlainObject(parent) && last !== undefined) Reflect.deleteProperty(parent, last);
}

/** Two paths overlap when one is the other or contains it. */
function overlaps(a: FieldPath, b: FieldPath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function toFieldsV1(paths: readonly FieldPath[]): JsonObject {
  const root: JsonObject = {};
  for (const path of paths) {
    let cur = root;
    for (const k of path) {
      const key = `f:${k}`;
      if (!isPlainObject(cur[key])) cur[key] = {};
      cur = cur[key] as JsonObject;
    }
  }
  return root;
}

/** The leaf paths a FieldsV1 set names; `.` marks a node owned in itself besides its children. */
export function fromFieldsV1(fields: Readonly<Record<string, unknown>>): FieldPath[] {
  const out: FieldPath[] = [];
  const walk = (node: Readonly<Record<string, unknown>>, path: string[]): void => {
    const children = Object.entries(node).filter(([k]) => k.startsWith('f:'));
    if (children.length === 0 || Object.hasOwn(node, '.')) {
      if (path.length > 0) out.push(path);
    }
    for (const [k, v] of children) walk(isPlainObject(v) ? v : {}, [...path, k.slice(2)]);
  };
  walk(fields, []);
  return out;
}

export interface OwnedEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  subresource: string | undefined;
  apiVersion: string;
  time: string | undefined;
  paths: FieldPath[];
}

export function entriesFrom(managed: readonly ManagedFieldsEntry[] | undefined): OwnedEntry[] {
  return (managed ?? []).map((e) => ({
    manager: e.manager,
    operation: e.operation,
    subresource: e.subresource,
    apiVersion: e.apiVersion,
    time: e.time,
    paths: fromFieldsV1(e.fieldsV1),
  }));
}

export function entriesTo(entries: readonly OwnedEntry[], object: JsonObject): ManagedFieldsEntry[] {
  return entries
    .map((e) => ({ ...e, paths: e.paths.filter((p) => getPath(object, p) !== undefined) }))
    .filter((e) => e.paths.length > 0)
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time === undefined ? {} : { time: e.time }),
      fieldsType: 'FieldsV1' as const,
      fieldsV1: toFieldsV1(e.paths),
      ...(e.subresource === undefined ? {} : { subresource: e.subresource }),
    }));
}

function sameEntry(e: OwnedEntry, manager: string, operation: string, subresource: string | undefined): boolean {
  return e.manager === manager && e.operation === operation && e.subresource === subresource;
}

function entryFor(
  entries: OwnedEntry[],
  manager: string,
  operation: 'Apply' | 'Update',
  subresource: string | undefined,
  apiVersion: string,
  time: string,
): OwnedEntry {
  const found = entries.find((e) => sameEntry(e, manager, operation, subresource));
  if (found) {
    found.time = time;
    found.apiVersion = apiVersion;
    return found;
  }
  const created: OwnedEntry = { manager, operation, subresource, apiVersion, time, paths: [] };
  entries.push(created);
  return created;
}

/**
 * Ownership after a non-apply write: the writer owns every field it changed, and nobody else keeps a field whose
 * value changed under them (so a later forced apply is what takes it back).
 */
export function recordUpdate(
  entries: OwnedEntry[],
  before: JsonObject | undefined,
  after: JsonObject,
  manager: string,
  subresource: string | undefined,
  time: string,
  include: (path: FieldPath) => boolean,
): OwnedEntry[] {
  const candidates = [...leafPaths(after, include), ...(before ? leafPaths(before, include) : [])];
  const changed = candidates.filter((p) => !deepEqual(getPath(before, p), getPath(after, p)));
  if (changed.length === 0) return entries;
  for (const e of entries) e.paths = e.paths.filter((q) => !changed.some((p) => overlaps(p, q)));
  const mine = entryFor(entries, manager, 'Update', subresource, String(after.apiVersion), time);
  for (const p of changed) {
    if (getPath(after, p) !== undefined && !mine.paths.some((q) => deepEqual(q, p))) mine.paths.push(p);
  }
  return entries;
}

interface ApplyConflict {
  readonly manager: string;
  readonly path: FieldPath;
}

interface ApplyResult {
  readonly object: JsonObject;
  readonly entries: OwnedEntry[];
  readonly conflicts: readonly ApplyConflict[];
}

/**
 * Server-side apply: merge the applied fields into `current`, compute conflicts with other managers, take them when
 * `force`, and remove fields this manager applied before, stopped applying, and nobody else owns.
 */
export function applyFields(
  current: JsonObject,
  applied: JsonObject,
  entries: OwnedEntry[],
  manager: string,
  subresource: string | undefined,
  force: boolean,
  time: string,
  include: (path: FieldPath) => boolean,
): ApplyResult {
  const fields = leafPaths(applied, include);
  const result = structuredClone(current);
  for (const p of fields) setPath(result, p, structuredClone(getPath(applied, p)));

  const others = entries.filter((e) => !sameEntry(e, manager, 'Apply', subresource));
  const conflicts: ApplyConflict[] = [];
  for (const e of others) {
    for (const q of e.paths) {
      if (fields.some((p) => overlaps(p, q)) && !deepEqual(getPath(current, q), getPath(result, q))) {
        conflicts.push({ manager: e.manager, path: q });
      }
    }
  }
  if (conflicts.length > 0 && !force) return { object: current, entries, conflicts };
  for (const e of others) {
    e.paths = e.paths.filter((q) => !conflicts.some((c) => c.manager === e.manager && deepEqual(c.path, q)));
  }

  const mine = entryFor(entries, manager, 'Apply', subresource, String(applied.apiVersion), time);
  for (const p of mine.paths) {
    const stillApplied = fields.some((f) => overlaps(f, p));
    const ownedElsewhere = others.some((e) => e.paths.some((q) => overlaps(p, q)));
    if (!stillApplied && !ownedElsewhere) deletePath(result, p);
  }
  mine.paths = fields;
  return { object: result, entries, conflicts };
}

export function describePath(path: FieldPath): string {
  return path.map((k) => `.${k}`).join('');
}

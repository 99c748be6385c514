/**
 * What Neutron's route modules share: state, routing with authentication, Neutron's faults, the standard
 * attributes every resource shows, and list handling (attribute filters, tag filters, `fields`, `*_links` paging).
 */
import { isAdmin, type AuthContext } from '../auth.ts';
import type { ServiceContext } from '../context.ts';
import { neutronFault } from '../faults.ts';
import type { EmuFault, EmuRequest, EmuResponse, Method } from '../http.ts';
import { isoSeconds, stringAt, type JsonObject } from '../json.ts';
import type { NeutronState, QuotaResource, Standard } from './state.ts';

export const PREFIX = '/network/v2.0';

type NeutronHandler = (req: EmuRequest, auth: AuthContext) => EmuResponse | Promise<EmuResponse>;

export interface NeutronApi {
  readonly state: NeutronState;
  readonly ctx: ServiceContext;
  /** Registers an authenticated route below `/network/v2.0`. */
  readonly route: (method: Method, path: string, handler: NeutronHandler) => void;
  /** A project's `default` security group, made on first use as Neutron does. */
  readonly defaultGroup: (projectID: string) => string;
}

export const fault = (status: number, type: string, message: string): EmuFault => neutronFault(status, type, message);
export const notFound = (type: string, message: string): EmuFault => fault(404, type, message);
export const badRequest = (message: string): EmuFault =>
  fault(400, 'InvalidInput', `Invalid input for operation: ${message}`);
export const policy = (rule: string): EmuFault => fault(403, 'PolicyNotAuthorized', `${rule} is disallowed by policy`);

/**
 * Who owns what the caller creates: its own project, or (admin only) the `project_id` it names. Neutron refuses a
 * non-admin naming another project before any policy check (neutron_lib's _validate_privileges): a 400.
 */
export function ownerOf(auth: AuthContext, body: JsonObject): string {
  const asked = typeof body.project_id === 'string' ? body.project_id : body.tenant_id;
  if (typeof asked === 'string' && asked !== auth.projectId) {
    if (!isAdmin(auth)) {
      throw fault(
        400,
        'HTTPBadRequest',
        "Specifying 'project_id' or 'tenant_id' other than the authenticated project in request requires admin or advsvc privileges",
      );
    }
    return asked;
  }
  return auth.projectId ?? '';
}

/** A new resource's standard attributes: a fresh id, the name and description the body gives, no tags. */
export function newStandard(api: NeutronApi, projectID: string, body: JsonObject, revision: 0 | 1): Standard {
  const now = api.ctx.clock.now();
  return {
    id: api.ctx.newID(),
    projectId: projectID,
    name: stringAt(body, 'name') ?? '',
    description: stringAt(body, 'description') ?? '',
    tags: [],
    createdAt: now,
    updatedAt: now,
    revision,
  };
}

/** The attributes every standard-attr resource shows. */
export function standardView(resource: Standard): JsonObject {
  return {
    id: resource.id,
    name: resource.name,
    description: resource.description,
    tenant_id: resource.projectId,
    project_id: resource.projectId,
    tags: [...resource.tags],
    created_at: isoSeconds(resource.createdAt),
    updated_at: isoSeconds(resource.updatedAt),
    revision_number: resource.revision,
  };
}

export function touch(api: NeutronApi, resource: Standard): void {
  resource.updatedAt = api.ctx.clock.now();
  resource.revision++;
}

/** Refuses a create that would take the project past its quota: Neutron's 409 OverQuota. */
export function quotaCheck(api: NeutronApi, projectID: string, resource: QuotaResource, used: number): void {
  const limit = api.state.quota(projectID, resource);
  if (limit >= 0 && used + 1 > limit) {
    throw fault(409, 'OverQuota', `Quota exceeded for resources: ['${resource}'].`);
  }
}

const CONTROL_PARAMS = new Set([
  'limit',
  'marker',
  'page_reverse',
  'sort_key',
  'sort_dir',
  'fields',
  'tags',
  'tags-any',
  'not-tags',
  'not-tags-any',
]);

/** Whether a view value matches a filter value; strings compare case-insensitively, as MariaDB's collation does. */
function matches(value: unknown, wanted: string): boolean {
  if (typeof value === 'string') return value.toLowerCase() === wanted.toLowerCase();
  if (typeof value === 'boolean') return String(value) === wanted.toLowerCase();
  if (typeof value === 'number') return String(value) === wanted;
  if (value === null) return wanted === '' || wanted.toLowerCase() === 'none';
  return false;
}

const tagsOf = (req: EmuRequest, key: string): string[] =>
  req.query.getAll(key).flatMap((v) => v.split(',').filter((t) => t.length > 0));

/**
 * A list answer: `items` (already visible to the caller) as views, filtered by any attribute the view shows (a
 * repeated parameter is any-of), by tags, cut to `fields`, and paged by id with `limit` and `marker`. A page of
 * exactly `limit` items carries a next link, as Neutron's does.
 */
export function listAnswer<T extends Standard>(
  api: NeutronApi,
  req: EmuRequest,
  collection: string,
  items: Iterable<T>,
  view: (item: T) => JsonObject,
): EmuResponse {
  const all = tagsOf(req, 'tags');
  const any = tagsOf(req, 'tags-any');
  const notAll = tagsOf(req, 'not-tags');
  const notAny = tagsOf(req, 'not-tags-any');
  const filters = [...new Set(req.query.keys())].filter((k) => !CONTROL_PARAMS.has(k));
  let rows = [...items]
    .filter(
      (item) =>
        all.every((t) => item.tags.includes(t)) &&
        (any.length === 0 || any.some((t) => item.tags.includes(t))) &&
        !(notAll.length > 0 && notAll.every((t) => item.tags.includes(t))) &&
        !notAny.some((t) => item.tags.includes(t)),
    )
    .map((item) => ({ id: item.id, body: view(item) }))
    .filter(({ body }) => filters.every((k) => !(k in body) || req.query.getAll(k).some((v) => matches(body[k], v))));
  const limitText = req.query.get('limit');
  const marker = req.query.get('marker');
  const limit = limitText === null ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0))
    throw badRequest(`Bad limit request: ${limitText ?? ''}`);
  const paged = limit !== undefined || marker !== null;
  if (paged) rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (marker !== null) rows = rows.filter((r) => r.id > marker);
  const body: JsonObject = {};
  if (limit !== undefined && limit > 0 && rows.length >= limit) {
    rows = rows.slice(0, limit);
    const last = rows.at(-1)?.id ?? '';
    const query = new URLSearchParams(req.query);
    query.set('limit', String(limit));
    query.set('marker', last);
    query.delete('page_reverse');
    const href = `${api.ctx.origin()}${req.path}?${query.toString()}`;
    body[`${collection}_links`] = [
      { rel: 'next', href },
      { rel: 'previous', href: `${href}&page_reverse=True` },
    ];
  }
  const fields = req.query.getAll('fields');
  body[collection] = rows.map(({ body: b }) =>
    fields.length === 0 ? b : Object.fromEntries(Object.entries(b).filter(([k]) => fields.includes(k))),
  );
  return { status: 200, body };
}

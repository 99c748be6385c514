/** Volume types (admin-made; `volume_type_links` paging), quota sets with per-type keys, availability zones. */
import { hasRole, isAdmin, type AuthContext } from '../auth.ts';
import { novaFault } from '../faults.ts';
import { json } from '../http.ts';
import { booleanAt, isObject, objectAt, stringAt, stringMapAt, type JsonObject } from '../json.ts';
import { badRequest, forbidden, notFound, page, type CinderApi } from './api.ts';
import type { CType } from './state.ts';

function typeView(t: CType, auth: AuthContext): JsonObject {
  return {
    id: t.id,
    name: t.name,
    is_public: t.isPublic,
    description: t.description,
    // Extra specs are the operator's: only admins see them.
    ...(isAdmin(auth) ? { extra_specs: { ...t.extraSpecs } } : {}),
    qos_specs_id: null,
    'os-volume-type-access:is_public': t.isPublic,
  };
}

/** Cinder's `__DEFAULT__` type, which every deployment has. */
export function defaultType(api: CinderApi): CType {
  const t: CType = {
    id: api.ctx.newID(),
    name: '__DEFAULT__',
    description: 'Default Volume Type',
    isPublic: true,
    extraSpecs: {},
  };
  api.state.types.set(t.id, t);
  return t;
}

export function registerTypes(api: CinderApi): void {
  const { state } = api;
  const typeFor = (auth: AuthContext, id: string): CType => {
    const t = state.types.get(id);
    if (!t || (!t.isPublic && !isAdmin(auth))) throw notFound(`Volume type ${id} could not be found.`);
    return t;
  };
  api.route('GET', '/types', (req, { auth }) => {
    // Public only unless an admin asks otherwise: `is_public=false` private only, `is_public=None` both.
    const asked = (req.query.get('is_public') ?? 'true').toLowerCase();
    const rows = [...state.types.values()]
      .filter((t) => (isAdmin(auth) && asked === 'none') || t.isPublic === (isAdmin(auth) ? asked !== 'false' : true))
      .sort((a, b) => (a.name < b.name ? 1 : -1))
      .map((t) => ({ id: t.id, body: typeView(t, auth) }));
    return page(api.ctx, req, rows, 'volume_types', 'volume_type_links');
  });
  api.route('GET', '/types/{type_id}', (req, { auth }) =>
    json({ volume_type: typeView(typeFor(auth, req.params.type_id ?? ''), auth) }),
  );
  api.route('POST', '/types', (req, { auth }) => {
    if (!isAdmin(auth)) throw forbidden('volume_extension:types_manage');
    const body = objectAt(req.body, 'volume_type');
    const name = stringAt(body, 'name');
    if (!body || name === undefined || name.trim() === '') throw badRequest('Volume type name can not be empty.');
    if (state.typeByRef(name)) throw novaFault(409, `Volume Type ${name} already exists.`);
    const t: CType = {
      id: api.ctx.newID(),
      name,
      description: stringAt(body, 'description') ?? null,
      isPublic: booleanAt(body, 'os-volume-type-access:is_public') ?? booleanAt(body, 'is_public') ?? true,
      extraSpecs: stringMapAt(body, 'extra_specs') ?? {},
    };
    state.types.set(t.id, t);
    return json({ volume_type: typeView(t, auth) });
  });
  api.route('DELETE', '/types/{type_id}', (req, { auth }) => {
    if (!isAdmin(auth)) throw forbidden('volume_extension:types_manage');
    const t = typeFor(auth, req.params.type_id ?? '');
    if ([...state.volumes.values()].some((v) => v.typeId === t.id)) {
      throw badRequest(`Unable to delete volume type ${t.id}: Volume Type is currently in use.`);
    }
    state.types.delete(t.id);
    return { status: 202 };
  });
  api.route('POST', '/types/{type_id}/extra_specs', (req, { auth }) => {
    if (!isAdmin(auth)) throw forbidden('volume_extension:types_extra_specs:create');
    const t = typeFor(auth, req.params.type_id ?? '');
    const specs = stringMapAt(req.body, 'extra_specs');
    if (!specs) throw badRequest('Malformed request body: extra_specs must be a map of strings.');
    Object.assign(t.extraSpecs, specs);
    return json({ extra_specs: specs });
  });

  api.route('GET', '/os-quota-sets/{target_id}', (req, { auth }) => {
    const target = req.params.target_id ?? '';
    if (!isAdmin(auth) && target !== auth.projectId) throw forbidden('volume_extension:quotas:show');
    return json({ quota_set: { ...state.quotaSet(target), id: target } });
  });
  api.route('PUT', '/os-quota-sets/{target_id}', (req, { auth }) => {
    const target = req.params.target_id ?? '';
    // deploy/policies/cinder.yaml: admin, or a manager of that very project (`is_project_manager_owner`).
    const projectManager = hasRole(auth, 'manager') && auth.projectId === target;
    if (!isAdmin(auth) && !projectManager) throw forbidden('volume_extension:quotas:update');
    const body = objectAt(req.body, 'quota_set');
    if (!isObject(body)) throw badRequest('Missing required element quota_set in request body.');
    const known = state.quotaSet(target);
    const next = { ...state.quotas.get(target) };
    for (const [key, value] of Object.entries(body)) {
      if (key === 'id' || key === 'tenant_id') continue;
      if (!(key in known)) throw badRequest(`Bad key(s) in quota set: ${key}`);
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -1)
        throw badRequest(`Quota limit ${String(value)} for ${key} is invalid.`);
      next[key] = value;
    }
    state.quotas.set(target, next);
    return json({ quota_set: state.quotaSet(target) });
  });
  api.route('DELETE', '/os-quota-sets/{target_id}', (req, { auth }) => {
    if (!isAdmin(auth)) throw forbidden('volume_extension:quotas:delete');
    state.quotas.delete(req.params.target_id ?? '');
    return json({});
  });
  api.route('GET', '/os-availability-zone', () =>
    json({ availabilityZoneInfo: [{ zoneName: 'nova', zoneState: { available: true } }] }),
  );
}

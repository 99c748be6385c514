/** Flavors with extra specs, keypairs, server groups and quota sets. */
import { createHash } from 'node:crypto';
import { hasRole, isAdmin, mayAccessProject } from '../auth.ts';
import { novaFault } from '../faults.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { booleanAt, isoSeconds, isObject, numberAt, objectAt, stringAt, stringMapAt } from '../json.ts';
import { badRequest, conflict, forbidden, notFound, type NovaApi, type NovaCall } from './api.ts';
import { atLeast } from './microversion.ts';
import { DEFAULT_QUOTAS, type NFlavor, type NKeypair, type NServerGroup, type QuotaName } from './state.ts';
import { flavorView } from './view.ts';

export function registerResources(api: NovaApi): void {
  registerFlavors(api);
  registerKeypairs(api);
  registerServerGroups(api);
  registerQuotas(api);
}

function requireAdmin(call: NovaCall, action: string): void {
  if (!isAdmin(call.auth)) throw forbidden(action);
}

function registerFlavors(api: NovaApi): void {
  const { state, route } = api;
  const flavor = (req: EmuRequest) => {
    const id = req.params.flavor_id ?? '';
    return state.flavors.get(id) ?? raise(notFound(`Flavor ${id} could not be found.`));
  };
  const listed = (req: EmuRequest, call: NovaCall) => {
    const isPublic = req.query.get('is_public');
    const all = isAdmin(call.auth) && ['none', 'None'].includes(isPublic ?? '');
    const wantPublic = isPublic === null ? true : !['false', 'False', '0', 'f'].includes(isPublic);
    return [...state.flavors.values()]
      .filter((f) => all || f.isPublic === wantPublic)
      .sort((a, b) => a.name.localeCompare(b.name));
  };
  route('GET', '/flavors', (req, call) =>
    json({
      flavors: listed(req, call).map((f) => ({ id: f.id, name: f.name, links: flavorView(api, f, call.mv).links })),
    }),
  );
  route('GET', '/flavors/detail', (req, call) =>
    json({ flavors: listed(req, call).map((f) => flavorView(api, f, call.mv)) }),
  );
  route('GET', '/flavors/{flavor_id}', (req, call) => json({ flavor: flavorView(api, flavor(req), call.mv) }));
  route('POST', '/flavors', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-flavor-manage:create');
    const body = objectAt(req.body, 'flavor');
    const name = stringAt(body, 'name');
    const vcpus = numberAt(body, 'vcpus');
    const ram = numberAt(body, 'ram');
    const disk = numberAt(body, 'disk');
    if (!name || vcpus === undefined || ram === undefined || disk === undefined) {
      throw badRequest('Invalid input for field/attribute flavor: name, ram, vcpus and disk are required.');
    }
    if ([...state.flavors.values()].some((f) => f.name === name))
      throw conflict(`Flavor with name ${name} already exists.`);
    const id = stringAt(body, 'id') ?? api.ctx.newID();
    if (state.flavors.has(id)) throw conflict(`Flavor with ID ${id} already exists.`);
    const created: NFlavor = {
      id,
      name,
      vcpus,
      ram,
      disk,
      swap: numberAt(body, 'swap') ?? 0,
      ephemeral: numberAt(body, 'OS-FLV-EXT-DATA:ephemeral') ?? 0,
      isPublic: booleanAt(body, 'os-flavor-access:is_public') ?? true,
      description: stringAt(body, 'description') ?? null,
      extraSpecs: {},
    };
    state.flavors.set(id, created);
    return json({ flavor: flavorView(api, created, call.mv) });
  });
  route('DELETE', '/flavors/{flavor_id}', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-flavor-manage:delete');
    state.flavors.delete(flavor(req).id);
    return json(undefined, 202);
  });
  route('GET', '/flavors/{flavor_id}/os-extra_specs', (req) => json({ extra_specs: { ...flavor(req).extraSpecs } }));
  route('POST', '/flavors/{flavor_id}/os-extra_specs', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-flavor-extra-specs:create');
    const specs = stringMapAt(req.body, 'extra_specs');
    if (!specs) throw badRequest('Invalid input for field/attribute extra_specs: values must be strings.');
    const f = flavor(req);
    f.extraSpecs = { ...f.extraSpecs, ...specs };
    return json({ extra_specs: specs });
  });
  route('GET', '/flavors/{flavor_id}/os-extra_specs/{key}', (req) => {
    const key = req.params.key ?? '';
    const value = flavor(req).extraSpecs[key];
    if (value === undefined) throw notFound(`Flavor ${flavor(req).id} has no extra specs with key ${key}.`);
    return json({ [key]: value });
  });
  route('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-flavor-extra-specs:update');
    const key = req.params.key ?? '';
    const value = stringAt(req.body, key);
    if (value === undefined) throw badRequest('Request body and URI mismatch');
    flavor(req).extraSpecs[key] = value;
    return json({ [key]: value });
  });
  route('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-flavor-extra-specs:delete');
    const key = req.params.key ?? '';
    const f = flavor(req);
    if (!(key in f.extraSpecs)) throw notFound(`Flavor ${f.id} has no extra specs with key ${key}.`);
    f.extraSpecs = Object.fromEntries(Object.entries(f.extraSpecs).filter(([k]) => k !== key));
    return json(undefined, 200);
  });
}

/** The MD5 fingerprint of an OpenSSH public key line, colon-separated, as Nova computes it. */
function fingerprint(publicKey: string): string | undefined {
  const [, blob] = publicKey.trim().split(/\s+/);
  if (blob === undefined || !/^[A-Za-z0-9+/]+=*$/.test(blob)) return undefined;
  const bytes = Buffer.from(blob, 'base64');
  if (bytes.length < 16) return undefined;
  return createHash('md5').update(bytes).digest('hex').match(/../g)?.join(':');
}

function registerKeypairs(api: NovaApi): void {
  const { state, route } = api;
  const mine = (call: NovaCall) => state.keypairs.filter((k) => k.userId === call.auth.userId);
  const find = (req: EmuRequest, call: NovaCall): NKeypair => {
    const name = req.params.keypair_name ?? '';
    return (
      mine(call).find((k) => k.name === name) ??
      raise(notFound(`Keypair ${name} not found for user ${call.auth.userId}`))
    );
  };
  const view = (k: NKeypair, mv: NovaCall['mv']) => ({
    name: k.name,
    public_key: k.publicKey,
    fingerprint: k.fingerprint,
    ...(atLeast(mv, 2) ? { type: k.type } : {}),
  });
  route('GET', '/os-keypairs', (_req, call) =>
    json({ keypairs: mine(call).map((k) => ({ keypair: view(k, call.mv) })) }),
  );
  route('GET', '/os-keypairs/{keypair_name}', (req, call) => {
    const k = find(req, call);
    return json({
      keypair: {
        ...view(k, call.mv),
        user_id: k.userId,
        created_at: isoSeconds(k.createdAt).replace('Z', '.000000'),
        deleted: false,
        deleted_at: null,
        updated_at: null,
        id: 1,
      },
    });
  });
  route('POST', '/os-keypairs', (req, call) => {
    const body = objectAt(req.body, 'keypair');
    const name = stringAt(body, 'name');
    const publicKey = stringAt(body, 'public_key');
    if (!name || !/^[\w\- .@]+$/.test(name) || name.length > 255)
      throw badRequest('Keypair data is invalid: Keypair name contains unsafe characters');
    if (publicKey === undefined)
      throw badRequest("Invalid input for field/attribute keypair. 'public_key' is a required property");
    const fp = fingerprint(publicKey);
    if (fp === undefined) throw badRequest('Keypair data is invalid: failed to generate fingerprint');
    if (mine(call).some((k) => k.name === name)) throw conflict(`Key pair '${name}' already exists.`);
    const quota = state.quota(call.auth.projectId ?? '', 'key_pairs');
    if (quota >= 0 && mine(call).length >= quota) throw novaFault(403, 'Quota exceeded, too many key pairs.');
    const k: NKeypair = {
      name,
      userId: call.auth.userId,
      publicKey,
      fingerprint: fp,
      type: stringAt(body, 'type') ?? 'ssh',
      createdAt: api.ctx.clock.now(),
    };
    state.keypairs.push(k);
    return json({ keypair: { ...view(k, call.mv), user_id: k.userId } }, atLeast(call.mv, 2) ? 201 : 200);
  });
  route('DELETE', '/os-keypairs/{keypair_name}', (req, call) => {
    const k = find(req, call);
    state.keypairs.splice(state.keypairs.indexOf(k), 1);
    return json(undefined, atLeast(call.mv, 2) ? 204 : 202);
  });
}

function registerServerGroups(api: NovaApi): void {
  const { state, route } = api;
  const view = (g: NServerGroup, call: NovaCall) =>
    atLeast(call.mv, 64)
      ? {
          id: g.id,
          name: g.name,
          policy: g.policy,
          rules: g.rules,
          members: [...g.members],
          project_id: g.projectId,
          user_id: g.userId,
        }
      : {
          id: g.id,
          name: g.name,
          policies: [g.policy],
          members: [...g.members],
          metadata: {},
          project_id: g.projectId,
          user_id: g.userId,
        };
  const find = (req: EmuRequest, call: NovaCall): NServerGroup => {
    const id = req.params.server_group_id ?? '';
    const g = state.groups.get(id);
    if (!g || !mayAccessProject(call.auth, g.projectId)) throw notFound(`Server group ${id} could not be found.`);
    return g;
  };
  route('GET', '/os-server-groups', (req, call) => {
    const all = isAdmin(call.auth) && req.query.has('all_projects');
    const groups = [...state.groups.values()].filter((g) => all || g.projectId === call.auth.projectId);
    const offset = Number(req.query.get('offset') ?? 0);
    const limit = Number(req.query.get('limit') ?? 1000);
    return json({ server_groups: groups.slice(offset, offset + Math.min(limit, 1000)).map((g) => view(g, call)) });
  });
  route('GET', '/os-server-groups/{server_group_id}', (req, call) =>
    json({ server_group: view(find(req, call), call) }),
  );
  route('POST', '/os-server-groups', (req, call) => {
    const body = objectAt(req.body, 'server_group');
    const name = stringAt(body, 'name');
    const policies = body?.policies;
    const policy =
      stringAt(body, 'policy') ??
      (Array.isArray(policies) && typeof policies[0] === 'string' ? policies[0] : undefined);
    if (!name) throw badRequest("Invalid input for field/attribute name. 'name' is a required property");
    if (!policy || !['affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity'].includes(policy)) {
      throw badRequest(`Invalid input for field/attribute policy. Value: ${String(policy)}.`);
    }
    const rules = objectAt(body, 'rules') ?? {};
    const max = rules.max_server_per_host;
    const projectID = call.auth.projectId ?? '';
    const quota = state.quota(projectID, 'server_groups');
    if (quota >= 0 && [...state.groups.values()].filter((g) => g.projectId === projectID).length >= quota) {
      throw novaFault(403, 'Quota exceeded, too many server groups.');
    }
    const g: NServerGroup = {
      id: api.ctx.newID(),
      name,
      policy,
      rules: typeof max === 'number' ? { max_server_per_host: max } : {},
      projectId: projectID,
      userId: call.auth.userId,
      members: [],
    };
    state.groups.set(g.id, g);
    return json({ server_group: view(g, call) });
  });
  route('DELETE', '/os-server-groups/{server_group_id}', (req, call) => {
    state.groups.delete(find(req, call).id);
    return noContent();
  });
}

function registerQuotas(api: NovaApi): void {
  const { state, route } = api;
  const names = Object.keys(DEFAULT_QUOTAS) as QuotaName[];
  const values = (projectID: string) => Object.fromEntries(names.map((n) => [n, state.quota(projectID, n)]));
  const readable = (req: EmuRequest, call: NovaCall) => {
    const projectID = req.params.project_id ?? '';
    if (!mayAccessProject(call.auth, projectID)) throw forbidden('os_compute_api:os-quota-sets:show');
    return projectID;
  };
  route('GET', '/os-quota-sets/{project_id}', (req, call) => {
    const projectID = readable(req, call);
    return json({ quota_set: { id: projectID, ...values(projectID) } });
  });
  route('GET', '/os-quota-sets/{project_id}/defaults', (req, call) => {
    const projectID = readable(req, call);
    return json({ quota_set: { id: projectID, ...DEFAULT_QUOTAS } });
  });
  route('GET', '/os-quota-sets/{project_id}/detail', (req, call) => {
    const projectID = readable(req, call);
    const servers = [...state.servers.values()].filter((s) => s.projectId === projectID);
    const inUse: Record<QuotaName, number> = {
      instances: servers.length,
      cores: servers.reduce((n, s) => n + s.flavor.vcpus, 0),
      ram: servers.reduce((n, s) => n + s.flavor.ram, 0),
      key_pairs: 0,
      metadata_items: 0,
      server_groups: [...state.groups.values()].filter((g) => g.projectId === projectID).length,
      server_group_members: 0,
    };
    const detail = Object.fromEntries(
      names.map((n) => [n, { in_use: inUse[n], limit: state.quota(projectID, n), reserved: 0 }]),
    );
    return json({ quota_set: { id: projectID, ...detail } });
  });
  route('DELETE', '/os-quota-sets/{project_id}', (req, call) => {
    requireAdmin(call, 'os_compute_api:os-quota-sets:delete');
    state.quotas.delete(req.params.project_id ?? '');
    return noContent(202);
  });
  route('PUT', '/os-quota-sets/{project_id}', (req, call) => {
    const projectID = req.params.project_id ?? '';
    // deploy/policies/nova.yaml: admin, or a manager of that very project (`is_project_manager_owner`).
    const projectManager = hasRole(call.auth, 'manager') && call.auth.projectId === projectID;
    if (!projectManager) requireAdmin(call, 'os_compute_api:os-quota-sets:update');
    const body = objectAt(req.body, 'quota_set');
    if (!isObject(body)) throw badRequest('Invalid input for field/attribute quota_set.');
    const current = { ...state.quotas.get(projectID) };
    for (const [key, value] of Object.entries(body)) {
      if (key === 'force') continue;
      const n = typeof value === 'string' ? Number(value) : value;
      if (!names.includes(key as QuotaName) || typeof n !== 'number' || !Number.isInteger(n) || n < -1) {
        throw badRequest(`Invalid input for field/attribute ${key}. Additional properties are not allowed.`);
      }
      current[key as QuotaName] = n;
    }
    state.quotas.set(projectID, current);
    return json({ quota_set: values(projectID) });
  });
}

function raise(fault: Error): never {
  throw fault;
}

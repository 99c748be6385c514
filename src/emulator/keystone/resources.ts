/** Keystone domains, projects and users: CRUD, filters, self-service password change. */
import { hasRole, isAdmin } from '../auth.ts';
import { json, noContent, type EmuRequest } from '../http.ts';
import { arrayAt, booleanAt, objectAt, stringAt, stringsOf } from '../json.ts';
import {
  badRequest,
  conflict,
  forbidden,
  listBody,
  managesDomain,
  notFound,
  PREFIX,
  readsDomain,
  requireAdmin,
  type KeystoneApi,
} from './api.ts';
import { sameName, type KDomain, type KProject, type KUser } from './store.ts';
import { unauthorized } from './tokens.ts';
import { defined } from '../../util/defined.ts';

export function registerResources(api: KeystoneApi): void {
  const { store, ctx, route } = api;
  const link = (path: string) => ({ self: `${ctx.origin()}${PREFIX}${path}` });
  const selfUrl = (req: EmuRequest) => `${ctx.origin()}${req.path}${req.query.size ? `?${req.query.toString()}` : ''}`;

  const domainView = (d: KDomain) => ({
    id: d.id,
    name: d.name,
    description: d.description,
    enabled: d.enabled,
    tags: [],
    options: {},
    links: link(`/domains/${d.id}`),
  });
  const projectView = (p: KProject) => ({
    id: p.id,
    name: p.name,
    domain_id: p.domainId,
    description: p.description,
    enabled: p.enabled,
    parent_id: p.domainId,
    is_domain: false,
    tags: [...p.tags],
    options: {},
    links: link(`/projects/${p.id}`),
  });
  const userView = (u: KUser) => ({
    id: u.id,
    name: u.name,
    domain_id: u.domainId,
    enabled: u.enabled,
    ...defined({ description: u.description, default_project_id: u.defaultProjectId }),
    password_expires_at: null,
    options: { ...u.options },
    links: link(`/users/${u.id}`),
  });

  const domain = (id: string) => store.domains.get(id) ?? raise(notFound('domain', id));
  const project = (id: string) => store.projects.get(id) ?? raise(notFound('project', id));
  const user = (id: string) => store.users.get(id) ?? raise(notFound('user', id));
  const param = (req: EmuRequest, name: string) => req.params[name] ?? '';
  const flag = (value: string | null) => (value === null ? undefined : !['0', 'false', 'False'].includes(value));

  // ------------------------------------------------------------------------------------------------ domains
  route('GET', '/domains', (req, auth) => {
    // keystone.yaml: a domain manager may list domains, to find its own by name.
    if (!isAdmin(auth) && !auth.system && !hasRole(auth, 'manager')) throw forbidden('list_domains');
    const name = req.query.get('name');
    const enabled = flag(req.query.get('enabled'));
    const items = [...store.domains.values()].filter(
      (d) => (name === null || sameName(d.name, name)) && (enabled === undefined || d.enabled === enabled),
    );
    return json(listBody('domains', items.map(domainView), selfUrl(req)));
  });
  route('POST', '/domains', (req, auth) => {
    requireAdmin(auth, 'create_domain');
    const body = objectAt(req.body, 'domain');
    const name = stringAt(body, 'name');
    if (!name) throw badRequest("Invalid input for field 'name'.");
    if (store.domainByName(name)) throw conflict('domain', name, 'cloud');
    const d: KDomain = {
      id: ctx.newID().replaceAll('-', ''),
      name,
      description: stringAt(body, 'description') ?? '',
      enabled: booleanAt(body, 'enabled') ?? true,
    };
    store.domains.set(d.id, d);
    return json({ domain: domainView(d) }, 201);
  });
  route('GET', '/domains/{domain_id}', (req, auth) => {
    const d = domain(param(req, 'domain_id'));
    if (!readsDomain(auth, d.id) && auth.projectDomainId !== d.id) throw forbidden('get_domain');
    return json({ domain: domainView(d) });
  });
  route('PATCH', '/domains/{domain_id}', (req, auth) => {
    requireAdmin(auth, 'update_domain');
    const d = domain(param(req, 'domain_id'));
    const body = objectAt(req.body, 'domain');
    const name = stringAt(body, 'name');
    if (name !== undefined && name !== d.name) {
      if (store.domainByName(name)) throw conflict('domain', name, 'cloud');
      d.name = name;
    }
    d.description = stringAt(body, 'description') ?? d.description;
    d.enabled = booleanAt(body, 'enabled') ?? d.enabled;
    return json({ domain: domainView(d) });
  });
  route('DELETE', '/domains/{domain_id}', (req, auth) => {
    requireAdmin(auth, 'delete_domain');
    const d = domain(param(req, 'domain_id'));
    if (d.enabled) throw forbidden('delete_domain: Cannot delete a domain that is enabled, please disable it first');
    for (const p of [...store.projects.values()]) if (p.domainId === d.id) deleteProject(p.id);
    for (const u of [...store.users.values()]) if (u.domainId === d.id) deleteUser(u.id);
    store.assignments = store.assignments.filter((a) => !(a.target.kind === 'domain' && a.target.id === d.id));
    store.domains.delete(d.id);
    return noContent();
  });

  // ------------------------------------------------------------------------------------------------ projects
  route('GET', '/projects', (req, auth) => {
    const domainID = req.query.get('domain_id');
    // keystone.yaml `lists_token_domain`: a domain-scoped caller names its own domain, or is refused.
    if (!isAdmin(auth) && !(domainID !== null && (readsDomain(auth, domainID) || managesDomain(auth, domainID)))) {
      throw forbidden('list_projects');
    }
    const q = req.query;
    const name = q.get('name');
    const tags = (key: string) =>
      q
        .get(key)
        ?.split(',')
        .filter((t) => t.length > 0);
    const all = tags('tags');
    const any = tags('tags-any');
    const notAll = tags('not-tags');
    const notAny = tags('not-tags-any');
    const enabled = flag(q.get('enabled'));
    const items = [...store.projects.values()].filter(
      (p) =>
        (domainID === null || p.domainId === domainID) &&
        (name === null || sameName(p.name, name)) &&
        (enabled === undefined || p.enabled === enabled) &&
        (all === undefined || all.every((t) => p.tags.includes(t))) &&
        (any === undefined || any.some((t) => p.tags.includes(t))) &&
        (notAll === undefined || !notAll.every((t) => p.tags.includes(t))) &&
        (notAny === undefined || !notAny.some((t) => p.tags.includes(t))),
    );
    return json(listBody('projects', items.map(projectView), selfUrl(req)));
  });
  route('POST', '/projects', (req, auth) => {
    const body = objectAt(req.body, 'project');
    const domainID = stringAt(body, 'domain_id') ?? auth.projectDomainId ?? auth.domainId ?? 'default';
    if (!isAdmin(auth) && !managesDomain(auth, domainID)) throw forbidden('create_project');
    const name = stringAt(body, 'name');
    if (!name) throw badRequest("Invalid input for field 'name'.");
    domain(domainID);
    if ([...store.projects.values()].some((p) => p.domainId === domainID && sameName(p.name, name))) {
      throw conflict('project', name, 'domain');
    }
    const p: KProject = {
      id: ctx.newID().replaceAll('-', ''),
      name,
      domainId: domainID,
      description: stringAt(body, 'description') ?? '',
      enabled: booleanAt(body, 'enabled') ?? true,
      tags: validTags(arrayAt(body, 'tags')),
    };
    store.projects.set(p.id, p);
    return json({ project: projectView(p) }, 201);
  });
  route('GET', '/projects/{project_id}', (req, auth) => {
    const p = project(param(req, 'project_id'));
    if (!readsDomain(auth, p.domainId) && !managesDomain(auth, p.domainId) && auth.projectId !== p.id) {
      throw forbidden('get_project');
    }
    return json({ project: projectView(p) });
  });
  route('PATCH', '/projects/{project_id}', (req, auth) => {
    const p = project(param(req, 'project_id'));
    if (!isAdmin(auth) && !managesDomain(auth, p.domainId)) throw forbidden('update_project');
    const body = objectAt(req.body, 'project');
    const name = stringAt(body, 'name');
    if (name !== undefined && name !== p.name) {
      const clash = [...store.projects.values()].some(
        (o) => o.id !== p.id && o.domainId === p.domainId && sameName(o.name, name),
      );
      if (clash) throw conflict('project', name, 'domain');
      p.name = name;
    }
    p.description = stringAt(body, 'description') ?? p.description;
    const enabled = booleanAt(body, 'enabled');
    if (enabled === false && p.enabled)
      store.revokeTokens((t) => t.scope.kind === 'project' && t.scope.projectId === p.id);
    p.enabled = enabled ?? p.enabled;
    const tags = arrayAt(body, 'tags');
    if (tags) p.tags = validTags(tags);
    return json({ project: projectView(p) });
  });
  route('DELETE', '/projects/{project_id}', (req, auth) => {
    const p = project(param(req, 'project_id'));
    if (!isAdmin(auth) && !managesDomain(auth, p.domainId)) throw forbidden('delete_project');
    deleteProject(p.id);
    return noContent();
  });

  // ------------------------------------------------------------------------------------------------ users
  route('GET', '/users', (req, auth) => {
    const domainID = req.query.get('domain_id');
    if (!isAdmin(auth) && !(domainID !== null && (readsDomain(auth, domainID) || managesDomain(auth, domainID)))) {
      throw forbidden('list_users');
    }
    const name = req.query.get('name');
    const items = [...store.users.values()].filter(
      (u) => (domainID === null || u.domainId === domainID) && (name === null || sameName(u.name, name)),
    );
    return json(listBody('users', items.map(userView), selfUrl(req)));
  });
  route('POST', '/users', (req, auth) => {
    const body = objectAt(req.body, 'user');
    const domainID = stringAt(body, 'domain_id') ?? auth.projectDomainId ?? auth.domainId ?? 'default';
    if (!isAdmin(auth) && !managesDomain(auth, domainID)) throw forbidden('create_user');
    const name = stringAt(body, 'name');
    if (!name) throw badRequest("Invalid input for field 'name'.");
    domain(domainID);
    if ([...store.users.values()].some((u) => u.domainId === domainID && sameName(u.name, name))) {
      throw conflict('user', name, 'domain');
    }
    const u: KUser = {
      id: ctx.newID().replaceAll('-', ''),
      name,
      domainId: domainID,
      enabled: booleanAt(body, 'enabled') ?? true,
      password: stringAt(body, 'password'),
      description: stringAt(body, 'description'),
      defaultProjectId: stringAt(body, 'default_project_id'),
      options: objectAt(body, 'options') ?? {},
    };
    store.users.set(u.id, u);
    return json({ user: userView(u) }, 201);
  });
  route('GET', '/users/{user_id}', (req, auth) => {
    const u = user(param(req, 'user_id'));
    if (!readsDomain(auth, u.domainId) && !managesDomain(auth, u.domainId) && auth.userId !== u.id) {
      throw forbidden('get_user');
    }
    return json({ user: userView(u) });
  });
  route('PATCH', '/users/{user_id}', (req, auth) => {
    const u = user(param(req, 'user_id'));
    if (!isAdmin(auth) && !managesDomain(auth, u.domainId)) throw forbidden('update_user');
    const body = objectAt(req.body, 'user');
    const name = stringAt(body, 'name');
    if (name !== undefined && name !== u.name) {
      const clash = [...store.users.values()].some(
        (o) => o.id !== u.id && o.domainId === u.domainId && sameName(o.name, name),
      );
      if (clash) throw conflict('user', name, 'domain');
      u.name = name;
    }
    if (body && 'description' in body) u.description = stringAt(body, 'description');
    if (body && 'default_project_id' in body) u.defaultProjectId = stringAt(body, 'default_project_id');
    const options = objectAt(body, 'options');
    if (options) u.options = { ...u.options, ...options };
    const password = stringAt(body, 'password');
    if (password !== undefined) {
      u.password = password;
      api.revokeUser(u.id);
    }
    const enabled = booleanAt(body, 'enabled');
    if (enabled === false && u.enabled) {
      api.revokeUser(u.id);
      for (const cred of [...store.appCreds.values()]) if (cred.userId === u.id) store.appCreds.delete(cred.id);
    }
    u.enabled = enabled ?? u.enabled;
    return json({ user: userView(u) });
  });
  route('DELETE', '/users/{user_id}', (req, auth) => {
    const u = user(param(req, 'user_id'));
    if (!isAdmin(auth) && !managesDomain(auth, u.domainId)) throw forbidden('delete_user');
    deleteUser(u.id);
    return noContent();
  });
  route('POST', '/users/{user_id}/password', (req, auth) => {
    const u = user(param(req, 'user_id'));
    if (auth.userId !== u.id) throw forbidden('change_password');
    const body = objectAt(req.body, 'user');
    const password = stringAt(body, 'password');
    if (!password) throw badRequest("Invalid input for field 'password'.");
    if (u.password === undefined || stringAt(body, 'original_password') !== u.password) throw unauthorized();
    u.password = password;
    api.revokeUser(u.id);
    return noContent();
  });
  route('GET', '/users/{user_id}/projects', (req, auth) => {
    const u = user(param(req, 'user_id'));
    if (!isAdmin(auth) && auth.userId !== u.id && !managesDomain(auth, u.domainId)) {
      throw forbidden('list_user_projects');
    }
    const ids = new Set(
      store.assignments.flatMap((a) => (a.userId === u.id && a.target.kind === 'project' ? [a.target.id] : [])),
    );
    const items = [...ids].flatMap((id) => {
      const p = store.projects.get(id);
      return p ? [projectView(p)] : [];
    });
    return json(listBody('projects', items, selfUrl(req)));
  });

  function deleteProject(id: string): void {
    store.projects.delete(id);
    store.assignments = store.assignments.filter((a) => !(a.target.kind === 'project' && a.target.id === id));
    for (const cred of [...store.appCreds.values()]) if (cred.projectId === id) store.appCreds.delete(cred.id);
    store.revokeTokens((t) => t.scope.kind === 'project' && t.scope.projectId === id);
  }

  function deleteUser(id: string): void {
    store.users.delete(id);
    store.assignments = store.assignments.filter((a) => a.userId !== id);
    for (const cred of [...store.appCreds.values()]) if (cred.userId === id) store.appCreds.delete(cred.id);
    api.revokeUser(id);
  }
}

/** Keystone refuses tags with `,` or `/`, longer than 255 characters, or more than 80 of them. */
function validTags(tags: unknown[] | undefined): string[] {
  const out = stringsOf(tags);
  if (out.length !== (tags ?? []).length || out.length > 80 || out.some((t) => /[,/]/.test(t) || t.length > 255)) {
    throw badRequest("Invalid input for field 'tags'.");
  }
  return [...new Set(out)];
}

function raise(fault: Error): never {
  throw fault;
}

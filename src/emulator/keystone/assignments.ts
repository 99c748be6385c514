/** Keystone roles (with implied roles), grants on projects, domains and the system, role assignment listing. */
import { hasRole, isAdmin, type AuthContext } from '../auth.ts';
import { keystoneFault } from '../faults.ts';
import { json, noContent, type EmuRequest, type Method } from '../http.ts';
import { objectAt, stringAt } from '../json.ts';
import {
  badRequest,
  conflict,
  DOMAIN_MANAGED_ROLES,
  forbidden,
  listBody,
  managesDomain,
  notFound,
  PREFIX,
  readsDomain,
  requireAdmin,
  type KeystoneApi,
} from './api.ts';
import { sameAssignment, sameName, type KAssignment, type KRole, type Target } from './store.ts';

export function registerAssignments(api: KeystoneApi): void {
  const { store, ctx, route } = api;
  const origin = () => `${ctx.origin()}${PREFIX}`;
  const param = (req: EmuRequest, name: string) => req.params[name] ?? '';
  const roleView = (r: KRole) => ({
    id: r.id,
    name: r.name,
    domain_id: r.domainId,
    description: r.description,
    options: {},
    links: { self: `${origin()}/roles/${r.id}` },
  });
  const role = (id: string) => store.roles.get(id) ?? raise(notFound('role', id));

  // ------------------------------------------------------------------------------------------------ roles
  route('GET', '/roles', (req, auth) => {
    // keystone.yaml: a domain manager lists roles, to find the ones it grants by name.
    if (!hasRole(auth, 'manager')) requireReader(auth, 'list_roles');
    const name = req.query.get('name');
    const domainID = req.query.get('domain_id');
    const items = [...store.roles.values()].filter(
      (r) => (name === null || sameName(r.name, name)) && r.domainId === domainID,
    );
    return json(listBody('roles', items.map(roleView), `${ctx.origin()}${req.path}`));
  });
  route('POST', '/roles', (req, auth) => {
    requireAdmin(auth, 'create_role');
    const body = objectAt(req.body, 'role');
    const name = stringAt(body, 'name');
    if (!name) throw badRequest("Invalid input for field 'name'.");
    if (store.roleByName(name)) throw conflict('role', name, 'cloud');
    const r: KRole = {
      id: ctx.newID().replaceAll('-', ''),
      name,
      domainId: null,
      description: stringAt(body, 'description') ?? null,
    };
    store.roles.set(r.id, r);
    return json({ role: roleView(r) }, 201);
  });
  route('GET', '/roles/{role_id}', (req, auth) => {
    const r = role(param(req, 'role_id'));
    if (!(hasRole(auth, 'manager') && DOMAIN_MANAGED_ROLES.includes(r.name))) requireReader(auth, 'get_role');
    return json({ role: roleView(r) });
  });
  route('DELETE', '/roles/{role_id}', (req, auth) => {
    requireAdmin(auth, 'delete_role');
    const r = role(param(req, 'role_id'));
    store.roles.delete(r.id);
    store.implied.delete(r.id);
    for (const set of store.implied.values()) set.delete(r.id);
    store.assignments = store.assignments.filter((a) => a.roleId !== r.id);
    return noContent();
  });
  route('PUT', '/roles/{prior_role_id}/implies/{implied_role_id}', (req, auth) => {
    requireAdmin(auth, 'create_implied_role');
    const prior = role(param(req, 'prior_role_id'));
    const implied = role(param(req, 'implied_role_id'));
    if (store.expand([implied.id]).includes(prior.id)) throw forbidden('create_implied_role: it would make a cycle');
    const set = store.implied.get(prior.id) ?? new Set<string>();
    set.add(implied.id);
    store.implied.set(prior.id, set);
    const ref = (r: KRole) => ({ id: r.id, name: r.name, links: { self: `${origin()}/roles/${r.id}` } });
    return json({ role_inference: { prior_role: ref(prior), implies: ref(implied) } }, 201);
  });
  route('GET', '/roles/{prior_role_id}/implies', (req, auth) => {
    requireReader(auth, 'list_implied_roles');
    const prior = role(param(req, 'prior_role_id'));
    const ref = (r: KRole) => ({ id: r.id, name: r.name, links: { self: `${origin()}/roles/${r.id}` } });
    const implies = [...(store.implied.get(prior.id) ?? [])].flatMap((id) => {
      const r = store.roles.get(id);
      return r ? [ref(r)] : [];
    });
    return json({ role_inference: { prior_role: ref(prior), implies } });
  });
  route('DELETE', '/roles/{prior_role_id}/implies/{implied_role_id}', (req, auth) => {
    requireAdmin(auth, 'delete_implied_role');
    const set = store.implied.get(param(req, 'prior_role_id'));
    if (!set?.delete(param(req, 'implied_role_id'))) throw notFound('implied role', param(req, 'implied_role_id'));
    return noContent();
  });

  // ------------------------------------------------------------------------------------------------ grants
  const projectTarget = (req: EmuRequest): Target => {
    const id = param(req, 'project_id');
    if (!store.projects.has(id)) throw notFound('project', id);
    return { kind: 'project', id };
  };
  const domainTarget = (req: EmuRequest): Target => {
    const id = param(req, 'domain_id');
    if (!store.domains.has(id)) throw notFound('domain', id);
    return { kind: 'domain', id };
  };
  const grantRoutes: [string, (req: EmuRequest) => Target, boolean][] = [
    ['/projects/{project_id}/users/{user_id}/roles/{role_id}', projectTarget, false],
    ['/domains/{domain_id}/users/{user_id}/roles/{role_id}', domainTarget, false],
    ['/system/users/{user_id}/roles/{role_id}', () => ({ kind: 'system' }), false],
    ['/OS-INHERIT/domains/{domain_id}/users/{user_id}/roles/{role_id}/inherited_to_projects', domainTarget, true],
  ];
  for (const [path, targetOf, inherited] of grantRoutes) {
    const resolve = (req: EmuRequest): KAssignment => {
      const target = targetOf(req);
      const userID = param(req, 'user_id');
      if (!store.users.has(userID)) throw notFound('user', userID);
      const roleID = role(param(req, 'role_id')).id;
      return inherited
        ? { target, userId: userID, roleId: roleID, inherited }
        : { target, userId: userID, roleId: roleID };
    };
    /** keystone.yaml `domain_manager_grant and is_domain_managed_role`, or admin. */
    const mayWrite = (auth: AuthContext, a: KAssignment) =>
      isAdmin(auth) ||
      (managesDomain(auth, domainOf(a.target)) &&
        managesDomain(auth, store.users.get(a.userId)?.domainId) &&
        DOMAIN_MANAGED_ROLES.includes(store.roles.get(a.roleId)?.name ?? ''));
    route('PUT', path, (req, auth) => {
      const a = resolve(req);
      if (!mayWrite(auth, a)) throw forbidden('create_grant');
      if (!store.assignments.some((x) => sameAssignment(x, a))) store.assignments.push(a);
      return noContent();
    });
    const check = (req: EmuRequest, auth: AuthContext) => {
      const a = resolve(req);
      if (!mayReadTarget(auth, a.target, a.userId)) throw forbidden('check_grant');
      if (!store.assignments.some((x) => sameAssignment(x, a))) throw missingAssignment(a);
      return noContent();
    };
    for (const method of ['GET', 'HEAD'] as Method[]) route(method, path, check);
    route('DELETE', path, (req, auth) => {
      const a = resolve(req);
      if (!mayWrite(auth, a)) throw forbidden('revoke_grant');
      if (!store.assignments.some((x) => sameAssignment(x, a))) throw missingAssignment(a);
      store.assignments = store.assignments.filter((x) => !sameAssignment(x, a));
      // Keystone records a revocation event: the user's tokens carrying the old roles stop working.
      api.revokeUser(a.userId);
      return noContent();
    });
  }

  function domainOf(target: Target): string | undefined {
    if (target.kind === 'system') return undefined;
    return target.kind === 'domain' ? target.id : store.projects.get(target.id)?.domainId;
  }

  // ------------------------------------------------------------------------------------------------ role assignments
  route('GET', '/role_assignments', (req, auth) => {
    const q = req.query;
    const userID = q.get('user.id');
    const projectID = q.get('scope.project.id');
    const domainID = q.get('scope.domain.id');
    const roleID = q.get('role.id');
    const system = q.get('scope.system');
    const present = (key: string) => q.has(key) && q.get(key) !== '0' && q.get(key)?.toLowerCase() !== 'false';
    const effective = present('effective');
    const names = present('include_names');
    const scopeDomain = domainID ?? (projectID === null ? undefined : store.projects.get(projectID)?.domainId);
    const mayList = scopeDomain !== undefined && (readsDomain(auth, scopeDomain) || managesDomain(auth, scopeDomain));
    if (!isAdmin(auth) && !mayList) {
      throw forbidden('list_role_assignments');
    }
    // Effective: a grant inherited to projects counts on each project of its domain, not on the domain.
    const expanded = effective
      ? store.assignments.flatMap((a): KAssignment[] =>
          a.inherited === true && a.target.kind === 'domain'
            ? [...store.projects.values()]
                .filter((p) => p.domainId === (a.target.kind === 'domain' ? a.target.id : ''))
                .map((p) => ({ userId: a.userId, roleId: a.roleId, target: { kind: 'project', id: p.id } }))
            : [a],
        )
      : store.assignments;
    const direct = expanded.filter(
      (a) =>
        (userID === null || a.userId === userID) &&
        (projectID === null || (a.target.kind === 'project' && a.target.id === projectID)) &&
        (domainID === null || (a.target.kind === 'domain' && a.target.id === domainID)) &&
        (system === null || a.target.kind === 'system'),
    );
    const rows: { a: KAssignment; prior?: string }[] = [];
    for (const a of direct) {
      if (!effective) {
        rows.push({ a });
        continue;
      }
      for (const id of store.expand([a.roleId]))
        rows.push(id === a.roleId ? { a } : { a: { ...a, roleId: id }, prior: a.roleId });
    }
    const items = rows
      .filter(({ a }) => roleID === null || a.roleId === roleID)
      .map(({ a, prior }) => assignmentView(a, names, prior));
    return json(listBody('role_assignments', items, `${ctx.origin()}${req.path}`));
  });

  function assignmentView(a: KAssignment, names: boolean, prior: string | undefined) {
    const domainRef = (id: string) => (names ? { id, name: store.domains.get(id)?.name ?? '' } : { id });
    const targetPath =
      a.target.kind === 'system'
        ? '/system'
        : `${a.inherited === true ? '/OS-INHERIT' : ''}/${a.target.kind === 'project' ? 'projects' : 'domains'}/${a.target.id}`;
    let scope: Record<string, unknown>;
    if (a.target.kind === 'project') {
      const p = store.projects.get(a.target.id);
      scope = {
        project: names
          ? { id: a.target.id, name: p?.name ?? '', domain: domainRef(p?.domainId ?? '') }
          : { id: a.target.id },
      };
    } else if (a.target.kind === 'domain') {
      scope = {
        domain: domainRef(a.target.id),
        ...(a.inherited === true ? { 'OS-INHERIT:inherited_to': 'projects' } : {}),
      };
    } else {
      scope = { system: { all: true } };
    }
    const u = store.users.get(a.userId);
    const r = store.roles.get(a.roleId);
    return {
      links: {
        assignment: `${origin()}${targetPath}/users/${a.userId}/roles/${prior ?? a.roleId}${a.inherited === true ? '/inherited_to_projects' : ''}`,
        ...(prior === undefined ? {} : { prior_role: `${origin()}/roles/${prior}` }),
      },
      scope,
      user: names ? { id: a.userId, name: u?.name ?? '', domain: domainRef(u?.domainId ?? '') } : { id: a.userId },
      role: names ? { id: a.roleId, name: r?.name ?? '' } : { id: a.roleId },
    };
  }

  function mayReadTarget(auth: AuthContext, target: Target, userID: string): boolean {
    if (isAdmin(auth)) return true;
    if (target.kind === 'system') return auth.system;
    const domainID = target.kind === 'domain' ? target.id : store.projects.get(target.id)?.domainId;
    const userDomain = store.users.get(userID)?.domainId;
    if (managesDomain(auth, domainID) && managesDomain(auth, userDomain)) return true;
    return domainID !== undefined && readsDomain(auth, domainID) && userDomain === domainID;
  }

  function missingAssignment(a: KAssignment) {
    const where = a.target.kind === 'system' ? 'system' : a.target.id;
    return keystoneFault(
      404,
      'Not Found',
      `Could not find role assignment with role: ${a.roleId}, user or group: ${a.userId}, project, domain, or system: ${where}.`,
    );
  }
}

/** Roles are readable by admins and system readers (Zed: `role:reader and system_scope:all` or admin_required). */
function requireReader(auth: AuthContext, action: string): void {
  if (!isAdmin(auth) && !(auth.system && auth.roles.includes('reader'))) throw forbidden(action);
}

function raise(fault: Error): never {
  throw fault;
}

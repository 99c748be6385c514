import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ConflictError, ConsistencyError, ForbiddenError } from './errors.ts';
import {
  changeOwnPassword,
  createApplicationCredential,
  createDomain,
  createProject,
  createUser,
  deleteApplicationCredential,
  deleteProject,
  deleteUser,
  findApplicationCredentialByName,
  findProjectByName,
  findRoleByName,
  findUserByName,
  getApplicationCredential,
  getDomain,
  getProject,
  getRole,
  getUser,
  grantRole,
  hasRole,
  listApplicationCredentials,
  listDomains,
  listProjects,
  listRoleAssignments,
  listRoles,
  listUsers,
  revokeRole,
  setUserPassword,
  updateDomain,
  updateProject,
  updateUser,
  type IdentityClient,
  type NewApplicationCredential,
} from './identity.ts';
import type { ServiceClient } from './session.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const V3 = '/identity/v3';

const project = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  domain_id: 'd-1',
  description: '',
  enabled: true,
  parent_id: 'd-1',
  is_domain: false,
  tags: [],
  ...extra,
});
const user = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  domain_id: 'd-1',
  enabled: true,
  password_expires_at: null,
  ...extra,
});
const appCred = (id: string, name: string) => ({
  id,
  name,
  description: null,
  project_id: 'p-1',
  user_id: 'u-1',
  expires_at: null,
  unrestricted: false,
  roles: [{ id: 'r-1', name: 'member', domain_id: null }],
});

describe('identity', () => {
  let h: Harness;
  let identity: IdentityClient;
  before(async () => ({ h, client: identity } = await clientHarness('identity')));
  after(() => h.close());
  let seen: number;
  beforeEach(() => {
    seen = h.cloud.requests.length;
  });
  const sent = () => h.cloud.requests.slice(seen);

  describe('domains', () => {
    it('lists domains by name and enabled', async () => {
      h.cloud.on('GET', `${V3}/domains`, {
        body: { domains: [{ id: 'd-1', name: 'managed', description: null, enabled: true }], links: { next: null } },
      });
      const domains = await listDomains(identity, { name: 'managed', enabled: true });
      assert.deepEqual(
        domains.map((d) => d.id),
        ['d-1'],
      );
      const req = h.cloud.last('GET', `${V3}/domains`);
      assert.equal(req.query.get('name'), 'managed');
      assert.equal(req.query.get('enabled'), 'true');
    });

    it('gets, creates and updates a domain', async () => {
      h.cloud.on('GET', `${V3}/domains/:id`, (_r, p) => ({
        body: { domain: { id: p.id, name: 'managed', description: 'd', enabled: true } },
      }));
      assert.equal((await getDomain(identity, 'd-7')).id, 'd-7');

      h.cloud.on('POST', `${V3}/domains`, (r) => ({
        status: 201,
        body: { domain: { id: 'd-new', ...(r.json() as { domain: object }).domain } },
      }));
      const created = await createDomain(identity, { name: 'tenants', description: 'all tenants', enabled: true });
      assert.deepEqual(h.cloud.last('POST', `${V3}/domains`).json(), {
        domain: { name: 'tenants', description: 'all tenants', enabled: true },
      });
      assert.equal(created.id, 'd-new');
      assert.equal(created.name, 'tenants');

      h.cloud.on('PATCH', `${V3}/domains/:id`, (r, p) => ({
        body: { domain: { id: p.id, name: 'tenants', description: null, ...(r.json() as { domain: object }).domain } },
      }));
      const updated = await updateDomain(identity, 'd-new', { enabled: false });
      assert.deepEqual(h.cloud.last('PATCH', `${V3}/domains/d-new`).json(), { domain: { enabled: false } });
      assert.equal(updated.enabled, false);
    });
  });

  describe('projects', () => {
    it('lists with domain, name, all-tags and any-tags filters', async () => {
      h.cloud.on('GET', `${V3}/projects`, { body: { projects: [project('p-1', 'x')], links: { next: null } } });
      const projects = await listProjects(identity, {
        domainID: 'd-1',
        name: 'x',
        tags: ['organization=o', 'project=p'],
        tagsAny: ['a', 'b'],
      });
      assert.equal(projects[0]?.id, 'p-1');
      const q = h.cloud.last('GET', `${V3}/projects`).query;
      assert.equal(q.get('domain_id'), 'd-1');
      assert.equal(q.get('name'), 'x');
      assert.equal(q.get('tags'), 'organization=o,project=p');
      assert.equal(q.get('tags-any'), 'a,b');
    });

    it('sends no filters that were not asked for', async () => {
      h.cloud.on('GET', `${V3}/projects`, { body: { projects: [], links: {} } });
      await listProjects(identity, { tags: [] });
      assert.equal(h.cloud.last('GET', `${V3}/projects`).query.toString(), '');
    });

    it('follows Keystone links.next across pages, rebased onto the endpoint in use', async () => {
      h.cloud.on('GET', `${V3}/projects`, (r) =>
        r.query.get('marker') === 'p-2'
          ? { body: { projects: [project('p-3', 'c')], links: { next: null } } }
          : {
              body: {
                projects: [project('p-1', 'a'), project('p-2', 'b')],
                // Keystone builds the link from its own idea of its URL.
                links: { next: 'http://keystone.internal:5000/v3/projects?domain_id=d-1&marker=p-2' },
              },
            },
      );
      const projects = await listProjects(identity, { domainID: 'd-1' });
      assert.deepEqual(
        projects.map((p) => p.id),
        ['p-1', 'p-2', 'p-3'],
      );
      const pages = sent().filter((r) => r.path === `${V3}/projects`);
      assert.equal(pages.length, 2);
      assert.equal(pages[1]?.query.get('marker'), 'p-2');
      assert.equal(pages[1].query.get('domain_id'), 'd-1');
    });

    it('finds a project by exact name in a domain: none, one, duplicate', async () => {
      // MariaDB's collation makes the name filter case-insensitive: the variant is listed but is not ours.
      h.cloud.on('GET', `${V3}/projects`, { body: { projects: [project('p-9', 'UNIKORN-identity-1')], links: {} } });
      assert.equal(await findProjectByName(identity, 'd-1', 'unikorn-identity-1'), undefined);
      const q = h.cloud.last('GET', `${V3}/projects`).query;
      assert.equal(q.get('domain_id'), 'd-1');
      assert.equal(q.get('name'), 'unikorn-identity-1');

      h.cloud.on('GET', `${V3}/projects`, {
        body: { projects: [project('p-9', 'UNIKORN-identity-1'), project('p-1', 'unikorn-identity-1')], links: {} },
      });
      assert.equal((await findProjectByName(identity, 'd-1', 'unikorn-identity-1'))?.id, 'p-1');

      h.cloud.on('GET', `${V3}/projects`, {
        body: { projects: [project('p-1', 'unikorn-identity-1'), project('p-2', 'unikorn-identity-1')], links: {} },
      });
      await assert.rejects(findProjectByName(identity, 'd-1', 'unikorn-identity-1'), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['p-1', 'p-2']);
        return true;
      });
    });

    it('creates, gets, updates and deletes a project', async () => {
      h.cloud.on('POST', `${V3}/projects`, (r) => ({
        status: 201,
        body: { project: project('p-new', 'unikorn-identity-1', (r.json() as { project: object }).project) },
      }));
      const created = await createProject(identity, {
        name: 'unikorn-identity-1',
        domain_id: 'd-1',
        description: 'identity 1',
        tags: ['organization=o', 'project=p'],
      });
      assert.deepEqual(h.cloud.last('POST', `${V3}/projects`).json(), {
        project: {
          name: 'unikorn-identity-1',
          domain_id: 'd-1',
          description: 'identity 1',
          tags: ['organization=o', 'project=p'],
        },
      });
      assert.equal(created.id, 'p-new');
      assert.deepEqual(created.tags, ['organization=o', 'project=p']);

      h.cloud.on('GET', `${V3}/projects/:id`, (_r, p) => ({ body: { project: project(p.id ?? '', 'x') } }));
      assert.equal((await getProject(identity, 'p-new')).id, 'p-new');
      assert.equal(h.cloud.last().path, `${V3}/projects/p-new`);

      h.cloud.on('PATCH', `${V3}/projects/:id`, (r, p) => ({
        body: { project: project(p.id ?? '', 'x', (r.json() as { project: object }).project) },
      }));
      const updated = await updateProject(identity, 'p-new', { description: 'renamed', enabled: false });
      assert.deepEqual(h.cloud.last('PATCH', `${V3}/projects/p-new`).json(), {
        project: { description: 'renamed', enabled: false },
      });
      assert.equal(updated.enabled, false);

      h.cloud.on('DELETE', `${V3}/projects/:id`, { status: 204 });
      await deleteProject(identity, 'p-new');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${V3}/projects/p-new`);
    });
  });

  describe('users', () => {
    it('lists users by domain and name', async () => {
      h.cloud.on('GET', `${V3}/users`, { body: { users: [user('u-1', 'svc')], links: { next: null } } });
      const users = await listUsers(identity, { domainID: 'd-1', name: 'svc' });
      assert.equal(users[0]?.name, 'svc');
      const q = h.cloud.last('GET', `${V3}/users`).query;
      assert.equal(q.get('domain_id'), 'd-1');
      assert.equal(q.get('name'), 'svc');
    });

    it('finds a user by exact name in a domain: none, one, duplicate', async () => {
      h.cloud.on('GET', `${V3}/users`, { body: { users: [], links: {} } });
      assert.equal(await findUserByName(identity, 'd-1', 'svc'), undefined);
      assert.equal(h.cloud.last('GET', `${V3}/users`).query.get('domain_id'), 'd-1');

      h.cloud.on('GET', `${V3}/users`, { body: { users: [user('u-2', 'Svc'), user('u-1', 'svc')], links: {} } });
      assert.equal((await findUserByName(identity, 'd-1', 'svc'))?.id, 'u-1');

      h.cloud.on('GET', `${V3}/users`, { body: { users: [user('u-1', 'svc'), user('u-3', 'svc')], links: {} } });
      await assert.rejects(findUserByName(identity, 'd-1', 'svc'), ConsistencyError);
    });

    it('creates a user with password, default project and options', async () => {
      h.cloud.on('POST', `${V3}/users`, (r) => {
        // Keystone never echoes the password.
        const { password, ...rest } = (r.json() as { user: { password?: string } }).user;
        assert.equal(password, 's3cret');
        return { status: 201, body: { user: user('u-new', 'svc', rest) } };
      });
      const sent = {
        name: 'unikorn-identity-1',
        domain_id: 'd-1',
        password: 's3cret',
        description: 'service principal',
        default_project_id: 'p-1',
        enabled: true,
        options: { ignore_password_expiry: true, ignore_change_password_upon_first_use: true },
      };
      const created = await createUser(identity, sent);
      assert.deepEqual(h.cloud.last('POST', `${V3}/users`).json(), { user: sent });
      assert.equal(created.id, 'u-new');
      assert.equal(created.default_project_id, 'p-1');
      assert.equal(created.options?.ignore_password_expiry, true);
    });

    it('raises a duplicate user as ConflictError', async () => {
      h.cloud.on('POST', `${V3}/users`, {
        status: 409,
        body: { error: { code: 409, title: 'Conflict', message: 'Duplicate entry found with name svc' } },
      });
      await assert.rejects(createUser(identity, { name: 'svc', domain_id: 'd-1' }), ConflictError);
    });

    it('gets, updates and deletes a user', async () => {
      h.cloud.on('GET', `${V3}/users/:id`, (_r, p) => ({ body: { user: user(p.id ?? '', 'svc') } }));
      assert.equal((await getUser(identity, 'u-5')).id, 'u-5');
      assert.equal(h.cloud.last().path, `${V3}/users/u-5`);

      h.cloud.on('PATCH', `${V3}/users/:id`, (r, p) => ({
        body: { user: user(p.id ?? '', 'svc', (r.json() as { user: object }).user) },
      }));
      const updated = await updateUser(identity, 'u-5', { enabled: false, description: 'parked' });
      assert.deepEqual(h.cloud.last('PATCH', `${V3}/users/u-5`).json(), {
        user: { enabled: false, description: 'parked' },
      });
      assert.equal(updated.enabled, false);
      assert.equal(updated.description, 'parked');

      h.cloud.on('DELETE', `${V3}/users/:id`, { status: 204 });
      await deleteUser(identity, 'u-5');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${V3}/users/u-5`);
    });

    it('sets a password as an admin with PATCH and nothing else in the body', async () => {
      h.cloud.on('PATCH', `${V3}/users/:id`, (_r, p) => ({ body: { user: user(p.id ?? '', 'svc') } }));
      const result = await setUserPassword(identity, 'u-5', 'n3w');
      assert.deepEqual(h.cloud.last('PATCH', `${V3}/users/u-5`).json(), { user: { password: 'n3w' } });
      assert.equal(result.id, 'u-5');
    });

    it('changes its own password with POST /users/{id}/password', async () => {
      h.cloud.on('POST', `${V3}/users/:id/password`, { status: 204 });
      await changeOwnPassword(identity, 'u-1', { original_password: 'old', password: 'n3w' });
      assert.deepEqual(h.cloud.last('POST', `${V3}/users/u-1/password`).json(), {
        user: { password: 'n3w', original_password: 'old' },
      });
    });
  });

  describe('roles', () => {
    const role = (id: string, name: string) => ({ id, name, domain_id: null, description: null });

    it('lists, gets and finds roles by exact name', async () => {
      h.cloud.on('GET', `${V3}/roles`, { body: { roles: [role('r-1', 'member')], links: {} } });
      assert.equal((await listRoles(identity, { name: 'member' }))[0]?.id, 'r-1');
      assert.equal(h.cloud.last('GET', `${V3}/roles`).query.get('name'), 'member');
      assert.equal(h.cloud.last('GET', `${V3}/roles`).query.has('domain_id'), false);

      h.cloud.on('GET', `${V3}/roles/:id`, (_r, p) => ({ body: { role: role(p.id ?? '', 'manager') } }));
      const got = await getRole(identity, 'r-2');
      assert.equal(got.id, 'r-2');
      assert.equal(got.domain_id, null);

      h.cloud.on('GET', `${V3}/roles`, { body: { roles: [], links: {} } });
      assert.equal(await findRoleByName(identity, 'member'), undefined);

      h.cloud.on('GET', `${V3}/roles`, { body: { roles: [role('r-3', 'Member'), role('r-1', 'member')], links: {} } });
      assert.equal((await findRoleByName(identity, 'member', 'd-1'))?.id, 'r-1');
      assert.equal(h.cloud.last('GET', `${V3}/roles`).query.get('domain_id'), 'd-1');

      h.cloud.on('GET', `${V3}/roles`, { body: { roles: [role('r-1', 'member'), role('r-4', 'member')], links: {} } });
      await assert.rejects(findRoleByName(identity, 'member'), ConsistencyError);
    });
  });

  describe('role assignments', () => {
    it('grants, checks and revokes a project role', async () => {
      const path = `${V3}/projects/p-1/users/u-1/roles/r-1`;
      h.cloud.on('PUT', `${V3}/projects/:p/users/:u/roles/:r`, { status: 204 });
      await grantRole(identity, { projectID: 'p-1', userID: 'u-1', roleID: 'r-1' });
      assert.equal(h.cloud.last().method, 'PUT');
      assert.equal(h.cloud.last().path, path);
      assert.equal(h.cloud.last().body, '');

      h.cloud.on('HEAD', `${V3}/projects/:p/users/:u/roles/:r`, (_r, p) => ({
        status: p.r === 'r-1' ? 204 : 404,
      }));
      assert.equal(await hasRole(identity, { projectID: 'p-1', userID: 'u-1', roleID: 'r-1' }), true);
      assert.equal(h.cloud.last().path, path);
      assert.equal(await hasRole(identity, { projectID: 'p-1', userID: 'u-1', roleID: 'r-2' }), false);

      h.cloud.on('DELETE', `${V3}/projects/:p/users/:u/roles/:r`, { status: 204 });
      await revokeRole(identity, { projectID: 'p-1', userID: 'u-1', roleID: 'r-1' });
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, path);
    });

    it('grants, checks and revokes a domain role', async () => {
      const path = `${V3}/domains/d-1/users/u-1/roles/r-1`;
      h.cloud.on('PUT', `${V3}/domains/:d/users/:u/roles/:r`, { status: 204 });
      await grantRole(identity, { domainID: 'd-1', userID: 'u-1', roleID: 'r-1' });
      assert.equal(h.cloud.last().path, path);

      h.cloud.on('HEAD', `${V3}/domains/:d/users/:u/roles/:r`, { status: 404 });
      assert.equal(await hasRole(identity, { domainID: 'd-1', userID: 'u-1', roleID: 'r-1' }), false);
      assert.equal(h.cloud.last().method, 'HEAD');
      assert.equal(h.cloud.last().path, path);

      h.cloud.on('DELETE', `${V3}/domains/:d/users/:u/roles/:r`, { status: 204 });
      await revokeRole(identity, { domainID: 'd-1', userID: 'u-1', roleID: 'r-1' });
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, path);
    });

    it('lets a check fail loudly on anything but 404', async () => {
      h.cloud.on('HEAD', `${V3}/projects/:p/users/:u/roles/:r`, { status: 403 });
      await assert.rejects(hasRole(identity, { projectID: 'p-1', userID: 'u-1', roleID: 'r-1' }), ForbiddenError);
    });

    it('lists assignments with dotted filters, and sends effective/include_names only when true', async () => {
      h.cloud.on('GET', `${V3}/role_assignments`, {
        body: {
          role_assignments: [
            {
              role: { id: 'r-1', name: 'member' },
              user: { id: 'u-1', name: 'svc', domain: { id: 'd-1', name: 'managed' } },
              scope: { project: { id: 'p-1', name: 'x', domain: { id: 'd-1', name: 'managed' } } },
            },
          ],
          links: { next: null },
        },
      });
      const assignments = await listRoleAssignments(identity, {
        userID: 'u-1',
        projectID: 'p-1',
        roleID: 'r-1',
        effective: true,
        includeNames: true,
      });
      assert.equal(assignments[0]?.role.name, 'member');
      assert.equal(assignments[0].scope.project?.id, 'p-1');
      const q = h.cloud.last('GET', `${V3}/role_assignments`).query;
      assert.equal(q.get('user.id'), 'u-1');
      assert.equal(q.get('scope.project.id'), 'p-1');
      assert.equal(q.get('role.id'), 'r-1');
      assert.equal(q.get('effective'), 'true');
      assert.equal(q.get('include_names'), 'true');
      assert.equal(q.has('scope.domain.id'), false);

      await listRoleAssignments(identity, { domainID: 'd-1', effective: false, includeNames: false });
      const q2 = h.cloud.last('GET', `${V3}/role_assignments`).query;
      assert.equal(q2.get('scope.domain.id'), 'd-1');
      // Keystone would read `effective=false` as true.
      assert.equal(q2.has('effective'), false);
      assert.equal(q2.has('include_names'), false);
    });
  });

  describe('application credentials', () => {
    it('creates one and returns its secret', async () => {
      h.cloud.on('POST', `${V3}/users/:u/application_credentials`, (r) => ({
        status: 201,
        body: {
          application_credential: {
            ...appCred('ac-1', 'unikorn-identity-1'),
            ...(r.json() as { application_credential: object }).application_credential,
            secret: 'shown-once',
          },
        },
      }));
      const created: NewApplicationCredential = await createApplicationCredential(h.session.client('identity'), 'u-1', {
        name: 'unikorn-identity-1',
        description: 'for identity 1',
        roles: [{ name: 'member' }, { id: 'r-2' }],
        expires_at: null,
        unrestricted: false,
        access_rules: [{ service: 'compute', method: 'GET', path: '/v2.1/servers' }],
      });
      assert.deepEqual(h.cloud.last('POST', `${V3}/users/u-1/application_credentials`).json(), {
        application_credential: {
          name: 'unikorn-identity-1',
          description: 'for identity 1',
          roles: [{ name: 'member' }, { id: 'r-2' }],
          expires_at: null,
          unrestricted: false,
          access_rules: [{ service: 'compute', method: 'GET', path: '/v2.1/servers' }],
        },
      });
      assert.equal(created.secret, 'shown-once');
      assert.equal(created.id, 'ac-1');
      assert.equal(created.project_id, 'p-1');
    });

    it('needs a project-scoped client to create (checked by the compiler)', () => {
      const domainScoped = undefined as unknown as ServiceClient<'identity', 'domain'>;
      // @ts-expect-error a domain-scoped token cannot create an application credential
      const call = () => createApplicationCredential(domainScoped, 'u-1', { name: 'x' });
      assert.equal(typeof call, 'function');
    });

    it('gets, lists and deletes; neither get nor list carries a secret', async () => {
      h.cloud.on('GET', `${V3}/users/:u/application_credentials/:id`, (_r, p) => ({
        body: { application_credential: appCred(p.id ?? '', 'x') },
      }));
      const got = await getApplicationCredential(identity, 'u-1', 'ac-1');
      assert.equal(h.cloud.last().path, `${V3}/users/u-1/application_credentials/ac-1`);
      assert.equal(got.id, 'ac-1');
      assert.equal('secret' in got, false);

      h.cloud.on('GET', `${V3}/users/:u/application_credentials`, {
        body: { application_credentials: [appCred('ac-1', 'x')], links: { next: null } },
      });
      const listed = await listApplicationCredentials(identity, 'u-1', { name: 'x' });
      assert.equal(listed[0]?.roles[0]?.name, 'member');
      assert.equal(h.cloud.last('GET', `${V3}/users/u-1/application_credentials`).query.get('name'), 'x');

      h.cloud.on('DELETE', `${V3}/users/:u/application_credentials/:id`, { status: 204 });
      await deleteApplicationCredential(identity, 'u-1', 'ac-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, `${V3}/users/u-1/application_credentials/ac-1`);
    });

    it('finds one by exact name: none, one, duplicate', async () => {
      const route = `${V3}/users/:u/application_credentials`;
      h.cloud.on('GET', route, { body: { application_credentials: [], links: {} } });
      assert.equal(await findApplicationCredentialByName(identity, 'u-1', 'cred'), undefined);
      assert.equal(h.cloud.last('GET', `${V3}/users/u-1/application_credentials`).query.get('name'), 'cred');

      h.cloud.on('GET', route, {
        body: { application_credentials: [appCred('ac-0', 'cred-old'), appCred('ac-1', 'cred')], links: {} },
      });
      assert.equal((await findApplicationCredentialByName(identity, 'u-1', 'cred'))?.id, 'ac-1');

      h.cloud.on('GET', route, {
        body: { application_credentials: [appCred('ac-1', 'cred'), appCred('ac-2', 'cred')], links: {} },
      });
      await assert.rejects(findApplicationCredentialByName(identity, 'u-1', 'cred'), ConsistencyError);
    });
  });
});

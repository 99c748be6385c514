/**
 * Contract: Keystone (identity.ts and the session's authentication) against a real cloud.
 *
 * Every auth method and scope the session supports, token revocation healed by one re-authentication, the region
 * account managing its domain, and the exact-name helpers over Keystone's case-insensitive name filters.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AuthMethod } from '../../src/openstack/auth.ts';
import { ConflictError, isNotFound, NotFoundError, UnauthorizedError } from '../../src/openstack/errors.ts';
import {
  changeOwnPassword,
  createApplicationCredential,
  createDomain,
  deleteDomain,
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
  type Project,
  type Role,
  type User,
} from '../../src/openstack/identity.ts';
import { contractCloud } from './cloud.ts';
import { Cleanup, must } from './cleanup.ts';

const cloud = await contractCloud();

/** Fernet revocation events have one-second resolution: a token issued in the same second as one is refused. */
const revocationTick = () => new Promise((r) => setTimeout(r, 1_100));

const PASSWORD = 'ct-Secret-1';

describe('identity contract (Keystone)', { skip: cloud === undefined }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let admin: IdentityClient;
  let domainID: string;
  let member: Role;
  let project: Project;
  let user: User;

  const passwordByID = (u: User, password = PASSWORD): AuthMethod => ({
    type: 'password',
    user: { id: u.id },
    password,
  });

  /** A project in the region's domain with a user holding `member` on it, as the region provisions identities. */
  async function tenant(what: string): Promise<{ project: Project; user: User }> {
    const p = await createProject(admin, { name: c.name(`${what}-project`), domain_id: domainID });
    cleanup.add(`project ${p.name}`, () => deleteProject(admin, p.id));
    const u = await createUser(admin, { name: c.name(`${what}-user`), domain_id: domainID, password: PASSWORD });
    cleanup.add(`user ${u.name}`, () => deleteUser(admin, u.id));
    await grantRole(admin, { userID: u.id, projectID: p.id, roleID: member.id });
    return { project: p, user: u };
  }

  before(async () => {
    admin = c.admin.client('identity');
    const regionToken = await c.region.token();
    domainID = must(regionToken.domain, 'the region token to be domain-scoped').id;
    member = must(await findRoleByName(admin, 'member'), 'role member');
    ({ project, user } = await tenant('main'));
  });

  after(async () => {
    await cleanup.run();
    await c.close();
  });

  describe('authentication methods and scopes', () => {
    it('password by user name + domain, scoped to a project by name + domain', async () => {
      const session = c.sessionFor(
        { type: 'password', user: { name: user.name, domain: { id: domainID } }, password: PASSWORD },
        { kind: 'project', project: { name: project.name, domain: { id: domainID } } },
      );
      assert.equal(session.scope, 'project');
      const token = await session.token();
      assert.equal(token.user.id, user.id);
      assert.equal(token.project?.id, project.id);
      assert.equal(token.project.domain.id, domainID);
      assert.equal(token.domain, undefined);
      assert.equal(token.system, false);
      const roles = token.roles.map((r) => r.name);
      assert.ok(roles.includes('member'), `roles ${roles.join(',')}`);
      assert.ok(token.catalog.length > 0, 'a scoped token carries the catalog');
      assert.ok(token.expiresAt > Date.now());
    });

    it('password by user id, scoped to a project by id', async () => {
      const token = await c.sessionFor(passwordByID(user), { kind: 'project', project: { id: project.id } }).token();
      assert.equal(token.user.id, user.id);
      assert.equal(token.user.name, user.name);
      assert.equal(token.project?.id, project.id);
    });

    it('domain scope: the region account in its domain `openregion`', async () => {
      const token = await c.region.token();
      assert.equal(token.domain?.name, 'openregion');
      assert.equal(token.project, undefined);
      assert.ok(token.roles.some((r) => r.name === 'manager'));
      // The same credential asked for afresh, by domain name.
      const regionUser = must(await findUserByName(admin, domainID, 'openregion-region'), 'user openregion-region');
      const byName = await c
        .sessionFor(
          { type: 'password', user: { name: 'openregion-region', domain: { name: 'openregion' } }, password: 'secret' },
          { kind: 'domain', domain: { name: 'openregion' } },
        )
        .token();
      assert.equal(byName.user.id, regionUser.id);
      assert.equal(byName.domain?.id, domainID);
      // and its project-scoped twin
      const projectToken = await c.regionProject.token();
      assert.equal(projectToken.project?.name, 'openregion-region');
      assert.equal(projectToken.user.id, regionUser.id);
    });

    it('a user without a domain role is refused a domain-scoped token (401)', async () => {
      const session = c.sessionFor(passwordByID(user), { kind: 'domain', domain: { id: domainID } });
      await assert.rejects(session.token(), UnauthorizedError);
    });

    it('system scope: admin (bootstrap assignment, or granted here), and 401 for a user without one', async (t) => {
      const adminToken = await c.admin.token();
      const adminAuth: AuthMethod = { type: 'password', user: { id: adminToken.user.id }, password: 'secret' };
      let token;
      try {
        token = await c.sessionFor(adminAuth, { kind: 'system' }).token();
        t.diagnostic('admin holds a system role assignment from keystone-manage bootstrap');
      } catch (error) {
        assert.ok(error instanceof UnauthorizedError, String(error));
        t.diagnostic('admin had no system role assignment: refused 401; granting admin on system all');
        const adminRole = must(await findRoleByName(admin, 'admin'), 'role admin');
        const params = { user_id: adminToken.user.id, role_id: adminRole.id };
        await admin.request({ method: 'PUT', path: '/system/users/{user_id}/roles/{role_id}', params });
        cleanup.add('system grant', () =>
          admin.request({ method: 'DELETE', path: '/system/users/{user_id}/roles/{role_id}', params }),
        );
        token = await c.sessionFor(adminAuth, { kind: 'system' }).token();
      }
      assert.equal(token.system, true);
      assert.equal(token.project, undefined);
      assert.equal(token.domain, undefined);
      assert.ok(token.roles.some((r) => r.name === 'admin'));
      const system = c.sessionFor(adminAuth, { kind: 'system' });
      const domains = await listDomains(system.client('identity'), { name: 'openregion' });
      assert.deepEqual(
        domains.map((d) => d.id),
        [domainID],
      );

      await assert.rejects(c.sessionFor(passwordByID(user), { kind: 'system' }).token(), UnauthorizedError);
    });

    it('unscoped, then the token method rescopes it to a project', async () => {
      const unscoped = await c.sessionFor(passwordByID(user), { kind: 'unscoped' }).token();
      assert.equal(unscoped.project, undefined);
      assert.equal(unscoped.domain, undefined);
      assert.equal(unscoped.system, false);
      assert.deepEqual(unscoped.roles, []);
      assert.deepEqual(unscoped.catalog, []);

      const rescoped = c.sessionFor(
        { type: 'token', token: unscoped.value },
        { kind: 'project', project: { id: project.id } },
      );
      const token = await rescoped.token();
      assert.equal(token.user.id, user.id);
      assert.equal(token.project?.id, project.id);
      assert.notEqual(token.value, unscoped.value);
      assert.equal((await getProject(rescoped.client('identity'), project.id)).id, project.id);
    });

    it('application credential by id and by name + user: the scope comes from the credential', async () => {
      const own = c.sessionFor(passwordByID(user), { kind: 'project', project: { id: project.id } });
      const identity = own.client('identity');
      const name = c.name('appcred');
      const created = await createApplicationCredential(identity, user.id, {
        name,
        description: 'contract',
        roles: [{ name: 'member' }],
      });
      cleanup.add(`application credential ${name}`, () => deleteApplicationCredential(admin, user.id, created.id));
      assert.ok(created.secret.length > 0);
      assert.equal(created.project_id, project.id);
      assert.deepEqual(
        created.roles.map((r) => r.name),
        ['member'],
      );

      const read = await getApplicationCredential(identity, user.id, created.id);
      assert.equal(read.name, name);
      assert.equal('secret' in read, false, 'Keystone shows the secret only once');
      const listed = await listApplicationCredentials(identity, user.id);
      assert.ok(listed.some((a) => a.id === created.id));
      assert.equal((await findApplicationCredentialByName(identity, user.id, name))?.id, created.id);
      assert.equal(await findApplicationCredentialByName(identity, user.id, `${name}-other`), undefined);

      const byID = c.sessionFor(
        { type: 'application_credential', id: created.id, secret: created.secret },
        {
          kind: 'unscoped',
        },
      );
      assert.equal(byID.scope, 'project');
      const byIDToken = await byID.token();
      assert.equal(byIDToken.project?.id, project.id);
      assert.equal(byIDToken.user.id, user.id);
      // member implies reader on this cloud
      assert.ok(byIDToken.roles.some((r) => r.name === 'member'));

      for (const credentialUser of [{ id: user.id }, { name: user.name, domain: { id: domainID } }]) {
        const byName = await c
          .sessionFor(
            { type: 'application_credential', name, user: credentialUser, secret: created.secret },
            { kind: 'unscoped' },
          )
          .token();
        assert.equal(byName.project?.id, project.id);
      }

      await assert.rejects(
        c.sessionFor({ type: 'application_credential', id: created.id, secret: 'wrong' }, { kind: 'unscoped' }).token(),
        UnauthorizedError,
      );

      await deleteApplicationCredential(identity, user.id, created.id);
      await assert.rejects(getApplicationCredential(identity, user.id, created.id), isNotFound);
      // Keystone answers an authentication with a deleted credential 404 (ApplicationCredentialNotFound), not 401;
      // the session reports it as UnauthorizedError so that it never reads as a missing resource.
      await assert.rejects(
        c
          .sessionFor({ type: 'application_credential', id: created.id, secret: created.secret }, { kind: 'unscoped' })
          .token(),
        (e: unknown) => {
          assert.ok(e instanceof UnauthorizedError && !(e instanceof NotFoundError), String(e));
          assert.equal(e.status, 404);
          return true;
        },
      );
    });
  });

  describe('token lifetime', () => {
    const authCount = () =>
      c.accounting.total({ serviceType: 'identity', method: 'POST', urlTemplate: '/auth/tokens' });
    const failures = (urlTemplate: string) =>
      c.accounting
        .counts()
        .find((x) => x.serviceType === 'identity' && x.method === 'GET' && x.urlTemplate === urlTemplate)?.failures ??
      0;

    it('a revoked token (401) is healed by exactly one re-authentication', async () => {
      const session = c.sessionFor(passwordByID(user), { kind: 'project', project: { id: project.id } });
      const identity = session.client('identity');
      const first = await session.token();
      assert.equal((await getProject(identity, project.id)).id, project.id);

      await admin.request({ method: 'DELETE', path: '/auth/tokens', headers: { 'X-Subject-Token': first.value } });
      // Keystone itself refuses it now.
      await assert.rejects(
        admin.request({ method: 'HEAD', path: '/auth/tokens', headers: { 'X-Subject-Token': first.value } }),
        isNotFound,
      );

      const auths = authCount();
      const refused = failures('/projects/{project_id}');
      assert.equal((await getProject(identity, project.id)).id, project.id);
      assert.equal(authCount() - auths, 1, 'one re-authentication');
      assert.equal(failures('/projects/{project_id}') - refused, 1, 'exactly one 401 was seen');
      const second = await session.token();
      assert.notEqual(second.value, first.value);
      assert.equal(authCount() - auths, 1, 'the new token is cached');
    });

    it('a credential refused on re-authentication fails with UnauthorizedError after one attempt', async () => {
      const { project: p, user: u } = await tenant('disabled');
      const session = c.sessionFor(passwordByID(u), { kind: 'project', project: { id: p.id } });
      const identity = session.client('identity');
      await getProject(identity, p.id);
      // Disabling a user revokes its tokens.
      const disabled = await updateUser(admin, u.id, { enabled: false, description: 'disabled by contract' });
      assert.equal(disabled.enabled, false);
      const auths = authCount();
      await assert.rejects(getProject(identity, p.id), UnauthorizedError);
      assert.equal(authCount() - auths, 1);
    });
  });

  describe('domains, projects, users and roles', () => {
    it('domains: create, get, list by name, update (disable) and delete', async () => {
      const name = c.name('domain');
      const domain = await createDomain(admin, { name, description: 'contract' });
      cleanup.add(`domain ${name}`, async () => {
        await updateDomain(admin, domain.id, { enabled: false });
        await deleteDomain(admin, domain.id);
      });
      assert.equal(domain.enabled, true);
      assert.equal((await getDomain(admin, domain.id)).name, name);
      assert.deepEqual(
        (await listDomains(admin, { name })).map((d) => d.id),
        [domain.id],
      );
      const updated = await updateDomain(admin, domain.id, { description: 'changed', enabled: false });
      assert.equal(updated.enabled, false);
      assert.equal(updated.description, 'changed');
      assert.ok((await listDomains(admin, { enabled: false })).some((d) => d.id === domain.id));
      await deleteDomain(admin, domain.id);
      await assert.rejects(getDomain(admin, domain.id), isNotFound);
    });

    it('the region account reads its domain: projects, users and grants', async () => {
      const region = c.region.client('identity');
      assert.equal((await findProjectByName(region, domainID, project.name))?.id, project.id);
      assert.equal((await findUserByName(region, domainID, user.name))?.id, user.id);
      assert.ok((await listProjects(region, { domainID })).every((p) => p.domain_id === domainID));
      const target = { userID: user.id, projectID: project.id, roleID: member.id };
      assert.equal(await hasRole(region, target), true);
      assert.equal(await hasRole(region, { ...target, roleID: (await getRole(admin, member.id)).id }), true);
    });

    it('grants and revokes a role on a project and on a domain (as admin)', async () => {
      const u = await createUser(admin, { name: c.name('grantee'), domain_id: domainID, password: PASSWORD });
      cleanup.add(`user ${u.name}`, () => deleteUser(admin, u.id));
      for (const target of [
        { userID: u.id, projectID: project.id, roleID: member.id },
        { userID: u.id, domainID: domainID, roleID: member.id },
      ]) {
        assert.equal(await hasRole(admin, target), false);
        await grantRole(admin, target);
        assert.equal(await hasRole(admin, target), true);
        await revokeRole(admin, target);
        assert.equal(await hasRole(admin, target), false);
        await assert.rejects(revokeRole(admin, target), isNotFound);
      }
    });

    it('the region account manages its domain: projects, users and grants', async () => {
      // Zed's Keystone has no domain-manager persona (native from 2024.2): the dev cloud installs openregion's
      // policy override (deploy/policies/keystone.yaml), and the emulator enforces the same rules.
      const region = c.region.client('identity');
      const p = await createProject(region, {
        name: c.name('region-made'),
        domain_id: domainID,
        tags: ['organization=org-1', 'project=prj-1'],
      });
      cleanup.add(`project ${p.name}`, () => deleteProject(admin, p.id));
      const u = await createUser(region, { name: c.name('region-made-user'), domain_id: domainID, password: PASSWORD });
      cleanup.add(`user ${u.name}`, () => deleteUser(admin, u.id));
      const target = { userID: u.id, projectID: p.id, roleID: member.id };
      assert.equal(await hasRole(region, target), false);
      await grantRole(region, target);
      await grantRole(region, target); // idempotent
      assert.equal(await hasRole(region, target), true);
      assert.equal((await findProjectByName(region, domainID, p.name))?.id, p.id);
      assert.equal((await findUserByName(region, domainID, u.name))?.id, u.id);
      await revokeRole(region, target);
      assert.equal(await hasRole(region, target), false);
      await assert.rejects(revokeRole(region, target), isNotFound);
      await deleteUser(region, u.id);
      await deleteProject(region, p.id);
      await assert.rejects(getProject(admin, p.id), isNotFound);
    });

    it('projects: tags filter (all and any), update, get', async () => {
      const tag = c.name('tag');
      const p = await createProject(admin, {
        name: c.name('tagged'),
        domain_id: domainID,
        description: 'before',
        tags: [tag, `${tag}=x`],
      });
      cleanup.add(`project ${p.name}`, () => deleteProject(admin, p.id));
      assert.deepEqual([...p.tags].sort(), [tag, `${tag}=x`].sort());
      assert.equal(p.domain_id, domainID);
      assert.equal(p.is_domain, false);
      assert.deepEqual(
        (await listProjects(admin, { domainID, tags: [tag, `${tag}=x`] })).map((x) => x.id),
        [p.id],
      );
      assert.deepEqual(
        (await listProjects(admin, { tagsAny: [`${tag}=x`, `${tag}-none`] })).map((x) => x.id),
        [p.id],
      );
      const updated = await updateProject(admin, p.id, { description: 'after', tags: [`${tag}-new`] });
      assert.equal(updated.description, 'after');
      assert.deepEqual(updated.tags, [`${tag}-new`]);
      assert.deepEqual(await listProjects(admin, { tags: [tag] }), []);
      assert.equal((await getProject(admin, p.id)).description, 'after');
    });

    it('users: get, list, update options, admin password set and self-service change', async () => {
      const { project: p, user: u } = await tenant('passwords');
      assert.equal((await getUser(admin, u.id)).name, u.name);
      assert.ok((await listUsers(admin, { domainID })).some((x) => x.id === u.id));
      const updated = await updateUser(admin, u.id, {
        description: 'service account',
        options: { ignore_password_expiry: true, ignore_change_password_upon_first_use: true },
      });
      assert.equal(updated.description, 'service account');
      assert.equal(updated.options?.ignore_password_expiry, true);
      assert.equal((await getUser(admin, u.id)).options?.ignore_change_password_upon_first_use, true);

      const scope = { kind: 'project', project: { id: p.id } } as const;
      await setUserPassword(admin, u.id, 'ct-Second-2');
      await revocationTick();
      await assert.rejects(c.sessionFor(passwordByID(u), scope).token(), UnauthorizedError);
      const own = c.sessionFor(passwordByID(u, 'ct-Second-2'), scope);
      await own.token();
      await changeOwnPassword(own.client('identity'), u.id, {
        original_password: 'ct-Second-2',
        password: 'ct-Third-3',
      });
      await revocationTick();
      await assert.rejects(c.sessionFor(passwordByID(u, 'ct-Second-2'), scope).token(), UnauthorizedError);
      assert.equal((await c.sessionFor(passwordByID(u, 'ct-Third-3'), scope).token()).user.id, u.id);
    });

    it('roles and role assignments: list, get, effective with implied roles, names', async () => {
      const roles = await listRoles(admin);
      for (const name of ['admin', 'member', 'reader', 'manager', 'load-balancer_member']) {
        assert.ok(
          roles.some((r) => r.name === name),
          `role ${name}`,
        );
      }
      assert.deepEqual(
        (await listRoles(admin, { name: 'member' })).map((r) => r.id),
        [member.id],
      );
      assert.deepEqual(await listRoles(admin, { domainID }), [], 'no domain-specific roles');
      const got = await getRole(admin, member.id);
      assert.equal(got.name, 'member');
      assert.equal(got.domain_id, null);
      assert.equal(await findRoleByName(admin, 'no-such-role-ct'), undefined);

      const direct = await listRoleAssignments(admin, { userID: user.id, projectID: project.id, includeNames: true });
      assert.deepEqual(
        direct.map((a) => [a.role.name, a.scope.project?.id, a.user?.name]),
        [['member', project.id, user.name]],
      );
      const effective = await listRoleAssignments(admin, { userID: user.id, projectID: project.id, effective: true });
      const effectiveRoles = await Promise.all(effective.map(async (a) => (await getRole(admin, a.role.id)).name));
      assert.ok(effectiveRoles.includes('reader'), `effective roles: ${effectiveRoles.join(',')}`);
      assert.deepEqual(await listRoleAssignments(admin, { userID: user.id, roleID: member.id, domainID }), []);

      const regionUser = must(await findUserByName(admin, domainID, 'openregion-region'), 'region user');
      const onDomain = await listRoleAssignments(admin, { userID: regionUser.id, domainID, includeNames: true });
      const domainRoles = onDomain.map((a) => a.role.name).sort();
      for (const name of ['load-balancer_member', 'manager', 'member']) assert.ok(domainRoles.includes(name));
      assert.equal(
        await hasRole(admin, { userID: regionUser.id, domainID: domainID, roleID: member.id }),
        true,
        'domain grants via HEAD',
      );
    });
  });

  describe('names: Keystone filters compare with the database collation, the find helpers are exact', () => {
    it('projects and users: a case variant is listed by the filter but not found; creating it conflicts', async () => {
      const base = c.name('Fuzzy');
      const exact = await createProject(admin, { name: base, domain_id: domainID });
      cleanup.add(`project ${base}`, () => deleteProject(admin, exact.id));
      const longer = await createProject(admin, { name: `${base}-2`, domain_id: domainID });
      cleanup.add(`project ${base}-2`, () => deleteProject(admin, longer.id));

      const variant = base.toUpperCase();
      const listedByVariant = await listProjects(admin, { domainID, name: variant });
      assert.deepEqual(
        listedByVariant.map((p) => p.id),
        [exact.id],
        'MariaDB compares names case-insensitively',
      );
      assert.equal(await findProjectByName(admin, domainID, variant), undefined);
      assert.equal((await findProjectByName(admin, domainID, base))?.id, exact.id);
      assert.equal((await findProjectByName(admin, domainID, `${base}-2`))?.id, longer.id);
      assert.equal(await findProjectByName(admin, domainID, base.slice(0, -1)), undefined, 'no prefix match');
      await assert.rejects(createProject(admin, { name: variant, domain_id: domainID }), ConflictError);

      const userName = c.name('FuzzyUser');
      const u = await createUser(admin, { name: userName, domain_id: domainID });
      cleanup.add(`user ${userName}`, () => deleteUser(admin, u.id));
      assert.deepEqual(
        (await listUsers(admin, { domainID, name: userName.toUpperCase() })).map((x) => x.id),
        [u.id],
      );
      assert.equal(await findUserByName(admin, domainID, userName.toUpperCase()), undefined);
      assert.equal((await findUserByName(admin, domainID, userName))?.id, u.id);
      await assert.rejects(createUser(admin, { name: userName.toUpperCase(), domain_id: domainID }), ConflictError);
    });
  });
});

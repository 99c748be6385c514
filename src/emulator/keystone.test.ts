import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError, ForbiddenError, isNotFound, UnauthorizedError, BadRequestError } from '../openstack/errors.ts';
import {
  createApplicationCredential,
  createProject,
  createUser,
  findRoleByName,
  getProject,
  grantRole,
  listProjects,
  listRoleAssignments,
  type IdentityClient,
  type Project,
  type User,
} from '../openstack/identity.ts';
import type { Session } from '../openstack/session.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Keystone emulation', () => {
  let cloud: CloudFixture;
  let admin: IdentityClient;
  let project: Project;
  let other: Project;
  let user: User;
  let member: Session<'project'>;

  before(async () => {
    cloud = await cloudFixture();
    admin = cloud.admin.client('identity');
    project = await createProject(admin, { name: 'p1', domain_id: 'default' });
    other = await createProject(admin, { name: 'p2', domain_id: 'default' });
    user = await createUser(admin, { name: 'u1', domain_id: 'default', password: 'pw' });
    const memberRole = await findRoleByName(admin, 'member');
    await grantRole(admin, { userID: user.id, projectID: project.id, roleID: memberRole?.id ?? '' });
    member = cloud.session(
      { type: 'password', user: { id: user.id }, password: 'pw' },
      { kind: 'project', project: { id: project.id } },
    );
  });
  after(() => cloud.close());

  it('bootstraps admin ⇒ member ⇒ reader: an admin token carries all three', async () => {
    const token = await cloud.admin.token();
    assert.deepEqual(token.roles.map((r) => r.name).sort(), ['admin', 'member', 'reader']);
    assert.equal(token.user.domain.name, 'Default');
    assert.equal(token.expiresAt - token.issuedAt, 3_600_000);
  });

  it('a member token carries reader too; its effective assignments list the implied role', async () => {
    assert.deepEqual((await member.token()).roles.map((r) => r.name).sort(), ['member', 'reader']);
    const effective = await listRoleAssignments(admin, { userID: user.id, effective: true, includeNames: true });
    assert.deepEqual(effective.map((a) => a.role.name).sort(), ['member', 'reader']);
  });

  it('enforces scoping: a project member reads its own project only and makes nothing', async () => {
    const identity = member.client('identity');
    assert.equal((await getProject(identity, project.id)).id, project.id);
    await assert.rejects(getProject(identity, other.id), ForbiddenError);
    await assert.rejects(listProjects(identity), ForbiddenError);
    await assert.rejects(createProject(identity, { name: 'nope', domain_id: 'default' }), ForbiddenError);
  });

  it('names are unique per domain case-insensitively; the name filter is exact but case-blind', async () => {
    await assert.rejects(createProject(admin, { name: 'P1', domain_id: 'default' }), ConflictError);
    assert.deepEqual(
      (await listProjects(admin, { name: 'P1' })).map((p) => p.id),
      [project.id],
    );
    assert.deepEqual(await listProjects(admin, { name: 'p' }), []);
  });

  it('an application credential may hold only roles its creator has on the project', async () => {
    const identity = member.client('identity');
    await assert.rejects(
      createApplicationCredential(identity, user.id, { name: 'too-much', roles: [{ name: 'admin' }] }),
      BadRequestError,
    );
    const made = await createApplicationCredential(identity, user.id, { name: 'ok' });
    assert.deepEqual(made.roles.map((r) => r.name).sort(), ['member', 'reader']);
    await assert.rejects(createApplicationCredential(identity, user.id, { name: 'ok' }), ConflictError);
  });

  it('tokens expire on the clock (validation then answers 404); a wrong password is 401', async () => {
    const session = cloud.session({ type: 'password', user: { id: user.id }, password: 'pw' }, { kind: 'unscoped' });
    const token = await session.token();
    const check = () =>
      admin.request({ method: 'HEAD', path: '/auth/tokens', headers: { 'X-Subject-Token': token.value } });
    await check();
    cloud.emulator.control.advance(3_600_000);
    await assert.rejects(check(), isNotFound);
    await assert.rejects(
      cloud.session({ type: 'password', user: { id: user.id }, password: 'wrong' }, { kind: 'unscoped' }).token(),
      UnauthorizedError,
    );
  });
});

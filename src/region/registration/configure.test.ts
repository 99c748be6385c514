import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../emulator/testing/cloud.ts';
import { RequestAccounting } from '../../openstack/accounting.ts';
import { ConfigError, ForbiddenError } from '../../openstack/errors.ts';
import {
  createProject,
  deleteDomain,
  findRoleByName,
  listDomains,
  updateDomain,
  type IdentityClient,
} from '../../openstack/identity.ts';
import { Session } from '../../openstack/session.ts';
import { Transport } from '../../openstack/transport.ts';
import { configureRegion, DEFAULT_ROLES, planFor, type ConfigureDeps } from './configure.ts';
import { domainSession, passwordWorks, projectSession, RegistrationError, validateCredentials } from './sessions.ts';

/** Every write a run sends to Keystone: anything but reads and asking for a token. */
function writes(accounting: RequestAccounting): number {
  return accounting
    .counts()
    .filter((c) => !['GET', 'HEAD'].includes(c.method) && c.urlTemplate !== '/auth/tokens')
    .reduce((sum, c) => sum + c.requests, 0);
}

describe('region configure (mode create) against the emulator', () => {
  let cloud: CloudFixture;
  let transport: Transport;
  const accounting = new RequestAccounting();
  let admin: IdentityClient;
  let generated = 0;

  const deps = (): ConfigureDeps => ({
    identity: admin,
    authUrl: cloud.emulator.authUrl,
    regionName: 'RegionOne',
    authenticates: (userID, password) =>
      passwordWorks(cloud.emulator.authUrl, userID, password, { transport, clock: cloud.clock }),
    newPassword: () => `generated-${String(++generated)}`,
  });

  before(async () => {
    cloud = await cloudFixture();
    transport = new Transport({
      clock: cloud.clock,
      random: () => 0,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      observer: accounting.observe,
    });
    admin = new Session<'project'>({
      authUrl: cloud.emulator.authUrl,
      auth: { type: 'password', user: { name: 'admin', domain: { id: 'default' } }, password: 'secret' },
      scope: { kind: 'project', project: { name: 'admin', domain: { id: 'default' } } },
      transport,
      clock: cloud.clock,
    }).client('identity');
    for (const name of ['manager', 'load-balancer_member']) {
      await admin.request({ method: 'POST', path: '/roles', body: { role: { name } } });
    }
  });

  after(async () => {
    await transport.close();
    await cloud.close();
  });

  beforeEach(async () => {
    // Each test starts from no scaffolding.
    for (const d of await listDomains(admin, { name: 'staging' })) {
      await updateDomain(admin, d.id, { enabled: false });
      await deleteDomain(admin, d.id);
    }
    accounting.reset();
  });

  it('creates domain, project, user and grants, and a second run writes nothing', async () => {
    const first = await configureRegion(planFor('staging'), undefined, deps());
    const c = first.credentials;
    assert.equal(c.domainName, 'staging');
    assert.equal(c.projectName, 'staging-region');
    assert.equal(c.userName, 'staging-region');
    assert.equal(c.password, `generated-${String(generated)}`);
    assert.ok(first.changes.includes('created domain staging'));
    assert.ok(first.changes.some((line) => /manager on domain staging, inherited/.test(line)));
    assert.ok(
      first.changes.every((line) => !line.includes(c.password)),
      'no password in the change log',
    );
    assert.ok(writes(accounting) > 0);

    accounting.reset();
    const second = await configureRegion(planFor('staging'), c.password, deps());
    assert.deepEqual(second.changes, []);
    assert.equal(writes(accounting), 0, JSON.stringify(accounting.counts()));
    assert.deepEqual(second.credentials, c);
  });

  it('gives a non-admin credential that manages its domain and is manager in every project of it', async () => {
    const { credentials: c } = await configureRegion(planFor('staging'), 'supplied-pw', deps());
    await validateCredentials(c, { transport, clock: cloud.clock }, 'the test');
    const domain = domainSession(c, { transport, clock: cloud.clock });
    const roles = (await domain.token()).roles.map((r) => r.name).sort();
    assert.deepEqual(roles, [...DEFAULT_ROLES.domain, 'reader'].sort());
    // A project it creates later: manager there by inheritance, without ever granting manager.
    const made = await createProject(domain.client('identity'), { name: 'identity-1', domain_id: c.domainID });
    const inProject = projectSession({ ...c, projectID: made.id }, { transport, clock: cloud.clock });
    assert.ok((await inProject.token()).roles.some((r) => r.name === 'manager'));
    // and not manager of the domain's neighbours.
    await assert.rejects(createProject(domain.client('identity'), { name: 'x', domain_id: 'default' }), ForbiddenError);
    assert.ok((await projectSession(c, { transport, clock: cloud.clock }).token()).project?.id === c.projectID);
  });

  it('creates baremetal_observer when the cloud lacks it and grants it inherited: Ironic node visibility', async () => {
    // deploy/policies/ironic.yaml lets this role list every node; no cloud has it before that policy is installed.
    const earlier = await findRoleByName(admin, 'baremetal_observer');
    if (earlier !== undefined) {
      await admin.request({ method: 'DELETE', path: '/roles/{role_id}', params: { role_id: earlier.id } });
    }
    const { credentials: c, changes } = await configureRegion(planFor('staging'), 'pw', deps());
    assert.ok(changes.includes('created role baremetal_observer'), changes.join('; '));
    assert.ok(changes.includes('granted baremetal_observer on domain staging, inherited to its projects'));
    const domain = domainSession(c, { transport, clock: cloud.clock });
    const made = await createProject(domain.client('identity'), { name: 'identity-bm', domain_id: c.domainID });
    const inProject = projectSession({ ...c, projectID: made.id }, { transport, clock: cloud.clock });
    assert.ok((await inProject.token()).roles.some((r) => r.name === 'baremetal_observer'));
    // Not on the domain itself: only project-scoped lookups need it.
    assert.ok(!(await domain.token()).roles.some((r) => r.name === 'baremetal_observer'));
    // Other missing roles are still the administrator's to create.
    await assert.rejects(
      configureRegion(planFor('staging', { inheritedRoles: ['no-such-role'] }), 'pw', deps()),
      ConfigError,
    );
  });

  it('keeps a supplied password, and sets it only when it does not already work', async () => {
    await configureRegion(planFor('staging'), 'first-pw', deps());
    accounting.reset();
    const again = await configureRegion(planFor('staging'), 'first-pw', deps());
    assert.equal(again.credentials.password, 'first-pw');
    assert.deepEqual(again.changes, []);
    const changed = await configureRegion(planFor('staging'), 'second-pw', deps());
    assert.deepEqual(changed.changes, ['set the password of user staging-region']);
    assert.equal(
      await passwordWorks(cloud.emulator.authUrl, changed.credentials.userID, 'second-pw', {
        transport,
        clock: cloud.clock,
      }),
      true,
    );
  });

  it('grants the legacy _member_ and overridden role lists', async () => {
    await admin.request({ method: 'POST', path: '/roles', body: { role: { name: '_member_' } } });
    const plan = planFor('staging', { legacyMemberRole: true, projectRoles: ['member'] });
    assert.deepEqual(plan.projectRoles, ['member', '_member_']);
    const { credentials: c } = await configureRegion(plan, 'pw', deps());
    const roles = (await projectSession(c, { transport, clock: cloud.clock }).token()).roles.map((r) => r.name);
    assert.ok(roles.includes('_member_') && roles.includes('manager'), roles.join(','));
  });

  it('names a missing role instead of creating it', async () => {
    await assert.rejects(
      configureRegion(planFor('staging', { domainRoles: ['member', 'no-such-role'] }), 'pw', deps()),
      (error: unknown) => error instanceof ConfigError && /no-such-role/.test(error.message),
    );
    assert.deepEqual(await listDomains(admin, { name: 'staging' }), []);
  });

  it('refuses a bad prefix', () => {
    for (const bad of ['', ' staging', 'a/b', 'x'.repeat(58)]) assert.throws(() => planFor(bad), ConfigError);
  });

  it('mode existing: credentials that do not authenticate are a clear error without the password', async () => {
    const { credentials: c } = await configureRegion(planFor('staging'), 'right-pw', deps());
    const wrong = { ...c, password: 'wrong-pw' };
    await assert.rejects(
      validateCredentials(wrong, { transport, clock: cloud.clock }, 'region.env'),
      (error: unknown) => {
        assert.ok(error instanceof RegistrationError);
        assert.match(error.message, /credentials of region\.env do not authenticate/);
        assert.match(error.message, /domain staging/);
        assert.ok(!error.message.includes('wrong-pw'));
        return true;
      },
    );
    await validateCredentials(c, { transport, clock: cloud.clock }, 'region.env');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listFlavors } from '../../openstack/compute.ts';
import { createProject, createUser, findRoleByName, grantRole, listProjects } from '../../openstack/identity.ts';
import { Transport } from '../../openstack/transport.ts';
import { ManualClock } from '../../util/clock.ts';
import { createRegionClientSet, Lru, type ManagedRegionClientSet } from './client-set.ts';
import { regionFixture, type RegionFixture } from './testing/region.ts';

describe('the region client set (emulator)', () => {
  let fx: RegionFixture;
  let clients: ManagedRegionClientSet;
  let project: string;
  let user: string;

  before(async () => {
    fx = await regionFixture();
    clients = (await (await fx.registry()).lookup(fx.region.metadata.name)).clients;
    const admin = fx.adminIdentity();
    const member = (await findRoleByName(admin, 'member'))?.id ?? assert.fail('member role');
    project = (await createProject(admin, { name: 'workload', domain_id: fx.credentials.domainID })).id;
    user = (await createUser(admin, { name: 'tenant', domain_id: fx.credentials.domainID, password: 'tenant-pw' })).id;
    await grantRole(admin, { userID: user, projectID: project, roleID: member });
    await grantRole(admin, { userID: fx.credentials.userID, projectID: project, roleID: member });
  });
  after(() => fx.close());

  const lastCaller = () => fx.transport.requests.at(-1)?.caller;

  it('each principal authenticates with its credentials and scope', async () => {
    const { userID, domainID, projectID } = fx.credentials;
    await listProjects(clients.manager(), { domainID: domainID });
    assert.deepEqual(lastCaller(), { userID, scope: `domain:${domainID}` });
    await listFlavors(clients.region().client('compute'));
    assert.deepEqual(lastCaller(), { userID, scope: `project:${projectID}` });
    await listFlavors(clients.privileged(project).client('compute'));
    assert.deepEqual(lastCaller(), { userID, scope: `project:${project}` });
    await listFlavors(clients.identity({ projectID: project, userID: user, password: 'tenant-pw' }).client('compute'));
    assert.deepEqual(lastCaller(), { userID: user, scope: `project:${project}` });
    assert.deepEqual(clients.credentials, {
      authUrl: fx.credentials.authUrl,
      domainID,
      projectID,
      userID,
    });
    assert.ok(!JSON.stringify(clients.credentials).includes(fx.credentials.password));
  });

  it('project sessions are cached per credential; a changed password or a forgotten project gets a new one', () => {
    const creds = { projectID: project, userID: user, password: 'tenant-pw' };
    const own = clients.identity(creds);
    assert.equal(clients.identity({ ...creds }), own);
    assert.equal(own.client('compute'), own.client('compute'));
    assert.notEqual(clients.identity({ ...creds, password: 'new' }), own);
    const privileged = clients.privileged(project);
    assert.equal(clients.privileged(project), privileged);
    clients.forgetProject(project);
    assert.notEqual(clients.privileged(project), privileged);
    assert.notEqual(clients.identity(creds), own);
  });

  it('authenticates tells a refused credential from an accepted one', async () => {
    const auth = (password: string) => ({ type: 'password', user: { id: user }, password }) as const;
    assert.equal(await clients.authenticates(auth('tenant-pw')), true);
    assert.equal(await clients.authenticates(auth('wrong')), false);
    const unknown = { type: 'application_credential', id: 'nope', secret: 'x' } as const;
    assert.equal(await clients.authenticates(unknown), false);
  });
});

describe('project session bound', () => {
  it('keeps at most the configured number of project sessions, dropping the least recently used', async () => {
    const clock = new ManualClock();
    const transport = new Transport({ clock, random: () => 0 });
    const credentials = { authUrl: 'http://x.invalid', domainID: 'd', projectID: 'p', userID: 'u', password: 'pw' };
    const set = createRegionClientSet(credentials, { transport, clock, maxProjectSessions: 2 });
    const a = set.privileged('a');
    const b = set.privileged('b');
    assert.equal(set.privileged('a'), a, 'a hit refreshes a');
    set.privileged('c');
    assert.equal(set.privileged('a'), a, 'a survived');
    assert.notEqual(set.privileged('b'), b, 'b, the least recently used, was dropped');
    await transport.close();
  });

  it('an LRU refuses a size below one and evicts in recency order', () => {
    assert.throws(() => new Lru(0), RangeError);
    const lru = new Lru<number>(2);
    lru.getOrAdd('x', () => 1);
    lru.getOrAdd('y', () => 2);
    lru.getOrAdd('x', () => 99);
    lru.getOrAdd('z', () => 3);
    assert.equal(lru.size, 2);
    assert.equal(
      lru.getOrAdd('x', () => 0),
      1,
    );
    assert.equal(
      lru.getOrAdd('y', () => 0),
      0,
    );
  });
});

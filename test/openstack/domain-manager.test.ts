/**
 * Contract: the domain-manager persona (deploy/policies/, docs/adr/0010) as the region's non-admin credential sees
 * it. The credential is the one `openregion region configure` made (clouds.yaml devcloud-region; in the emulator,
 * the same call): it manages its own Keystone domain and nothing else, and every refusal is the real 403.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateQuotaSet as updateComputeQuota } from '../../src/openstack/compute.ts';
import { updateQuotaSet as updateVolumeQuota } from '../../src/openstack/blockstorage.ts';
import { BadRequestError, ConflictError, ForbiddenError, UnauthorizedError } from '../../src/openstack/errors.ts';
import {
  createDomain,
  createProject,
  createUser,
  deleteDomain,
  deleteProject,
  deleteUser,
  findRoleByName,
  grantRole,
  hasRole,
  listProjects,
  listRoleAssignments,
  listDomains,
  listUsers,
  updateDomain,
  type IdentityClient,
  type Project,
  type Role,
  type User,
} from '../../src/openstack/identity.ts';
import { hasInheritedRole } from '../../src/openstack/identity-inherit.ts';
import {
  createNetwork,
  deleteNetwork,
  getNetwork,
  updateNetworkQuota,
  type Network,
  type NetworkClient,
} from '../../src/openstack/network.ts';
import type { Session } from '../../src/openstack/session.ts';
import { createImage, deleteImage, updateImage } from '../../src/openstack/image.ts';
import { configureRegion, planFor } from '../../src/region/registration/configure.ts';
import { passwordWorks, RegistrationError, validateCredentials } from '../../src/region/registration/sessions.ts';
import { systemClock } from '../../src/util/clock.ts';
import { contractCloud } from './cloud.ts';
import { Cleanup, must } from './cleanup.ts';

const cloud = await contractCloud();
const PASSWORD = 'ct-Secret-1';

describe('domain-manager contract (the region credential from `region configure`)', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let admin: IdentityClient;
  let region: IdentityClient;
  let domainID: string;
  let regionUserID: string;
  const roles: Record<'member' | 'admin' | 'manager', Role> = {} as Record<'member' | 'admin' | 'manager', Role>;
  let foreign: { domainId: string; project: Project; user: User };
  /** A project and user the region account made in its own domain. */
  let own: { project: Project; user: User };

  /** The region account scoped to one of its domain's projects: it is manager there by inheritance. */
  const inProject = (projectID: string): Session<'project'> =>
    c.sessionFor(c.regionAuth, { kind: 'project', project: { id: projectID } });

  const forbidden = (error: unknown) => {
    assert.ok(error instanceof ForbiddenError, `expected 403, got ${String(error)}`);
    assert.equal(error.status, 403);
    return true;
  };

  before(async () => {
    admin = c.admin.client('identity');
    region = c.region.client('identity');
    const token = await c.region.token();
    domainID = must(token.domain, 'a domain-scoped region token').id;
    regionUserID = token.user.id;
    assert.ok(!token.roles.some((r) => r.name === 'admin'), 'the region credential is not an admin');
    for (const name of ['member', 'admin', 'manager'] as const) {
      roles[name] = must(await findRoleByName(admin, name), `role ${name}`);
    }
    const d = await createDomain(admin, { name: c.name('foreign'), description: 'another deployment' });
    cleanup.add(`domain ${d.name}`, async () => {
      await updateDomain(admin, d.id, { enabled: false });
      await deleteDomain(admin, d.id);
    });
    foreign = {
      domainId: d.id,
      project: await createProject(admin, { name: c.name('foreign-project'), domain_id: d.id }),
      user: await createUser(admin, { name: c.name('foreign-user'), domain_id: d.id, password: PASSWORD }),
    };
  });

  after(async () => {
    await cleanup.run();
    await c.close();
  });

  it('configure run twice changes nothing the second time; wrong credentials are refused clearly', async () => {
    const prefix = c.name('cfg');
    const deps = {
      identity: admin,
      authUrl: c.authUrl,
      regionName: 'RegionOne',
      authenticates: (userID: string, password: string) =>
        passwordWorks(c.authUrl, userID, password, { transport: c.transport, clock: systemClock }),
      newPassword: () => assert.fail('the password is supplied'),
    };
    cleanup.add(`domain ${prefix}`, async () => {
      const d = (await listDomains(admin, { name: prefix }))[0];
      if (d === undefined) return;
      await updateDomain(admin, d.id, { enabled: false });
      await deleteDomain(admin, d.id);
    });
    const first = await configureRegion(planFor(prefix), PASSWORD, deps);
    assert.ok(first.changes.length > 0);
    await validateCredentials(first.credentials, { transport: c.transport, clock: systemClock }, 'the first run');
    const writes = () =>
      c.accounting
        .counts()
        .filter((r) => r.serviceType === 'identity' && !['GET', 'HEAD'].includes(r.method))
        .filter((r) => r.urlTemplate !== '/auth/tokens')
        .reduce((sum, r) => sum + r.requests, 0);
    const before = writes();
    const second = await configureRegion(planFor(prefix), PASSWORD, deps);
    assert.deepEqual(second.changes, []);
    assert.equal(writes(), before, 'the second run sent no write');
    assert.deepEqual(second.credentials, first.credentials);
    await assert.rejects(
      validateCredentials(
        { ...first.credentials, password: 'not-it' },
        { transport: c.transport, clock: systemClock },
        'env',
      ),
      (error: unknown) => error instanceof RegistrationError && /do not authenticate/.test(error.message),
    );
  });

  it('configure granted manager and member on the domain, inherited to its projects', async () => {
    for (const role of [roles.manager, roles.member]) {
      assert.equal(await hasInheritedRole(admin, { domainID, userID: regionUserID, roleID: role.id }), true);
    }
    const inherited = await listRoleAssignments(admin, { userID: regionUserID, domainID });
    assert.ok(
      inherited.some((a) => a.scope['OS-INHERIT:inherited_to'] === 'projects' && a.role.id === roles.manager.id),
    );
  });

  it('creates a project and a user in its domain and grants them member', async () => {
    const project = await createProject(region, { name: c.name('dm-project'), domain_id: domainID });
    cleanup.add(`project ${project.name}`, () => deleteProject(admin, project.id));
    const user = await createUser(region, { name: c.name('dm-user'), domain_id: domainID, password: PASSWORD });
    cleanup.add(`user ${user.name}`, () => deleteUser(admin, user.id));
    const target = { userID: user.id, projectID: project.id, roleID: roles.member.id };
    await grantRole(region, target);
    assert.equal(await hasRole(admin, target), true);
    own = { project, user };
    // The user it made can work in the project it made.
    const token = await c
      .sessionFor(
        { type: 'password', user: { id: user.id }, password: PASSWORD },
        { kind: 'project', project: { id: project.id } },
      )
      .token();
    assert.deepEqual(
      token.roles.map((r) => r.name).filter((n) => n === 'member'),
      ['member'],
    );
  });

  it('cannot create a project or a user in another domain (403)', async () => {
    await assert.rejects(createProject(region, { name: c.name('dm-escape'), domain_id: foreign.domainId }), forbidden);
    await assert.rejects(
      createUser(region, { name: c.name('dm-escape'), domain_id: foreign.domainId, password: PASSWORD }),
      forbidden,
    );
  });

  it('cannot grant admin or manager, even inside its domain (403)', async () => {
    const { project, user } = must(own, 'the project and user the region made');
    for (const role of [roles.admin, roles.manager]) {
      await assert.rejects(grantRole(region, { userID: user.id, projectID: project.id, roleID: role.id }), forbidden);
      await assert.rejects(grantRole(region, { userID: user.id, domainID: domainID, roleID: role.id }), forbidden);
    }
    // Nor on itself.
    await assert.rejects(
      grantRole(region, { userID: regionUserID, domainID: domainID, roleID: roles.admin.id }),
      forbidden,
    );
  });

  it('cannot grant even member across the domain boundary (403)', async () => {
    const { project, user } = must(own, 'the project and user the region made');
    await assert.rejects(
      grantRole(region, { userID: foreign.user.id, projectID: project.id, roleID: roles.member.id }),
      forbidden,
    );
    await assert.rejects(
      grantRole(region, { userID: user.id, projectID: foreign.project.id, roleID: roles.member.id }),
      forbidden,
    );
  });

  it("cannot list another domain's projects or users (403), while its own list works", async () => {
    await assert.rejects(listProjects(region, { domainID: foreign.domainId }), forbidden);
    await assert.rejects(listUsers(region, { domainID: foreign.domainId }), forbidden);
    const mine = await listProjects(region, { domainID });
    assert.ok(mine.length > 0 && mine.every((p) => p.domain_id === domainID));
  });

  it("creates a VLAN provider network in its domain's projects", async () => {
    const { project } = must(own, 'the project the region made');
    const neutron = inProject(project.id).client('network');
    const network = await createVlanNetwork(neutron, c.name('dm-vlan'));
    cleanup.add(`network ${network.id}`, () => deleteNetwork(neutron, network.id));
    const read = await getNetwork(neutron, network.id);
    assert.equal(read.project_id, project.id);
    assert.equal(read['provider:network_type'], 'vlan');
    assert.equal(read['provider:physical_network'], 'physnet1');
    await deleteNetwork(neutron, network.id);
  });

  it('cannot create a provider network outside its domain', async () => {
    // No token for a project outside its domain: Keystone refuses the scope (401).
    await assert.rejects(inProject(foreign.project.id).token(), UnauthorizedError);
    // Nor by naming the foreign project from inside its own: Neutron refuses that before policy, with a 400.
    const neutron = c.regionProject.client('network');
    await assert.rejects(
      neutron.request({
        method: 'POST',
        path: '/networks',
        body: {
          network: {
            name: c.name('dm-vlan-escape'),
            project_id: foreign.project.id,
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet1',
          },
        },
      }),
      (error: unknown) =>
        error instanceof BadRequestError && /other than the authenticated project/.test(error.message),
    );
  });

  it('a plain member of a project cannot create a provider network (403): it takes the manager', async () => {
    const { project, user } = must(own, 'the project and user the region made');
    const member = c.sessionFor(
      { type: 'password', user: { id: user.id }, password: PASSWORD },
      { kind: 'project', project: { id: project.id } },
    );
    await assert.rejects(createVlanNetwork(member.client('network'), c.name('dm-vlan-member')), forbidden);
  });

  it("sets its domain's projects' compute and volume quotas, and not another's (403)", async () => {
    const { project } = must(own, 'the project the region made');
    const session = inProject(project.id);
    const compute = await updateComputeQuota(session.client('compute'), project.id, { instances: -1, cores: -1 });
    assert.equal(compute.instances, -1);
    const volume = await updateVolumeQuota(session.client('block-storage'), project.id, { volumes: -1 });
    assert.equal(volume.volumes, -1);
    await assert.rejects(
      updateComputeQuota(session.client('compute'), foreign.project.id, { instances: 1 }),
      forbidden,
    );
    await assert.rejects(
      updateVolumeQuota(session.client('block-storage'), foreign.project.id, { volumes: 1 }),
      forbidden,
    );
    // Neutron checks update_quota against the caller's project, not the URL's, so it stays admin-only.
    await assert.rejects(updateNetworkQuota(session.client('network'), project.id, { network: -1 }), forbidden);
  });

  it("publishes its domain's projects' images (a snapshot), but not as a plain member (403)", async () => {
    const { project, user } = must(own, 'the project and user the region made');
    const member = c.sessionFor(
      { type: 'password', user: { id: user.id }, password: PASSWORD },
      { kind: 'project', project: { id: project.id } },
    );
    const glance = member.client('image');
    const snapshot = await createImage(glance, { name: c.name('dm-snapshot'), visibility: 'private' });
    cleanup.add(`image ${snapshot.id}`, () => deleteImage(c.admin.client('image'), snapshot.id));
    const publish = [{ op: 'replace', property: 'visibility', value: 'public' }] as const;
    await assert.rejects(updateImage(glance, snapshot.id, publish), forbidden);
    const published = await updateImage(inProject(project.id).client('image'), snapshot.id, publish);
    assert.equal(published.visibility, 'public');
  });
});

/** A VLAN network on physnet1; Neutron allocates nothing for provider networks, so a taken id is retried. */
async function createVlanNetwork(neutron: NetworkClient, name: string): Promise<Network> {
  for (let attempt = 0; ; attempt++) {
    const segmentationID = 100 + Math.floor(Math.random() * 101);
    try {
      return await createNetwork(neutron, {
        name,
        'provider:network_type': 'vlan',
        'provider:physical_network': 'physnet1',
        'provider:segmentation_id': segmentationID,
      });
    } catch (error) {
      if (!(error instanceof ConflictError) || attempt >= 5) throw error;
    }
  }
}

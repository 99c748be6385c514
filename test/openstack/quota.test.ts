/**
 * Contract (issue 39, item 3): quota refusals as the real services give them. A tenant project gets tiny quotas (set
 * as admin); each service's refusal is then classified by the provider's own code (region/provider/classify.ts over
 * openstack/quota.ts) and must read as the quota condition naming the right quota, never as a conflict, a rejected
 * configuration or an outage. Nova 403 (instances, cores), Neutron 409 OverQuota (network, port, security group),
 * Cinder 413 (volumes, gigabytes), Octavia 403 (load balancer).
 *
 * Runs against the dev cloud (`node --import tsx --test test/openstack/quota.test.ts`) and the emulator (the same
 * with OPENREGION_CONTRACT_TARGET=emulator).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVolume, updateQuotaSet as updateVolumeQuota } from '../../src/openstack/blockstorage.ts';
import { createServer, listFlavors, updateQuotaSet as updateComputeQuota } from '../../src/openstack/compute.ts';
import { findImageByName } from '../../src/openstack/image.ts';
import {
  createProject,
  createUser,
  deleteProject,
  deleteUser,
  findRoleByName,
  grantRole,
} from '../../src/openstack/identity.ts';
import { createLoadBalancer } from '../../src/openstack/loadbalancer.ts';
import {
  createNetwork,
  createPort,
  createSecurityGroup,
  createSubnet,
  deleteNetwork,
  updateNetworkQuota,
} from '../../src/openstack/network.ts';
import type { Session } from '../../src/openstack/session.ts';
import { classify } from '../../src/region/provider/classify.ts';
import { QuotaExceededError, ResourceKind } from '../../src/region/provider/errors.ts';
import { Cleanup, must } from './cleanup.ts';
import { contractCloud } from './cloud.ts';

const cloud = await contractCloud();
const PASSWORD = 'ct-quota-Secret-1';

describe('quota refusals of the real services read as the quota condition', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let tenant: Session<'project'>;
  let projectID: string;
  let subnetID: string;
  let networkID: string;

  before(async () => {
    const identity = c.admin.client('identity');
    const domainID = must((await c.region.token()).domain, 'region domain').id;
    const p = await createProject(identity, { name: c.name('quota-project'), domain_id: domainID });
    cleanup.add(`project ${p.name}`, () => deleteProject(identity, p.id));
    projectID = p.id;
    const u = await createUser(identity, { name: c.name('quota-user'), domain_id: domainID, password: PASSWORD });
    cleanup.add(`user ${u.name}`, () => deleteUser(identity, u.id));
    for (const role of ['member', 'load-balancer_member']) {
      const found = must(await findRoleByName(identity, role), `role ${role}`);
      await grantRole(identity, { userID: u.id, projectID: p.id, roleID: found.id });
    }
    tenant = c.sessionFor(
      { type: 'password', user: { id: u.id }, password: PASSWORD },
      {
        kind: 'project',
        project: { id: p.id },
      },
    );
    // What the load balancer's VIP needs, made before the network quotas close.
    const neutron = tenant.client('network');
    const network = await createNetwork(neutron, { name: c.name('quota-net') });
    networkID = network.id;
    cleanup.add(`network ${network.name}`, () => deleteNetwork(neutron, network.id));
    const subnet = await createSubnet(neutron, {
      network_id: network.id,
      name: c.name('quota-subnet'),
      cidr: '10.77.0.0/24',
      ip_version: 4,
    });
    subnetID = subnet.id;
  });

  after(async () => {
    await cleanup.run();
    await c.close();
  });

  /** The provider's reading of a refusal: the quota condition, naming `quota`, with its fixed tenant text. */
  async function refusedOver(call: Promise<unknown>, resource: ResourceKind, quota: string, label: string) {
    const error = await call.then(
      () => assert.fail(`accepted over the ${quota} quota`),
      (e: unknown) => e,
    );
    const read = classify(error, { resource, operation: 'create' });
    assert.ok(read instanceof QuotaExceededError, `${quota}: ${String(error)} read as ${JSON.stringify(read)}`);
    assert.equal(read.quota, quota, String(error));
    assert.equal(
      read.userMessage,
      `the project's quota for ${label} is exhausted: delete unused resources or ask an operator to raise it; retrying`,
    );
  }

  it('Nova 403: instances, then cores', async () => {
    const admin = c.admin.client('compute');
    const compute = tenant.client('compute');
    const flavor = must(
      (await listFlavors(compute)).find((f) => f.name === 'or.small'),
      'flavor or.small',
    );
    const image = must(await findImageByName(c.admin.client('image'), 'or-image-a'), 'image or-image-a');
    const boot = () =>
      createServer(compute, {
        name: c.name('quota-server'),
        flavorRef: flavor.id,
        imageRef: image.id,
        networks: 'none',
      });
    await updateComputeQuota(admin, projectID, { instances: 0 });
    await refusedOver(boot(), ResourceKind.Server, 'instances', 'servers');
    await updateComputeQuota(admin, projectID, { instances: 10, cores: 0 });
    await refusedOver(boot(), ResourceKind.Server, 'cores', 'CPU cores');
  });

  it('Neutron 409 OverQuota: networks, ports, security groups', async () => {
    const neutron = tenant.client('network');
    await updateNetworkQuota(c.admin.client('network'), projectID, { network: 1, port: 0, security_group: 0 });
    await refusedOver(
      createNetwork(neutron, { name: c.name('quota-net-2') }),
      ResourceKind.Network,
      'network',
      'networks',
    );
    await refusedOver(
      createPort(neutron, { network_id: networkID, name: c.name('quota-port') }),
      ResourceKind.Server,
      'port',
      'ports',
    );
    await refusedOver(
      createSecurityGroup(neutron, { name: c.name('quota-sg') }),
      ResourceKind.SecurityGroup,
      'security_group',
      'security groups',
    );
  });

  it('Cinder 413: volumes, then gigabytes', async () => {
    const admin = c.admin.client('block-storage');
    const cinder = tenant.client('block-storage');
    const create = () => createVolume(cinder, { size: 1, name: c.name('quota-volume') });
    await updateVolumeQuota(admin, projectID, { volumes: 0 });
    await refusedOver(create(), ResourceKind.Volume, 'volumes', 'volumes');
    await updateVolumeQuota(admin, projectID, { volumes: 10, gigabytes: 0 });
    await refusedOver(create(), ResourceKind.Volume, 'gigabytes', 'volume gigabytes');
  });

  it('Octavia 403: load balancers', async () => {
    await c.admin.client('load-balancer').request({
      method: 'PUT',
      path: '/lbaas/quotas/{project_id}',
      params: { project_id: projectID },
      body: { quota: { load_balancer: 0 } },
    });
    await refusedOver(
      createLoadBalancer(tenant.client('load-balancer'), { name: c.name('quota-lb'), vip_subnet_id: subnetID }),
      ResourceKind.LoadBalancer,
      'load_balancer',
      'load balancers',
    );
  });
});

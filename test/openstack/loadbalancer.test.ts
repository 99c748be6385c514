/**
 * Octavia contract: the load balancer topology the region reconciles (load balancer, listeners, pools, members,
 * health monitors), the provisioning states its reconcile table keys off, and API version discovery, checked
 * against the real Octavia 11 (amphora provider with a no-op amphora driver, so operating_status stays OFFLINE; the
 * dev cloud's amphorae are fake-virt Nova servers and its network driver is allowed-address-pairs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, ConflictError, ForbiddenError, NotFoundError } from '../../src/openstack/errors.ts';
import {
  createProject,
  createUser,
  deleteProject,
  deleteUser,
  findRoleByName,
  grantRole,
} from '../../src/openstack/identity.ts';
import {
  createHealthMonitor,
  createListener,
  createLoadBalancer,
  createPool,
  deleteHealthMonitor,
  deleteListener,
  deleteLoadBalancer,
  deleteMember,
  deletePool,
  findHealthMonitorByName,
  findListenerByName,
  findLoadBalancerByName,
  findPoolByName,
  getApiVersion,
  getHealthMonitor,
  getListener,
  getLoadBalancer,
  getMember,
  getPool,
  listHealthMonitors,
  listListeners,
  listLoadBalancers,
  listMembers,
  listPools,
  replaceMembers,
  requireApiVersion,
  updateHealthMonitor,
  updateListener,
  updatePool,
  type LoadBalancer,
  type LoadBalancerClient,
  type ProvisioningStatus,
} from '../../src/openstack/loadbalancer.ts';
import {
  createNetwork,
  createSubnet,
  deleteNetwork,
  deleteSubnet,
  type NetworkClient,
} from '../../src/openstack/network.ts';
import { contractCloud } from './cloud.ts';
import { Cleanup } from './cleanup.ts';

const cloud = await contractCloud();

/** Undo steps for everything this file makes, run newest first after the suite. */
const cleanup = new Cleanup();
const defer = (what: string, run: () => Promise<unknown>): void => {
  cleanup.add(what, run);
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Octavia contract (loadbalancer.ts against the real Octavia)', { skip: cloud === undefined }, () => {
  if (cloud === undefined) return;
  /**
   * Load balancers are made in an identity's project by a user holding member and load-balancer_member there, as
   * the region's identity provisioning grants them (the seeded region account holds load-balancer_member on its
   * domain only, which Octavia does not honour for a project-scoped token: see the 403 test below).
   */
  let octavia: LoadBalancerClient;
  let neutron: NetworkClient;

  before(async () => {
    const identity = cloud.admin.client('identity');
    const domainId = (await cloud.region.token()).domain?.id;
    assert.ok(domainId, 'the region session is domain-scoped');
    const project = await createProject(identity, { name: cloud.name('lb-identity'), domain_id: domainId });
    defer(`project ${project.name}`, () => deleteProject(identity, project.id));
    const password = cloud.name('pw');
    const user = await createUser(identity, { name: cloud.name('lb-user'), domain_id: domainId, password });
    defer(`user ${user.name}`, () => deleteUser(identity, user.id));
    for (const name of ['member', 'load-balancer_member']) {
      const role = await findRoleByName(identity, name);
      assert.ok(role, `role ${name}`);
      await grantRole(identity, { userId: user.id, roleId: role.id, projectId: project.id });
    }
    const session = cloud.sessionFor<'project'>(
      { type: 'password', user: { id: user.id }, password },
      { kind: 'project', project: { id: project.id } },
    );
    octavia = session.client('load-balancer');
    neutron = session.client('network');
  });
  /** What polling saw after each operation, for the report and the assertions on PENDING_* states. */
  const seen: Record<string, ProvisioningStatus[]> = {};

  after(async () => {
    for (const [op, statuses] of Object.entries(seen)) process.stderr.write(`octavia ${op}: ${statuses.join(' → ')}\n`);
    await cleanup.run();
    await cloud.close();
  });

  /**
   * Polls the load balancer fast until it is ACTIVE again, recording each distinct provisioning status seen
   * (immediately after the call first, so a PENDING_* the API set synchronously is caught).
   */
  async function settle(lbId: string, op: string, timeoutMs = 90_000): Promise<LoadBalancer> {
    const statuses: ProvisioningStatus[] = [];
    seen[op] = statuses;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const lb = await getLoadBalancer(octavia, lbId);
      if (statuses.at(-1) !== lb.provisioning_status) statuses.push(lb.provisioning_status);
      if (lb.provisioning_status === 'ACTIVE') return lb;
      assert.ok(
        lb.provisioning_status.startsWith('PENDING_'),
        `${op}: load balancer went ${lb.provisioning_status}, never ACTIVE`,
      );
      if (Date.now() > deadline) throw new Error(`${op}: load balancer still ${lb.provisioning_status}`);
      await sleep(40);
    }
  }

  it('the seeded region project credential (member, manager; load-balancer_member on the domain only) is refused: 403', async () => {
    await assert.rejects(
      createLoadBalancer(cloud.regionProject.client('load-balancer'), {
        name: cloud.name('lb-denied'),
        vip_subnet_id: '00000000-0000-0000-0000-000000000000',
      }),
      (error: unknown) => {
        assert.ok(error instanceof ForbiddenError, String(error));
        assert.equal(error.urlTemplate, '/lbaas/loadbalancers');
        return true;
      },
    );
  });

  it('API version discovery: Octavia 11 reports v2.26 CURRENT; 2.22 (PROXYV2) is satisfied, 2.99 is not', async () => {
    const version = await getApiVersion(octavia);
    assert.deepEqual(version, { major: 2, minor: 26 });
    assert.deepEqual(await requireApiVersion(octavia, '2.22'), { major: 2, minor: 26 });
    await assert.rejects(requireApiVersion(octavia, '2.99'), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /2\.26.*2\.99/);
      return true;
    });
  });

  it('a load balancer with listeners, pools (one PROXYV2), members and a health monitor, through PENDING_* to ACTIVE; cascade delete', async () => {
    const network = await createNetwork(neutron, { name: cloud.name('lb-net') });
    defer(`network ${network.name}`, () => deleteNetwork(neutron, network.id));
    const subnet = await createSubnet(neutron, {
      network_id: network.id,
      name: cloud.name('lb-subnet'),
      cidr: '10.77.0.0/24',
      ip_version: 4,
    });
    defer(`subnet ${subnet.name}`, () => deleteSubnet(neutron, subnet.id));

    const lbName = cloud.name('lb');
    const created = await createLoadBalancer(octavia, {
      name: lbName,
      description: 'contract',
      vip_subnet_id: subnet.id,
    });
    defer(`load balancer ${lbName}`, async () => {
      await deleteLoadBalancer(octavia, created.id, { cascade: true });
    });
    assert.equal(created.provisioning_status, 'PENDING_CREATE');
    assert.equal(created.vip_subnet_id, subnet.id);
    assert.equal(created.provider, 'amphora');
    let lb = await settle(created.id, 'create load balancer');
    // Nothing sends amphora heartbeats: operating status stays OFFLINE.
    assert.equal(lb.operating_status, 'OFFLINE');
    assert.ok(lb.vip_address);

    // Exact lookups, with a prefix that must not alias.
    assert.equal((await findLoadBalancerByName(octavia, lbName))?.id, created.id);
    assert.equal(await findLoadBalancerByName(octavia, lbName.slice(0, -1)), undefined);
    assert.deepEqual(await listLoadBalancers(octavia, { name: lbName.slice(0, -1) }), []);

    // --- HTTP listener
    const httpName = `${lbName}-http-listener`;
    const http = await createListener(octavia, {
      name: httpName,
      loadbalancer_id: created.id,
      protocol: 'HTTP',
      protocol_port: 80,
      allowed_cidrs: ['10.0.0.0/8'],
    });
    assert.equal(http.provisioning_status, 'PENDING_CREATE');
    // The load balancer is immutable until the worker is done: a second child now is Octavia's 409.
    let immutable: Error | undefined;
    try {
      await createListener(octavia, {
        name: `${lbName}-race-listener`,
        loadbalancer_id: created.id,
        protocol: 'HTTP',
        protocol_port: 81,
      });
    } catch (error) {
      immutable = error instanceof Error ? error : new Error(String(error));
    }
    lb = await settle(created.id, 'create HTTP listener');
    process.stderr.write(
      `octavia second child while PENDING_UPDATE: ${immutable === undefined ? 'accepted (worker was done)' : immutable.message}\n`,
    );
    if (immutable !== undefined) {
      assert.ok(immutable instanceof ConflictError, `expected ConflictError, got ${immutable.message}`);
      assert.match(immutable.fault.message ?? '', /immutable/);
    } else {
      // The worker won the race; drop the extra listener so the topology stays as planned.
      const raced = await findListenerByName(octavia, `${lbName}-race-listener`);
      if (raced) {
        await deleteListener(octavia, raced.id);
        lb = await settle(created.id, 'delete raced listener');
      }
    }
    assert.equal((await getListener(octavia, http.id)).provisioning_status, 'ACTIVE');
    assert.deepEqual(
      lb.listeners.map((l) => l.id),
      [http.id],
    );

    // --- HTTP pool as the listener's default pool
    const poolName = `${lbName}-http-pool`;
    const pool = await createPool(octavia, {
      name: poolName,
      listener_id: http.id,
      protocol: 'HTTP',
      lb_algorithm: 'ROUND_ROBIN',
    });
    assert.equal(pool.provisioning_status, 'PENDING_CREATE');
    await settle(created.id, 'create HTTP pool');
    assert.equal((await getListener(octavia, http.id)).default_pool_id, pool.id);

    // --- members, replaced as a batch
    await replaceMembers(octavia, pool.id, [
      { address: '10.77.0.10', protocol_port: 8080, subnet_id: subnet.id, name: 'a' },
      { address: '10.77.0.11', protocol_port: 8080, subnet_id: subnet.id, name: 'b' },
    ]);
    await settle(created.id, 'replace members (2)');
    let members = await listMembers(octavia, pool.id);
    assert.deepEqual(members.map((m) => `${m.address}:${String(m.protocol_port)}`).sort(), [
      '10.77.0.10:8080',
      '10.77.0.11:8080',
    ]);
    assert.ok(members.every((m) => m.provisioning_status === 'ACTIVE'));
    const kept = members.find((m) => m.address === '10.77.0.10');
    assert.ok(kept);

    // Replace: keep .10 (weight changes in place, same id), drop .11, add .12.
    await replaceMembers(octavia, pool.id, [
      { address: '10.77.0.10', protocol_port: 8080, subnet_id: subnet.id, name: 'a', weight: 5 },
      { address: '10.77.0.12', protocol_port: 8080, subnet_id: subnet.id, name: 'c' },
    ]);
    await settle(created.id, 'replace members (keep 1, drop 1, add 1)');
    members = await listMembers(octavia, pool.id);
    assert.deepEqual(members.map((m) => m.address).sort(), ['10.77.0.10', '10.77.0.12']);
    const keptAfter = await getMember(octavia, pool.id, kept.id);
    assert.equal(keptAfter.weight, 5);
    assert.equal(keptAfter.address, '10.77.0.10');
    const added = members.find((m) => m.address === '10.77.0.12');
    assert.ok(added);
    await deleteMember(octavia, pool.id, added.id);
    await settle(created.id, 'delete member');
    await assert.rejects(getMember(octavia, pool.id, added.id), NotFoundError);
    assert.deepEqual(
      (await listMembers(octavia, pool.id)).map((m) => m.id),
      [kept.id],
    );

    // --- health monitor
    const monitorName = `${lbName}-http-monitor`;
    const monitor = await createHealthMonitor(octavia, {
      name: monitorName,
      pool_id: pool.id,
      type: 'HTTP',
      delay: 5,
      timeout: 3,
      max_retries: 3,
      max_retries_down: 3,
      http_method: 'GET',
      url_path: '/healthz',
      expected_codes: '200',
    });
    assert.equal(monitor.provisioning_status, 'PENDING_CREATE');
    await settle(created.id, 'create health monitor');
    assert.equal((await getPool(octavia, pool.id)).healthmonitor_id, monitor.id);

    // --- in-place updates the reconciler converges
    const updatedListener = await updateListener(octavia, http.id, {
      allowed_cidrs: ['10.0.0.0/8', '192.168.0.0/16'],
      timeout_client_data: 120_000,
    });
    assert.equal(updatedListener.provisioning_status, 'PENDING_UPDATE');
    await settle(created.id, 'update listener');
    const listenerRead = await getListener(octavia, http.id);
    assert.deepEqual([...(listenerRead.allowed_cidrs ?? [])].sort(), ['10.0.0.0/8', '192.168.0.0/16']);
    assert.equal(listenerRead.timeout_client_data, 120_000);

    await updatePool(octavia, pool.id, { lb_algorithm: 'LEAST_CONNECTIONS', description: 'updated' });
    await settle(created.id, 'update pool');
    assert.equal((await getPool(octavia, pool.id)).lb_algorithm, 'LEAST_CONNECTIONS');

    await updateHealthMonitor(octavia, monitor.id, { delay: 10, timeout: 5, max_retries: 4 });
    await settle(created.id, 'update health monitor');
    const monitorRead = await getHealthMonitor(octavia, monitor.id);
    assert.equal(monitorRead.delay, 10);
    assert.equal(monitorRead.max_retries, 4);
    assert.equal(monitorRead.provisioning_status, 'ACTIVE');

    // --- TCP listener with a PROXYV2 pool (API 2.22)
    const tcpName = `${lbName}-tcp-listener`;
    const tcp = await createListener(octavia, {
      name: tcpName,
      loadbalancer_id: created.id,
      protocol: 'TCP',
      protocol_port: 5432,
      timeout_client_data: 300_000,
      timeout_member_data: 300_000,
    });
    await settle(created.id, 'create TCP listener');
    const proxyName = `${lbName}-tcp-pool`;
    const proxy = await createPool(octavia, {
      name: proxyName,
      listener_id: tcp.id,
      protocol: 'PROXYV2',
      lb_algorithm: 'SOURCE_IP',
    });
    await settle(created.id, 'create PROXYV2 pool');
    assert.equal((await getPool(octavia, proxy.id)).protocol, 'PROXYV2');
    const tcpMonitor = await createHealthMonitor(octavia, {
      name: `${lbName}-tcp-monitor`,
      pool_id: proxy.id,
      type: 'TCP',
      delay: 5,
      timeout: 3,
      max_retries: 3,
    });
    await settle(created.id, 'create TCP health monitor');

    // --- exact lookups and the name filter: equality, so shared prefixes do not alias
    assert.equal((await findListenerByName(octavia, httpName))?.id, http.id);
    assert.equal((await findListenerByName(octavia, tcpName))?.id, tcp.id);
    assert.equal((await findPoolByName(octavia, poolName))?.id, pool.id);
    assert.equal((await findPoolByName(octavia, proxyName))?.id, proxy.id);
    assert.equal((await findHealthMonitorByName(octavia, monitorName))?.id, monitor.id);
    assert.deepEqual(await listListeners(octavia, { name: `${lbName}-` }), []);
    assert.deepEqual(await listPools(octavia, { name: lbName }), []);
    assert.deepEqual(
      (await listHealthMonitors(octavia, { name: `${lbName}-tcp-monitor` })).map((m) => m.id),
      [tcpMonitor.id],
    );
    const project = created.project_id;
    assert.ok((await listLoadBalancers(octavia, { projectId: project })).some((l) => l.id === created.id));
    // Paging over the project's pools with pageSize 1 still finds both.
    const poolIds = (await listPools(octavia, { projectId: project }, { pageSize: 1 })).map((p) => p.id);
    assert.ok(poolIds.includes(pool.id) && poolIds.includes(proxy.id));

    // --- piecewise deletes, each through PENDING_UPDATE on the load balancer
    await deleteHealthMonitor(octavia, tcpMonitor.id);
    await settle(created.id, 'delete health monitor');
    await assert.rejects(getHealthMonitor(octavia, tcpMonitor.id), NotFoundError);
    await deletePool(octavia, proxy.id);
    await settle(created.id, 'delete pool');
    await assert.rejects(getPool(octavia, proxy.id), NotFoundError);
    await deleteListener(octavia, tcp.id);
    await settle(created.id, 'delete listener');
    await assert.rejects(getListener(octavia, tcp.id), NotFoundError);

    // Every child operation put the load balancer in PENDING_UPDATE at least once where polling could see it.
    const childOps = Object.entries(seen).filter(([op]) => op !== 'create load balancer');
    assert.ok(
      childOps.some(([, statuses]) => statuses.includes('PENDING_UPDATE')),
      `PENDING_UPDATE seen after some child operation: ${JSON.stringify(seen)}`,
    );
    for (const [op, statuses] of childOps) {
      assert.ok(
        statuses.every((s) => s === 'PENDING_UPDATE' || s === 'ACTIVE'),
        `${op}: ${statuses.join(' → ')}`,
      );
    }
    assert.ok(seen['create load balancer']?.every((s) => s === 'PENDING_CREATE' || s === 'ACTIVE'));

    // --- cascade delete takes the rest (HTTP listener, pool, member, monitor) with it
    await deleteLoadBalancer(octavia, created.id, { cascade: true });
    const deleting: string[] = [];
    for (let i = 0; ; i++) {
      try {
        const read = await getLoadBalancer(octavia, created.id);
        if (deleting.at(-1) !== read.provisioning_status) deleting.push(read.provisioning_status);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        deleting.push('404');
        break;
      }
      assert.ok(i < 2000, `cascade delete finished: ${deleting.join(' → ')}`);
      await sleep(50);
    }
    seen['cascade delete'] = deleting.filter((s): s is ProvisioningStatus => s !== '404');
    assert.ok(
      deleting.every((s) => s === 'PENDING_DELETE' || s === 'DELETED' || s === '404'),
      deleting.join(' → '),
    );
    await assert.rejects(getListener(octavia, http.id), NotFoundError);
    await assert.rejects(getPool(octavia, pool.id), NotFoundError);
    await assert.rejects(getHealthMonitor(octavia, monitor.id), NotFoundError);
    assert.equal(await findLoadBalancerByName(octavia, lbName), undefined);
  });
});

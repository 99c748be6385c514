import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, ConsistencyError } from './errors.ts';
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
  versionRootUrl,
  type LoadBalancerClient,
} from './loadbalancer.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const base = '/load-balancer/v2';

const lb = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  description: '',
  project_id: 'p-1',
  provisioning_status: 'ACTIVE',
  operating_status: 'ONLINE',
  vip_address: '10.0.0.5',
  vip_port_id: 'port-1',
  vip_subnet_id: 'sub-1',
  vip_network_id: 'net-1',
  provider: 'amphora',
  flavor_id: null,
  listeners: [],
  pools: [],
  created_at: '2025-01-01T00:00:00',
  updated_at: null,
  ...extra,
});

/** Echoes the posted/put object back under `key`, with an id and statuses, as Octavia does. */
const echo =
  (key: string, status = 201) =>
  (req: { json(): unknown }, p: Record<string, string>) => ({
    status,
    body: {
      [key]: {
        id: p.id ?? `${key}-new`,
        provisioning_status: 'PENDING_CREATE',
        operating_status: 'OFFLINE',
        ...(req.json() as Record<string, Record<string, unknown>>)[key],
      },
    },
  });

describe('loadbalancer', () => {
  let h: Harness;
  let octavia: LoadBalancerClient;
  before(async () => ({ h, client: octavia } = await clientHarness('load-balancer')));
  after(() => h.close());

  describe('load balancers', () => {
    it('creates a load balancer on a VIP subnet, with the pinned 2.22 microversion header', async () => {
      h.cloud.on('POST', `${base}/lbaas/loadbalancers`, echo('loadbalancer'));
      const created = await createLoadBalancer(octavia, {
        name: 'lb-abc',
        description: 'managed',
        vip_subnet_id: 'sub-1',
        vip_address: '10.0.0.9',
        project_id: 'p-1',
        provider: 'ovn',
        flavor_id: 'fl-1',
      });
      const req = h.cloud.last('POST', `${base}/lbaas/loadbalancers`);
      assert.deepEqual(req.json(), {
        loadbalancer: {
          name: 'lb-abc',
          description: 'managed',
          vip_subnet_id: 'sub-1',
          vip_address: '10.0.0.9',
          project_id: 'p-1',
          provider: 'ovn',
          flavor_id: 'fl-1',
        },
      });
      assert.equal(req.headers['openstack-api-version'], 'load-balancer 2.22');
      assert.equal(created.id, 'loadbalancer-new');
      assert.equal(created.provisioning_status, 'PENDING_CREATE');
    });

    it('gets a load balancer with its VIP and children', async () => {
      h.cloud.on('GET', `${base}/lbaas/loadbalancers/:id`, (_req, p) => ({
        body: { loadbalancer: lb(p.id ?? '', 'lb-abc', { listeners: [{ id: 'l-1' }], pools: [{ id: 'pool-1' }] }) },
      }));
      const got = await getLoadBalancer(octavia, 'lb-1');
      const req = h.cloud.last();
      assert.equal(req.path, `${base}/lbaas/loadbalancers/lb-1`);
      assert.equal(req.headers['openstack-api-version'], 'load-balancer 2.22');
      assert.equal(got.id, 'lb-1');
      assert.equal(got.vip_address, '10.0.0.5');
      assert.equal(got.vip_port_id, 'port-1');
      assert.deepEqual(got.listeners, [{ id: 'l-1' }]);
      assert.deepEqual(got.pools, [{ id: 'pool-1' }]);
    });

    it('lists load balancers with filters and follows loadbalancers_links', async () => {
      h.cloud.on('GET', `${base}/lbaas/loadbalancers`, (req) =>
        req.query.get('marker') === 'lb-2'
          ? { body: { loadbalancers: [lb('lb-3', 'c')], loadbalancers_links: [] } }
          : {
              body: {
                loadbalancers: [lb('lb-1', 'a'), lb('lb-2', 'b')],
                loadbalancers_links: [
                  { rel: 'next', href: 'http://octavia:9876/v2/lbaas/loadbalancers?limit=2&marker=lb-2' },
                ],
              },
            },
      );
      const start = h.cloud.requests.length;
      const all = await listLoadBalancers(octavia, { name: 'lb-x', projectID: 'p-1' }, { pageSize: 2 });
      assert.deepEqual(
        all.map((l) => l.id),
        ['lb-1', 'lb-2', 'lb-3'],
      );
      const [first, second] = h.cloud.requests.slice(start);
      assert.ok(first && second);
      assert.equal(first.query.get('name'), 'lb-x');
      assert.equal(first.query.get('project_id'), 'p-1');
      assert.equal(first.query.get('limit'), '2');
      assert.equal(second.path, `${base}/lbaas/loadbalancers`);
      assert.equal(second.query.get('marker'), 'lb-2');
    });

    it('deletes a load balancer, cascading only when asked', async () => {
      h.cloud.on('DELETE', `${base}/lbaas/loadbalancers/:id`, { status: 204 });
      await deleteLoadBalancer(octavia, 'lb-1');
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/loadbalancers/lb-1`);
      assert.equal(h.cloud.last('DELETE').query.has('cascade'), false);
      await deleteLoadBalancer(octavia, 'lb-2', { cascade: true });
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/loadbalancers/lb-2`);
      assert.equal(h.cloud.last('DELETE').query.get('cascade'), 'true');
    });
  });

  describe('listeners', () => {
    const listener = (id: string, name: string) => ({
      id,
      name,
      description: '',
      project_id: 'p-1',
      protocol: 'TCP',
      protocol_port: 443,
      loadbalancers: [{ id: 'lb-1' }],
      default_pool_id: null,
      allowed_cidrs: null,
      timeout_client_data: 50000,
      timeout_member_connect: 5000,
      timeout_member_data: 50000,
      timeout_tcp_inspect: 0,
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
    });

    it('creates, gets, updates and deletes a listener', async () => {
      h.cloud.on('POST', `${base}/lbaas/listeners`, echo('listener'));
      const created = await createListener(octavia, {
        name: 'lb-1-web-listener',
        loadbalancer_id: 'lb-1',
        protocol: 'TCP',
        protocol_port: 443,
        default_pool_id: 'pool-1',
        allowed_cidrs: ['10.0.0.0/8'],
        timeout_client_data: 60000,
        timeout_member_data: 60000,
      });
      assert.deepEqual(h.cloud.last('POST').json(), {
        listener: {
          name: 'lb-1-web-listener',
          loadbalancer_id: 'lb-1',
          protocol: 'TCP',
          protocol_port: 443,
          default_pool_id: 'pool-1',
          allowed_cidrs: ['10.0.0.0/8'],
          timeout_client_data: 60000,
          timeout_member_data: 60000,
        },
      });
      assert.equal(h.cloud.last('POST').path, `${base}/lbaas/listeners`);
      assert.equal(created.protocol_port, 443);

      h.cloud.on('GET', `${base}/lbaas/listeners/:id`, (_req, p) => ({
        body: { listener: listener(p.id ?? '', 'lb-1-web-listener') },
      }));
      const got = await getListener(octavia, 'l-1');
      assert.equal(h.cloud.last().path, `${base}/lbaas/listeners/l-1`);
      assert.equal(got.id, 'l-1');
      assert.equal(got.timeout_client_data, 50000);

      h.cloud.on('PUT', `${base}/lbaas/listeners/:id`, echo('listener', 200));
      const updated = await updateListener(octavia, 'l-1', {
        allowed_cidrs: null,
        default_pool_id: null,
        timeout_client_data: 1000,
      });
      const put = h.cloud.last('PUT');
      assert.equal(put.path, `${base}/lbaas/listeners/l-1`);
      assert.deepEqual(put.json(), {
        listener: { allowed_cidrs: null, default_pool_id: null, timeout_client_data: 1000 },
      });
      assert.equal(updated.id, 'l-1');
      assert.equal(updated.default_pool_id, null);

      h.cloud.on('DELETE', `${base}/lbaas/listeners/:id`, { status: 204 });
      await deleteListener(octavia, 'l-1');
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/listeners/l-1`);
    });

    it('lists listeners and finds one by exact name: none, one, duplicate', async () => {
      const reply = (items: unknown[]) => {
        h.cloud.on('GET', `${base}/lbaas/listeners`, { body: { listeners: items, listeners_links: [] } });
      };
      reply([listener('l-1', 'a'), listener('l-2', 'b')]);
      assert.equal((await listListeners(octavia, { projectID: 'p-1' })).length, 2);
      assert.equal(h.cloud.last().query.get('project_id'), 'p-1');

      reply([listener('l-9', 'lb-1-web-listener-old')]);
      assert.equal(await findListenerByName(octavia, 'lb-1-web-listener'), undefined);
      assert.equal(h.cloud.last().query.get('name'), 'lb-1-web-listener');

      reply([listener('l-9', 'lb-1-web-listener-old'), listener('l-1', 'lb-1-web-listener')]);
      assert.equal((await findListenerByName(octavia, 'lb-1-web-listener'))?.id, 'l-1');

      reply([listener('l-1', 'lb-1-web-listener'), listener('l-2', 'lb-1-web-listener')]);
      await assert.rejects(findListenerByName(octavia, 'lb-1-web-listener'), ConsistencyError);
    });
  });

  describe('pools and members', () => {
    const pool = (id: string, name: string) => ({
      id,
      name,
      description: '',
      project_id: 'p-1',
      protocol: 'PROXYV2',
      lb_algorithm: 'ROUND_ROBIN',
      session_persistence: null,
      listeners: [{ id: 'l-1' }],
      loadbalancers: [{ id: 'lb-1' }],
      members: [{ id: 'm-1' }],
      healthmonitor_id: 'hm-1',
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
    });
    const member = (id: string, address: string) => ({
      id,
      name: '',
      address,
      protocol_port: 8080,
      weight: 1,
      backup: false,
      subnet_id: null,
      monitor_address: null,
      monitor_port: null,
      admin_state_up: true,
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
    });

    it('creates, gets, updates and deletes a PROXYV2 pool', async () => {
      h.cloud.on('POST', `${base}/lbaas/pools`, echo('pool'));
      const created = await createPool(octavia, {
        name: 'lb-1-web-pool',
        listener_id: 'l-1',
        protocol: 'PROXYV2',
        lb_algorithm: 'ROUND_ROBIN',
        session_persistence: { type: 'SOURCE_IP' },
      });
      assert.equal(h.cloud.last('POST').path, `${base}/lbaas/pools`);
      assert.deepEqual(h.cloud.last('POST').json(), {
        pool: {
          name: 'lb-1-web-pool',
          listener_id: 'l-1',
          protocol: 'PROXYV2',
          lb_algorithm: 'ROUND_ROBIN',
          session_persistence: { type: 'SOURCE_IP' },
        },
      });
      assert.equal(h.cloud.last('POST').headers['openstack-api-version'], 'load-balancer 2.22');
      assert.equal(created.protocol, 'PROXYV2');

      h.cloud.on('GET', `${base}/lbaas/pools/:id`, (_req, p) => ({ body: { pool: pool(p.id ?? '', 'x') } }));
      const got = await getPool(octavia, 'pool-1');
      assert.equal(h.cloud.last().path, `${base}/lbaas/pools/pool-1`);
      assert.equal(got.healthmonitor_id, 'hm-1');
      assert.deepEqual(got.members, [{ id: 'm-1' }]);

      h.cloud.on('PUT', `${base}/lbaas/pools/:id`, echo('pool', 200));
      const updated = await updatePool(octavia, 'pool-1', {
        lb_algorithm: 'LEAST_CONNECTIONS',
        session_persistence: null,
      });
      assert.equal(h.cloud.last('PUT').path, `${base}/lbaas/pools/pool-1`);
      assert.deepEqual(h.cloud.last('PUT').json(), {
        pool: { lb_algorithm: 'LEAST_CONNECTIONS', session_persistence: null },
      });
      assert.equal(updated.lb_algorithm, 'LEAST_CONNECTIONS');

      h.cloud.on('DELETE', `${base}/lbaas/pools/:id`, { status: 204 });
      await deletePool(octavia, 'pool-1');
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/pools/pool-1`);
    });

    it('lists pools and finds one by exact name: none, one, duplicate', async () => {
      const reply = (items: unknown[]) => {
        h.cloud.on('GET', `${base}/lbaas/pools`, { body: { pools: items } });
      };
      reply([pool('pool-1', 'a')]);
      assert.deepEqual(
        (await listPools(octavia)).map((p) => p.id),
        ['pool-1'],
      );
      assert.deepEqual([...h.cloud.last().query.keys()], []);

      reply([pool('pool-9', 'LB-1-WEB-POOL')]);
      assert.equal(await findPoolByName(octavia, 'lb-1-web-pool'), undefined);
      assert.equal(h.cloud.last().query.get('name'), 'lb-1-web-pool');

      reply([pool('pool-1', 'lb-1-web-pool')]);
      assert.equal((await findPoolByName(octavia, 'lb-1-web-pool'))?.id, 'pool-1');

      reply([pool('pool-1', 'lb-1-web-pool'), pool('pool-2', 'lb-1-web-pool')]);
      await assert.rejects(findPoolByName(octavia, 'lb-1-web-pool'), ConsistencyError);
    });

    it('lists a pool’s members across pages', async () => {
      h.cloud.on('GET', `${base}/lbaas/pools/:id/members`, (req, p) =>
        req.query.has('marker')
          ? { body: { members: [member('m-2', '10.0.0.2')] } }
          : {
              body: {
                members: [member('m-1', '10.0.0.1')],
                members_links: [{ rel: 'next', href: `/v2/lbaas/pools/${p.id ?? ''}/members?marker=m-1` }],
              },
            },
      );
      const members = await listMembers(octavia, 'pool-1');
      assert.deepEqual(
        members.map((m) => [m.id, m.address, m.protocol_port]),
        [
          ['m-1', '10.0.0.1', 8080],
          ['m-2', '10.0.0.2', 8080],
        ],
      );
      assert.equal(h.cloud.last().path, `${base}/lbaas/pools/pool-1/members`);
      assert.equal(h.cloud.last().query.get('marker'), 'm-1');
    });

    it('replaces the member set in one batch PUT', async () => {
      h.cloud.on('PUT', `${base}/lbaas/pools/:id/members`, { status: 202 });
      await replaceMembers(octavia, 'pool-1', [
        { address: '10.0.0.1', protocol_port: 8080 },
        { address: '10.0.0.3', protocol_port: 8443, subnet_id: 'sub-1' },
      ]);
      const req = h.cloud.last('PUT');
      assert.equal(req.path, `${base}/lbaas/pools/pool-1/members`);
      assert.deepEqual(req.json(), {
        members: [
          { address: '10.0.0.1', protocol_port: 8080 },
          { address: '10.0.0.3', protocol_port: 8443, subnet_id: 'sub-1' },
        ],
      });

      await replaceMembers(octavia, 'pool-1', []);
      assert.deepEqual(h.cloud.last('PUT').json(), { members: [] });
    });

    it('gets and deletes a member', async () => {
      h.cloud.on('GET', `${base}/lbaas/pools/:pool/members/:id`, (_req, p) => ({
        body: { member: member(p.id ?? '', '10.0.0.1') },
      }));
      const got = await getMember(octavia, 'pool-1', 'm-1');
      assert.equal(h.cloud.last().path, `${base}/lbaas/pools/pool-1/members/m-1`);
      assert.equal(got.id, 'm-1');
      assert.equal(got.address, '10.0.0.1');

      h.cloud.on('DELETE', `${base}/lbaas/pools/:pool/members/:id`, { status: 204 });
      await deleteMember(octavia, 'pool-1', 'm-1');
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/pools/pool-1/members/m-1`);
    });
  });

  describe('health monitors', () => {
    const monitor = (id: string, name: string) => ({
      id,
      name,
      project_id: 'p-1',
      type: 'UDP-CONNECT',
      delay: 10,
      timeout: 5,
      max_retries: 3,
      max_retries_down: 3,
      http_method: null,
      url_path: null,
      expected_codes: null,
      pools: [{ id: 'pool-1' }],
      provisioning_status: 'ACTIVE',
      operating_status: 'ONLINE',
    });

    it('creates, gets, updates and deletes a health monitor', async () => {
      h.cloud.on('POST', `${base}/lbaas/healthmonitors`, echo('healthmonitor'));
      const created = await createHealthMonitor(octavia, {
        name: 'lb-1-web-monitor',
        pool_id: 'pool-1',
        type: 'HTTP',
        delay: 10,
        timeout: 5,
        max_retries: 3,
        max_retries_down: 2,
        http_method: 'GET',
        url_path: '/healthz',
        expected_codes: '200-299',
      });
      assert.equal(h.cloud.last('POST').path, `${base}/lbaas/healthmonitors`);
      assert.deepEqual(h.cloud.last('POST').json(), {
        healthmonitor: {
          name: 'lb-1-web-monitor',
          pool_id: 'pool-1',
          type: 'HTTP',
          delay: 10,
          timeout: 5,
          max_retries: 3,
          max_retries_down: 2,
          http_method: 'GET',
          url_path: '/healthz',
          expected_codes: '200-299',
        },
      });
      assert.equal(created.type, 'HTTP');

      h.cloud.on('GET', `${base}/lbaas/healthmonitors/:id`, (_req, p) => ({
        body: { healthmonitor: monitor(p.id ?? '', 'x') },
      }));
      const got = await getHealthMonitor(octavia, 'hm-1');
      assert.equal(h.cloud.last().path, `${base}/lbaas/healthmonitors/hm-1`);
      assert.equal(got.type, 'UDP-CONNECT');
      assert.equal(got.max_retries_down, 3);

      h.cloud.on('PUT', `${base}/lbaas/healthmonitors/:id`, echo('healthmonitor', 200));
      const updated = await updateHealthMonitor(octavia, 'hm-1', { delay: 20, timeout: 10, max_retries_down: 5 });
      assert.equal(h.cloud.last('PUT').path, `${base}/lbaas/healthmonitors/hm-1`);
      assert.deepEqual(h.cloud.last('PUT').json(), { healthmonitor: { delay: 20, timeout: 10, max_retries_down: 5 } });
      assert.equal(updated.delay, 20);

      h.cloud.on('DELETE', `${base}/lbaas/healthmonitors/:id`, { status: 204 });
      await deleteHealthMonitor(octavia, 'hm-1');
      assert.equal(h.cloud.last('DELETE').path, `${base}/lbaas/healthmonitors/hm-1`);
    });

    it('lists health monitors and finds one by exact name: none, one, duplicate', async () => {
      const reply = (items: unknown[]) => {
        h.cloud.on('GET', `${base}/lbaas/healthmonitors`, { body: { healthmonitors: items } });
      };
      reply([monitor('hm-1', 'a')]);
      assert.equal((await listHealthMonitors(octavia, { name: 'a' }))[0]?.id, 'hm-1');

      reply([]);
      assert.equal(await findHealthMonitorByName(octavia, 'lb-1-web-monitor'), undefined);
      assert.equal(h.cloud.last().query.get('name'), 'lb-1-web-monitor');

      reply([monitor('hm-9', 'lb-1-web-monitor2'), monitor('hm-1', 'lb-1-web-monitor')]);
      assert.equal((await findHealthMonitorByName(octavia, 'lb-1-web-monitor'))?.id, 'hm-1');

      reply([monitor('hm-1', 'lb-1-web-monitor'), monitor('hm-2', 'lb-1-web-monitor')]);
      await assert.rejects(findHealthMonitorByName(octavia, 'lb-1-web-monitor'), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['hm-1', 'hm-2']);
        return true;
      });
    });
  });

  it('finds a load balancer by exact name: none, one, duplicate', async () => {
    const reply = (items: unknown[]) => {
      h.cloud.on('GET', `${base}/lbaas/loadbalancers`, { body: { loadbalancers: items } });
    };
    reply([lb('lb-9', 'lb-abcd')]);
    assert.equal(await findLoadBalancerByName(octavia, 'lb-abc'), undefined);
    assert.equal(h.cloud.last().query.get('name'), 'lb-abc');

    reply([lb('lb-9', 'lb-abcd'), lb('lb-1', 'lb-abc')]);
    assert.equal((await findLoadBalancerByName(octavia, 'lb-abc'))?.id, 'lb-1');

    reply([lb('lb-1', 'lb-abc'), lb('lb-2', 'lb-abc')]);
    await assert.rejects(findLoadBalancerByName(octavia, 'lb-abc'), ConsistencyError);
  });

  describe('API version', () => {
    const versions = (current: string) => ({
      versions: [
        { id: 'v2.0', status: 'SUPPORTED', links: [] },
        { id: 'v2.1', status: 'SUPPORTED', links: [] },
        { id: current, status: 'CURRENT', links: [] },
      ],
    });

    it('reads the CURRENT version from the document at the endpoint root, above /v2', async () => {
      h.cloud.on('GET', '/load-balancer', { body: versions('v2.26') });
      assert.deepEqual(await getApiVersion(octavia), { major: 2, minor: 26 });
      assert.equal(h.cloud.last().path, '/load-balancer');
    });

    it('requires 2.22 for PROXYV2 and names the load-balancer field when the cloud is older', async () => {
      h.cloud.on('GET', '/load-balancer', { body: versions('v2.22') });
      assert.deepEqual(await requireApiVersion(octavia, '2.22'), { major: 2, minor: 22 });

      h.cloud.on('GET', '/load-balancer', { body: versions('v2.21') });
      await assert.rejects(requireApiVersion(octavia, '2.22'), (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        assert.equal(e.field, 'load-balancer');
        assert.match(e.message, /2\.21.*2\.22/);
        return true;
      });
    });

    it('fails on a version document without a CURRENT version', async () => {
      h.cloud.on('GET', '/load-balancer', { body: { versions: [{ id: 'v2.0', status: 'SUPPORTED' }] } });
      await assert.rejects(getApiVersion(octavia), ConfigError);
    });

    it('finds the root above the version segment', () => {
      assert.equal(versionRootUrl('https://lb.example/load-balancer/v2'), 'https://lb.example/load-balancer');
      assert.equal(versionRootUrl('https://lb.example:9876/v2'), 'https://lb.example:9876/');
      assert.equal(versionRootUrl('https://lb.example:9876/v2.0/'), 'https://lb.example:9876/');
      assert.equal(versionRootUrl('https://lb.example:9876'), 'https://lb.example:9876/');
    });
  });
});

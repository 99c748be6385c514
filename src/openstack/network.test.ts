import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError, ConsistencyError, NotFoundError } from './errors.ts';
import {
  addRouterInterface,
  addTag,
  createFloatingIP,
  createNetwork,
  createPort,
  createRouter,
  createSecurityGroup,
  createSecurityGroupRule,
  createSubnet,
  deleteFloatingIP,
  deleteNetwork,
  deletePort,
  deleteRouter,
  deleteSecurityGroup,
  deleteSecurityGroupRule,
  deleteSubnet,
  deleteTag,
  findNetworkByName,
  findRouterByName,
  findSecurityGroupByName,
  findSubnetByName,
  getFloatingIP,
  getNetwork,
  getNetworkQuota,
  getPort,
  getRouter,
  getSecurityGroup,
  getSubnet,
  listFloatingIPs,
  listNetworks,
  listPorts,
  listRouters,
  listSecurityGroupRules,
  listSecurityGroups,
  listSubnets,
  removeRouterInterface,
  replaceTags,
  unlimitedNetworkQuota,
  updateFloatingIP,
  updateNetworkQuota,
  updatePort,
  updateSubnet,
  type NetworkClient,
  type TaggableResource,
} from './network.ts';
import { fakeServicePaths, type RecordedRequest } from './testing/fake-cloud.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

/** Neutron's catalog entry is the service root; the session adds `/v2.0`. */
const n = (path: string): string => `${fakeServicePaths.network}/v2.0${path}`;

const query = (req: RecordedRequest): Record<string, string> => Object.fromEntries(req.query);

const network = (id: string, name: string) => ({
  id,
  name,
  status: 'ACTIVE',
  admin_state_up: true,
  project_id: 'p-1',
  subnets: [],
  shared: false,
  'router:external': false,
  tags: [],
});

const subnet = (id: string, name: string) => ({
  id,
  name,
  network_id: 'net-1',
  project_id: 'p-1',
  cidr: '10.0.0.0/24',
  ip_version: 4,
  gateway_ip: '10.0.0.1',
  enable_dhcp: true,
  dns_nameservers: [],
  allocation_pools: [{ start: '10.0.0.128', end: '10.0.0.254' }],
  host_routes: [],
  tags: [],
});

const router = (id: string, name: string) => ({
  id,
  name,
  status: 'ACTIVE',
  admin_state_up: true,
  project_id: 'p-1',
  external_gateway_info: { network_id: 'ext-1', enable_snat: true, external_fixed_ips: [] },
  tags: [],
});

const port = (id: string) => ({
  id,
  name: 'server-s-1',
  network_id: 'net-1',
  project_id: 'p-1',
  device_id: '',
  device_owner: '',
  mac_address: 'fa:16:3e:00:00:01',
  status: 'DOWN',
  admin_state_up: true,
  fixed_ips: [{ subnet_id: 'sub-1', ip_address: '10.0.0.130' }],
  security_groups: ['sg-1'],
  allowed_address_pairs: [],
  port_security_enabled: true,
  tags: [],
});

const rule = (id: string) => ({
  id,
  security_group_id: 'sg-1',
  project_id: 'p-1',
  direction: 'ingress',
  ethertype: 'IPv4',
  protocol: 'tcp',
  port_range_min: 22,
  port_range_max: 22,
  remote_ip_prefix: '0.0.0.0/0',
  remote_group_id: null,
});

const group = (id: string, name: string) => ({
  id,
  name,
  description: '',
  project_id: 'p-1',
  security_group_rules: [rule('r-1')],
  stateful: true,
  tags: [],
});

const floatingIP = (id: string, portID: string | null) => ({
  id,
  floating_ip_address: '203.0.113.10',
  floating_network_id: 'ext-1',
  port_id: portID,
  fixed_ip_address: portID === null ? null : '10.0.0.130',
  router_id: portID === null ? null : 'rt-1',
  status: portID === null ? 'DOWN' : 'ACTIVE',
  project_id: 'p-1',
  tags: [],
});

describe('network', () => {
  let h: Harness;
  let neutron: NetworkClient;
  before(async () => ({ h, client: neutron } = await clientHarness('network')));
  after(() => h.close());

  describe('networks', () => {
    it('creates a VLAN provider network with the provider attributes on the wire', async () => {
      h.cloud.on('POST', n('/networks'), {
        status: 201,
        body: {
          network: {
            ...network('net-1', 'network-n1'),
            'provider:network_type': 'vlan',
            'provider:physical_network': 'physnet1',
            'provider:segmentation_id': 101,
          },
        },
      });
      const created = await createNetwork(neutron, {
        name: 'network-n1',
        'provider:network_type': 'vlan',
        'provider:physical_network': 'physnet1',
        'provider:segmentation_id': 101,
        'router:external': false,
      });
      assert.equal(created.id, 'net-1');
      assert.equal(created['provider:segmentation_id'], 101);
      const req = h.cloud.last('POST', n('/networks'));
      assert.deepEqual(req.json(), {
        network: {
          name: 'network-n1',
          'provider:network_type': 'vlan',
          'provider:physical_network': 'physnet1',
          'provider:segmentation_id': 101,
          'router:external': false,
        },
      });
      assert.equal(req.headers['content-type'], 'application/json');
      // Neutron has no microversions: no version header is sent.
      assert.equal(req.headers['openstack-api-version'], undefined);
    });

    it('gets a network by id', async () => {
      h.cloud.on('GET', n('/networks/:id'), (_req, p) => ({ body: { network: network(p.id ?? '', 'network-n1') } }));
      const got = await getNetwork(neutron, 'net-7');
      assert.equal(got.id, 'net-7');
      assert.equal(got.name, 'network-n1');
      assert.equal(h.cloud.last().method, 'GET');
      assert.equal(h.cloud.last().path, n('/networks/net-7'));
    });

    it('lists with name, project, router:external and tag filters', async () => {
      h.cloud.on('GET', n('/networks'), { body: { networks: [network('ext-1', 'public')] } });
      const found = await listNetworks(neutron, {
        name: 'public',
        projectID: 'p-1',
        routerExternal: true,
        tags: ['region=r1', 'kind=external'],
        tagsAny: ['a', 'b'],
      });
      assert.deepEqual(
        found.map((x) => x.id),
        ['ext-1'],
      );
      assert.deepEqual(query(h.cloud.last('GET', n('/networks'))), {
        name: 'public',
        project_id: 'p-1',
        'router:external': 'true',
        tags: 'region=r1,kind=external',
        'tags-any': 'a,b',
      });
    });

    it('sends no filters when none are given', async () => {
      h.cloud.on('GET', n('/networks'), { body: { networks: [] } });
      assert.deepEqual(await listNetworks(neutron), []);
      assert.deepEqual(query(h.cloud.last('GET', n('/networks'))), {});
    });

    it('follows networks_links across pages, rebased onto the endpoint in use', async () => {
      h.cloud.on('GET', n('/networks'), (req) => {
        const marker = req.query.get('marker');
        if (marker === null) {
          return {
            body: {
              networks: [network('net-1', 'a'), network('net-2', 'b')],
              // Neutron builds links from its own idea of its URL: another host, no proxy prefix.
              networks_links: [
                { rel: 'next', href: 'http://neutron.internal:9696/v2.0/networks?limit=2&marker=net-2' },
              ],
            },
          };
        }
        if (marker === 'net-2') {
          return {
            body: {
              networks: [network('net-3', 'c')],
              networks_links: [
                {
                  rel: 'previous',
                  href: 'http://neutron.internal:9696/v2.0/networks?limit=2&marker=net-3&page_reverse=True',
                },
              ],
            },
          };
        }
        return { status: 400, body: { NeutronError: { type: 'Unexpected', message: `marker ${marker}` } } };
      });
      const all = await listNetworks(neutron, {}, { pageSize: 2 });
      assert.deepEqual(
        all.map((x) => x.id),
        ['net-1', 'net-2', 'net-3'],
      );
      const pages = h.cloud.requests.filter((r) => r.path === n('/networks')).slice(-2);
      assert.deepEqual(pages.map(query), [{ limit: '2' }, { limit: '2', marker: 'net-2' }]);
    });

    it('deletes a network', async () => {
      h.cloud.on('DELETE', n('/networks/:id'), { status: 204 });
      await deleteNetwork(neutron, 'net-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/networks/net-1'));
    });

    it('finds a network by exact name: none, one, and a duplicate', async () => {
      let reply: unknown[] = [];
      h.cloud.on('GET', n('/networks'), () => ({ body: { networks: reply } }));

      reply = [network('net-9', 'network-n1-old')];
      assert.equal(await findNetworkByName(neutron, 'network-n1'), undefined);
      assert.deepEqual(query(h.cloud.last('GET', n('/networks'))), { name: 'network-n1' });

      reply = [network('net-9', 'network-n1-old'), network('net-1', 'network-n1')];
      assert.equal((await findNetworkByName(neutron, 'network-n1', { projectID: 'p-1' }))?.id, 'net-1');
      assert.deepEqual(query(h.cloud.last('GET', n('/networks'))), { name: 'network-n1', project_id: 'p-1' });

      reply = [network('net-1', 'network-n1'), network('net-2', 'network-n1')];
      await assert.rejects(findNetworkByName(neutron, 'network-n1'), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['net-1', 'net-2']);
        return true;
      });
    });
  });

  describe('subnets', () => {
    it('creates a subnet with gateway, DHCP, DNS, pools and routes', async () => {
      h.cloud.on('POST', n('/subnets'), { status: 201, body: { subnet: subnet('sub-1', 'network-n1') } });
      const created = await createSubnet(neutron, {
        network_id: 'net-1',
        name: 'network-n1',
        cidr: '10.0.0.0/24',
        ip_version: 4,
        gateway_ip: '10.0.0.1',
        enable_dhcp: true,
        dns_nameservers: ['8.8.8.8'],
        allocation_pools: [{ start: '10.0.0.128', end: '10.0.0.254' }],
        host_routes: [{ destination: '192.168.0.0/16', nexthop: '10.0.0.2' }],
      });
      assert.equal(created.id, 'sub-1');
      assert.deepEqual(created.allocation_pools, [{ start: '10.0.0.128', end: '10.0.0.254' }]);
      assert.deepEqual(h.cloud.last('POST', n('/subnets')).json(), {
        subnet: {
          network_id: 'net-1',
          name: 'network-n1',
          cidr: '10.0.0.0/24',
          ip_version: 4,
          gateway_ip: '10.0.0.1',
          enable_dhcp: true,
          dns_nameservers: ['8.8.8.8'],
          allocation_pools: [{ start: '10.0.0.128', end: '10.0.0.254' }],
          host_routes: [{ destination: '192.168.0.0/16', nexthop: '10.0.0.2' }],
        },
      });
    });

    it('sends a null gateway to ask for none', async () => {
      h.cloud.on('POST', n('/subnets'), {
        status: 201,
        body: { subnet: { ...subnet('sub-2', 'x'), gateway_ip: null } },
      });
      const created = await createSubnet(neutron, {
        network_id: 'net-1',
        name: 'x',
        cidr: '10.1.0.0/24',
        ip_version: 4,
        gateway_ip: null,
      });
      assert.equal(created.gateway_ip, null);
      const sent = h.cloud.last('POST', n('/subnets')).json() as { subnet: Record<string, unknown> };
      assert.equal(sent.subnet.gateway_ip, null);
      assert.equal('enable_dhcp' in sent.subnet, false);
    });

    it('gets a subnet by id', async () => {
      h.cloud.on('GET', n('/subnets/:id'), (_req, p) => ({ body: { subnet: subnet(p.id ?? '', 'network-n1') } }));
      const got = await getSubnet(neutron, 'sub-4');
      assert.equal(got.id, 'sub-4');
      assert.equal(got.ip_version, 4);
      assert.equal(h.cloud.last().path, n('/subnets/sub-4'));
    });

    it('updates DNS servers and host routes in place', async () => {
      h.cloud.on('PUT', n('/subnets/:id'), (req, p) => ({
        body: { subnet: { ...subnet(p.id ?? '', 'network-n1'), ...(req.json() as { subnet: object }).subnet } },
      }));
      const updated = await updateSubnet(neutron, 'sub-1', {
        dns_nameservers: ['1.1.1.1'],
        host_routes: [],
      });
      assert.deepEqual(updated.dns_nameservers, ['1.1.1.1']);
      const req = h.cloud.last('PUT', n('/subnets/sub-1'));
      assert.deepEqual(req.json(), { subnet: { dns_nameservers: ['1.1.1.1'], host_routes: [] } });
    });

    it('lists subnets by network and name', async () => {
      h.cloud.on('GET', n('/subnets'), { body: { subnets: [subnet('sub-1', 'network-n1')] } });
      const found = await listSubnets(neutron, { networkID: 'net-1', name: 'network-n1' });
      assert.equal(found[0]?.id, 'sub-1');
      assert.deepEqual(query(h.cloud.last('GET', n('/subnets'))), { network_id: 'net-1', name: 'network-n1' });
    });

    it('follows subnets_links', async () => {
      h.cloud.on('GET', n('/subnets'), (req) =>
        req.query.get('marker') === 'sub-1'
          ? { body: { subnets: [subnet('sub-2', 'b')], subnets_links: [] } }
          : {
              body: {
                subnets: [subnet('sub-1', 'a')],
                subnets_links: [{ rel: 'next', href: '/v2.0/subnets?limit=1&marker=sub-1' }],
              },
            },
      );
      const all = await listSubnets(neutron, {}, { pageSize: 1 });
      assert.deepEqual(
        all.map((s) => s.id),
        ['sub-1', 'sub-2'],
      );
    });

    it('deletes a subnet', async () => {
      h.cloud.on('DELETE', n('/subnets/:id'), { status: 204 });
      await deleteSubnet(neutron, 'sub-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/subnets/sub-1'));
    });

    it('finds a subnet by exact name: none, one, and a duplicate', async () => {
      let reply: unknown[] = [];
      h.cloud.on('GET', n('/subnets'), () => ({ body: { subnets: reply } }));
      assert.equal(await findSubnetByName(neutron, 'network-n1', { networkID: 'net-1' }), undefined);
      assert.deepEqual(query(h.cloud.last('GET', n('/subnets'))), { network_id: 'net-1', name: 'network-n1' });
      reply = [subnet('sub-1', 'network-n1'), subnet('sub-0', 'Network-N1')];
      assert.equal((await findSubnetByName(neutron, 'network-n1'))?.id, 'sub-1');
      reply = [subnet('sub-1', 'network-n1'), subnet('sub-2', 'network-n1')];
      await assert.rejects(findSubnetByName(neutron, 'network-n1'), ConsistencyError);
    });
  });

  describe('routers', () => {
    it('creates a router with a gateway on the external network', async () => {
      h.cloud.on('POST', n('/routers'), { status: 201, body: { router: router('rt-1', 'network-n1') } });
      const created = await createRouter(neutron, {
        name: 'network-n1',
        external_gateway_info: { network_id: 'ext-1' },
      });
      assert.equal(created.external_gateway_info?.network_id, 'ext-1');
      assert.deepEqual(h.cloud.last('POST', n('/routers')).json(), {
        router: { name: 'network-n1', external_gateway_info: { network_id: 'ext-1' } },
      });
    });

    it('gets a router by id', async () => {
      h.cloud.on('GET', n('/routers/:id'), (_req, p) => ({
        body: { router: { ...router(p.id ?? '', 'network-n1'), external_gateway_info: null } },
      }));
      const got = await getRouter(neutron, 'rt-3');
      assert.equal(got.id, 'rt-3');
      assert.equal(got.external_gateway_info, null);
      assert.equal(h.cloud.last().path, n('/routers/rt-3'));
    });

    it('lists routers by name', async () => {
      h.cloud.on('GET', n('/routers'), { body: { routers: [router('rt-1', 'network-n1')] } });
      const found = await listRouters(neutron, { name: 'network-n1', tags: ['t'] });
      assert.equal(found[0]?.id, 'rt-1');
      assert.deepEqual(query(h.cloud.last('GET', n('/routers'))), { name: 'network-n1', tags: 't' });
    });

    it('deletes a router', async () => {
      h.cloud.on('DELETE', n('/routers/:id'), { status: 204 });
      await deleteRouter(neutron, 'rt-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/routers/rt-1'));
    });

    it('adds and removes a subnet interface', async () => {
      const iface = {
        id: 'rt-1',
        subnet_id: 'sub-1',
        subnet_ids: ['sub-1'],
        port_id: 'port-r',
        network_id: 'net-1',
        project_id: 'p-1',
        tenant_id: 'p-1',
      };
      h.cloud.on('PUT', n('/routers/:id/add_router_interface'), { body: iface });
      h.cloud.on('PUT', n('/routers/:id/remove_router_interface'), { body: iface });

      const added = await addRouterInterface(neutron, 'rt-1', { subnet_id: 'sub-1' });
      assert.equal(added.port_id, 'port-r');
      const add = h.cloud.last('PUT', n('/routers/rt-1/add_router_interface'));
      assert.deepEqual(add.json(), { subnet_id: 'sub-1' });

      const removed = await removeRouterInterface(neutron, 'rt-1', { subnet_id: 'sub-1' });
      assert.deepEqual(removed.subnet_ids, ['sub-1']);
      assert.deepEqual(h.cloud.last('PUT', n('/routers/rt-1/remove_router_interface')).json(), { subnet_id: 'sub-1' });

      await removeRouterInterface(neutron, 'rt-1', { port_id: 'port-r' });
      assert.deepEqual(h.cloud.last('PUT', n('/routers/rt-1/remove_router_interface')).json(), { port_id: 'port-r' });
    });

    it('finds a router by exact name: none, one, and a duplicate', async () => {
      let reply: unknown[] = [];
      h.cloud.on('GET', n('/routers'), () => ({ body: { routers: reply } }));
      assert.equal(await findRouterByName(neutron, 'network-n1'), undefined);
      assert.deepEqual(query(h.cloud.last('GET', n('/routers'))), { name: 'network-n1' });
      reply = [router('rt-1', 'network-n1')];
      assert.equal((await findRouterByName(neutron, 'network-n1'))?.id, 'rt-1');
      reply = [router('rt-1', 'network-n1'), router('rt-2', 'network-n1')];
      await assert.rejects(findRouterByName(neutron, 'network-n1'), ConsistencyError);
    });
  });

  describe('ports', () => {
    it('creates a port with fixed IPs, security groups and allowed address pairs', async () => {
      h.cloud.on('POST', n('/ports'), { status: 201, body: { port: port('port-1') } });
      const created = await createPort(neutron, {
        network_id: 'net-1',
        name: 'server-s-1',
        fixed_ips: [{ subnet_id: 'sub-1' }],
        security_groups: ['sg-1'],
        allowed_address_pairs: [
          { ip_address: '10.0.0.0/24' },
          { ip_address: '10.9.0.1', mac_address: 'fa:16:3e:00:00:02' },
        ],
        port_security_enabled: true,
        device_owner: 'compute:nova',
      });
      assert.equal(created.id, 'port-1');
      assert.deepEqual(created.fixed_ips, [{ subnet_id: 'sub-1', ip_address: '10.0.0.130' }]);
      assert.deepEqual(h.cloud.last('POST', n('/ports')).json(), {
        port: {
          network_id: 'net-1',
          name: 'server-s-1',
          fixed_ips: [{ subnet_id: 'sub-1' }],
          security_groups: ['sg-1'],
          allowed_address_pairs: [
            { ip_address: '10.0.0.0/24' },
            { ip_address: '10.9.0.1', mac_address: 'fa:16:3e:00:00:02' },
          ],
          port_security_enabled: true,
          device_owner: 'compute:nova',
        },
      });
    });

    it('surfaces an address-exhausted 409 as a ConflictError carrying Neutron’s fault type', async () => {
      h.cloud.on('POST', n('/ports'), {
        status: 409,
        body: {
          NeutronError: {
            type: 'IpAddressGenerationFailure',
            message: 'No more IP addresses available on network net-1.',
            detail: '',
          },
        },
      });
      await assert.rejects(createPort(neutron, { network_id: 'net-1' }), (e: unknown) => {
        assert.ok(e instanceof ConflictError);
        assert.equal(e.status, 409);
        assert.equal(e.fault.type, 'IpAddressGenerationFailure');
        assert.equal(e.urlTemplate, '/ports');
        return true;
      });
    });

    it('gets a port by id', async () => {
      h.cloud.on('GET', n('/ports/:id'), (_req, p) => ({ body: { port: port(p.id ?? '') } }));
      const got = await getPort(neutron, 'port-5');
      assert.equal(got.id, 'port-5');
      assert.equal(got.mac_address, 'fa:16:3e:00:00:01');
      assert.equal(h.cloud.last().path, n('/ports/port-5'));
    });

    it('lists ports with device, network, name, MAC and owner filters', async () => {
      h.cloud.on('GET', n('/ports'), { body: { ports: [port('port-1')] } });
      const found = await listPorts(neutron, {
        deviceID: 'rt-1',
        networkID: 'net-1',
        name: 'server-s-1',
        macAddress: 'fa:16:3e:00:00:01',
        deviceOwner: 'network:router_interface',
      });
      assert.equal(found[0]?.id, 'port-1');
      assert.deepEqual(query(h.cloud.last('GET', n('/ports'))), {
        device_id: 'rt-1',
        network_id: 'net-1',
        name: 'server-s-1',
        mac_address: 'fa:16:3e:00:00:01',
        device_owner: 'network:router_interface',
      });
    });

    it('updates a port’s allowed address pairs and security groups', async () => {
      h.cloud.on('PUT', n('/ports/:id'), (req, p) => ({
        body: { port: { ...port(p.id ?? ''), ...(req.json() as { port: object }).port } },
      }));
      const updated = await updatePort(neutron, 'port-1', {
        security_groups: ['sg-1', 'sg-2'],
        allowed_address_pairs: [],
      });
      assert.deepEqual(updated.security_groups, ['sg-1', 'sg-2']);
      assert.deepEqual(h.cloud.last('PUT', n('/ports/port-1')).json(), {
        port: { security_groups: ['sg-1', 'sg-2'], allowed_address_pairs: [] },
      });
    });

    it('deletes a port', async () => {
      h.cloud.on('DELETE', n('/ports/:id'), { status: 204 });
      await deletePort(neutron, 'port-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/ports/port-1'));
    });
  });

  describe('security groups', () => {
    it('creates a security group', async () => {
      h.cloud.on('POST', n('/security-groups'), {
        status: 201,
        body: { security_group: group('sg-1', 'securitygroup-x') },
      });
      const created = await createSecurityGroup(neutron, { name: 'securitygroup-x', description: 'x' });
      assert.equal(created.id, 'sg-1');
      assert.equal(created.security_group_rules[0]?.port_range_min, 22);
      assert.deepEqual(h.cloud.last('POST', n('/security-groups')).json(), {
        security_group: { name: 'securitygroup-x', description: 'x' },
      });
    });

    it('gets a security group by id', async () => {
      h.cloud.on('GET', n('/security-groups/:id'), (_req, p) => ({
        body: { security_group: group(p.id ?? '', 'securitygroup-x') },
      }));
      const got = await getSecurityGroup(neutron, 'sg-4');
      assert.equal(got.id, 'sg-4');
      assert.equal(h.cloud.last().path, n('/security-groups/sg-4'));
    });

    it('lists security groups by name and project across pages', async () => {
      h.cloud.on('GET', n('/security-groups'), (req) =>
        req.query.get('marker') === 'sg-1'
          ? { body: { security_groups: [group('sg-2', 'b')] } }
          : {
              body: {
                security_groups: [group('sg-1', 'a')],
                security_groups_links: [
                  { rel: 'next', href: '/v2.0/security-groups?limit=1&marker=sg-1&name=x&project_id=p-1' },
                ],
              },
            },
      );
      const found = await listSecurityGroups(neutron, { name: 'x', projectID: 'p-1' }, { pageSize: 1 });
      assert.deepEqual(
        found.map((g) => g.id),
        ['sg-1', 'sg-2'],
      );
      const first = h.cloud.requests.filter((r) => r.path === n('/security-groups')).at(-2);
      assert.ok(first);
      assert.deepEqual(query(first), { name: 'x', project_id: 'p-1', limit: '1' });
    });

    it('deletes a security group', async () => {
      h.cloud.on('DELETE', n('/security-groups/:id'), { status: 204 });
      await deleteSecurityGroup(neutron, 'sg-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/security-groups/sg-1'));
    });

    it('finds a security group by exact name: none, one, and a duplicate', async () => {
      let reply: unknown[] = [];
      h.cloud.on('GET', n('/security-groups'), () => ({ body: { security_groups: reply } }));
      assert.equal(await findSecurityGroupByName(neutron, 'securitygroup-x'), undefined);
      assert.deepEqual(query(h.cloud.last('GET', n('/security-groups'))), { name: 'securitygroup-x' });
      reply = [group('sg-0', 'default'), group('sg-1', 'securitygroup-x')];
      assert.equal((await findSecurityGroupByName(neutron, 'securitygroup-x'))?.id, 'sg-1');
      reply = [group('sg-1', 'securitygroup-x'), group('sg-2', 'securitygroup-x')];
      await assert.rejects(findSecurityGroupByName(neutron, 'securitygroup-x'), ConsistencyError);
    });

    it('creates a rule with ports and a remote prefix', async () => {
      h.cloud.on('POST', n('/security-group-rules'), { status: 201, body: { security_group_rule: rule('r-1') } });
      const created = await createSecurityGroupRule(neutron, {
        security_group_id: 'sg-1',
        direction: 'ingress',
        ethertype: 'IPv4',
        protocol: 'tcp',
        port_range_min: 22,
        port_range_max: 22,
        remote_ip_prefix: '0.0.0.0/0',
      });
      assert.equal(created.id, 'r-1');
      assert.equal(created.remote_group_id, null);
      assert.deepEqual(h.cloud.last('POST', n('/security-group-rules')).json(), {
        security_group_rule: {
          security_group_id: 'sg-1',
          direction: 'ingress',
          ethertype: 'IPv4',
          protocol: 'tcp',
          port_range_min: 22,
          port_range_max: 22,
          remote_ip_prefix: '0.0.0.0/0',
        },
      });
    });

    it('creates a rule that admits a remote group', async () => {
      h.cloud.on('POST', n('/security-group-rules'), {
        status: 201,
        body: { security_group_rule: { ...rule('r-2'), remote_ip_prefix: null, remote_group_id: 'sg-2' } },
      });
      const created = await createSecurityGroupRule(neutron, {
        security_group_id: 'sg-1',
        direction: 'ingress',
        remote_group_id: 'sg-2',
      });
      assert.equal(created.remote_group_id, 'sg-2');
      assert.deepEqual(h.cloud.last('POST', n('/security-group-rules')).json(), {
        security_group_rule: { security_group_id: 'sg-1', direction: 'ingress', remote_group_id: 'sg-2' },
      });
    });

    it('lists rules by security group', async () => {
      h.cloud.on('GET', n('/security-group-rules'), { body: { security_group_rules: [rule('r-1'), rule('r-2')] } });
      const rules = await listSecurityGroupRules(neutron, { securityGroupID: 'sg-1' });
      assert.deepEqual(
        rules.map((r) => r.id),
        ['r-1', 'r-2'],
      );
      assert.deepEqual(query(h.cloud.last('GET', n('/security-group-rules'))), { security_group_id: 'sg-1' });
    });

    it('deletes a rule', async () => {
      h.cloud.on('DELETE', n('/security-group-rules/:id'), { status: 204 });
      await deleteSecurityGroupRule(neutron, 'r-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/security-group-rules/r-1'));
    });
  });

  describe('floating IPs', () => {
    it('creates a floating IP on the external network, associated with a port', async () => {
      h.cloud.on('POST', n('/floatingips'), { status: 201, body: { floatingip: floatingIP('fip-1', 'port-1') } });
      const created = await createFloatingIP(neutron, { floating_network_id: 'ext-1', port_id: 'port-1' });
      assert.equal(created.floating_ip_address, '203.0.113.10');
      assert.equal(created.port_id, 'port-1');
      assert.deepEqual(h.cloud.last('POST', n('/floatingips')).json(), {
        floatingip: { floating_network_id: 'ext-1', port_id: 'port-1' },
      });
    });

    it('creates an unassociated floating IP', async () => {
      h.cloud.on('POST', n('/floatingips'), { status: 201, body: { floatingip: floatingIP('fip-2', null) } });
      const created = await createFloatingIP(neutron, { floating_network_id: 'ext-1' });
      assert.equal(created.port_id, null);
      assert.deepEqual(h.cloud.last('POST', n('/floatingips')).json(), {
        floatingip: { floating_network_id: 'ext-1' },
      });
    });

    it('gets a floating IP by id', async () => {
      h.cloud.on('GET', n('/floatingips/:id'), (_req, p) => ({ body: { floatingip: floatingIP(p.id ?? '', null) } }));
      const got = await getFloatingIP(neutron, 'fip-3');
      assert.equal(got.id, 'fip-3');
      assert.equal(h.cloud.last().path, n('/floatingips/fip-3'));
    });

    it('lists floating IPs by port, address and tags', async () => {
      h.cloud.on('GET', n('/floatingips'), { body: { floatingips: [floatingIP('fip-1', 'port-1')] } });
      const found = await listFloatingIPs(neutron, {
        portID: 'port-1',
        floatingIPAddress: '203.0.113.10',
        tags: ['a', 'b'],
      });
      assert.equal(found[0]?.id, 'fip-1');
      assert.deepEqual(query(h.cloud.last('GET', n('/floatingips'))), {
        port_id: 'port-1',
        floating_ip_address: '203.0.113.10',
        tags: 'a,b',
      });
    });

    it('associates and disassociates by updating port_id', async () => {
      h.cloud.on('PUT', n('/floatingips/:id'), (req, p) => ({
        body: {
          floatingip: floatingIP(
            p.id ?? '',
            (req.json() as { floatingip: { port_id: string | null } }).floatingip.port_id,
          ),
        },
      }));
      const associated = await updateFloatingIP(neutron, 'fip-1', { port_id: 'port-2' });
      assert.equal(associated.port_id, 'port-2');
      assert.deepEqual(h.cloud.last('PUT', n('/floatingips/fip-1')).json(), { floatingip: { port_id: 'port-2' } });

      const released = await updateFloatingIP(neutron, 'fip-1', { port_id: null });
      assert.equal(released.port_id, null);
      // The null must reach Neutron: an absent port_id would leave the association in place.
      assert.deepEqual(h.cloud.last('PUT', n('/floatingips/fip-1')).json(), { floatingip: { port_id: null } });
    });

    it('deletes a floating IP', async () => {
      h.cloud.on('DELETE', n('/floatingips/:id'), { status: 204 });
      await deleteFloatingIP(neutron, 'fip-1');
      assert.equal(h.cloud.last().method, 'DELETE');
      assert.equal(h.cloud.last().path, n('/floatingips/fip-1'));
    });
  });

  describe('quotas', () => {
    it('reads a project’s quota', async () => {
      h.cloud.on('GET', n('/quotas/:project'), {
        body: { quota: { ...unlimitedNetworkQuota, network: 100, port: 500 } },
      });
      const quota = await getNetworkQuota(neutron, 'p-9');
      assert.equal(quota.network, 100);
      assert.equal(quota.security_group_rule, -1);
      assert.equal(h.cloud.last().method, 'GET');
      assert.equal(h.cloud.last().path, n('/quotas/p-9'));
    });

    it('sets every quota the region manages to unlimited', async () => {
      h.cloud.on('PUT', n('/quotas/:project'), (req) => ({ body: req.json() }));
      const quota = await updateNetworkQuota(neutron, 'p-9', unlimitedNetworkQuota);
      assert.equal(quota.floatingip, -1);
      assert.deepEqual(h.cloud.last('PUT', n('/quotas/p-9')).json(), {
        quota: {
          network: -1,
          subnet: -1,
          subnetpool: -1,
          port: -1,
          router: -1,
          floatingip: -1,
          security_group: -1,
          security_group_rule: -1,
          rbac_policy: -1,
        },
      });
    });

    it('updates only the quotas given', async () => {
      h.cloud.on('PUT', n('/quotas/:project'), { body: { quota: { ...unlimitedNetworkQuota, port: 20 } } });
      await updateNetworkQuota(neutron, 'p-9', { port: 20 });
      assert.deepEqual(h.cloud.last('PUT', n('/quotas/p-9')).json(), { quota: { port: 20 } });
    });
  });

  describe('tags', () => {
    const kinds: readonly TaggableResource[] = [
      'networks',
      'subnets',
      'routers',
      'ports',
      'security-groups',
      'floatingips',
    ];

    it('replaces all tags on each resource kind', async () => {
      for (const kind of kinds) {
        h.cloud.on('PUT', n(`/${kind}/:id/tags`), (req) => ({ body: req.json() }));
        const tags = await replaceTags(neutron, kind, 'id-1', ['region=r1', 'kind=x']);
        assert.deepEqual(tags, ['region=r1', 'kind=x']);
        const req = h.cloud.last('PUT', n(`/${kind}/id-1/tags`));
        assert.deepEqual(req.json(), { tags: ['region=r1', 'kind=x'] }, kind);
      }
    });

    it('adds and deletes one tag on each resource kind, escaping the tag in the path', async () => {
      for (const kind of kinds) {
        h.cloud.on('PUT', n(`/${kind}/:id/tags/:tag`), { status: 201 });
        h.cloud.on('DELETE', n(`/${kind}/:id/tags/:tag`), { status: 204 });
        await addTag(neutron, kind, 'id-1', 'a b');
        const added = h.cloud.last('PUT');
        assert.equal(added.path, n(`/${kind}/id-1/tags/a%20b`), kind);
        assert.equal(added.body, '', kind);
        await deleteTag(neutron, kind, 'id-1', 'a b');
        assert.equal(h.cloud.last('DELETE').path, n(`/${kind}/id-1/tags/a%20b`), kind);
      }
    });

    it('names a failed tag request by its literal template', async () => {
      h.cloud.on('DELETE', n('/security-groups/:id/tags/:tag'), {
        status: 404,
        body: { NeutronError: { type: 'TagNotFound', message: 'Tag x could not be found', detail: '' } },
      });
      await assert.rejects(deleteTag(neutron, 'security-groups', 'sg-1', 'x'), (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        assert.equal(e.urlTemplate, '/security-groups/{id}/tags/{tag}');
        assert.equal(e.fault.type, 'TagNotFound');
        return true;
      });
    });
  });
});

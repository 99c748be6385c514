import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BadRequestError, ConflictError, ForbiddenError } from '../openstack/errors.ts';
import {
  createListener,
  createLoadBalancer,
  deleteLoadBalancer,
  getLoadBalancer,
  listLoadBalancers,
  type LoadBalancerClient,
} from '../openstack/loadbalancer.ts';
import {
  addRouterInterface,
  createFloatingIP,
  createNetwork,
  createRouter,
  createSubnet,
  getFloatingIP,
  listPorts,
} from '../openstack/network.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Octavia emulation and its controls', () => {
  let cloud: CloudFixture;
  let octavia: LoadBalancerClient;

  before(async () => {
    cloud = await cloudFixture();
    octavia = (await cloud.projectSession('lb', ['member', 'load-balancer_member'])).client('load-balancer');
  });
  after(() => cloud.close());

  const lb = (name: string) =>
    createLoadBalancer(octavia, { name, vip_subnet_id: '00000000-0000-0000-0000-000000000001' });

  it('PENDING_CREATE until octavia.create passes; a child write while pending is 409 immutable', async () => {
    const created = await lb('one');
    assert.equal(created.provisioning_status, 'PENDING_CREATE');
    await assert.rejects(
      createListener(octavia, { name: 'l', loadbalancer_id: created.id, protocol: 'HTTP', protocol_port: 80 }),
      (e: unknown) => e instanceof ConflictError && /immutable/.test(e.fault.message ?? ''),
    );
    cloud.emulator.control.advance(1000);
    const active = await getLoadBalancer(octavia, created.id);
    assert.equal(active.provisioning_status, 'ACTIVE');
    assert.equal(active.operating_status, 'OFFLINE');
  });

  it('name filters are exact but case-insensitive', async () => {
    await lb('Mixed-Case');
    assert.equal((await listLoadBalancers(octavia, { name: 'mixed-case' })).length, 1);
    assert.equal((await listLoadBalancers(octavia, { name: 'mixed' })).length, 0);
  });

  it('control: a load balancer goes ERROR (POST /_emulator/octavia/loadbalancers/{id}/error)', async () => {
    const created = await lb('two');
    assert.equal(await cloud.control('POST', `/octavia/loadbalancers/${created.id}/error`), 204);
    cloud.emulator.control.advance(1000);
    assert.equal((await getLoadBalancer(octavia, created.id)).provisioning_status, 'ERROR');
  });

  it('a project member without a load-balancer role is refused (403)', async () => {
    const plain = (await cloud.projectSession('plain', ['member'])).client('load-balancer');
    await assert.rejects(listLoadBalancers(plain), ForbiddenError);
  });
});

describe('Octavia with the allowed_address_pairs network driver: the VIP is a real Neutron port', () => {
  let cloud: CloudFixture;
  before(async () => {
    cloud = await cloudFixture({ config: { octaviaNetworkDriver: 'allowed_address_pairs' } });
  });
  after(() => cloud.close());

  it('the VIP port is made on the subnet; a floating IP attaches to it; the cascade delete removes the port', async () => {
    const tenant = await cloud.projectSession('aap', ['member', 'load-balancer_member']);
    const neutron = tenant.client('network');
    const octavia = tenant.client('load-balancer');
    const admin = cloud.admin.client('network');
    const external = await createNetwork(admin, { name: 'ext', 'router:external': true });
    await createSubnet(admin, { name: 'ext-sub', network_id: external.id, cidr: '203.0.113.0/24', ip_version: 4 });
    const network = await createNetwork(neutron, { name: 'net' });
    const subnet = await createSubnet(neutron, {
      name: 'sub',
      network_id: network.id,
      cidr: '10.40.0.0/24',
      ip_version: 4,
    });
    const router = await createRouter(neutron, { name: 'r', external_gateway_info: { network_id: external.id } });
    await addRouterInterface(neutron, router.id, { subnet_id: subnet.id });

    const lb = await createLoadBalancer(octavia, { name: 'web', vip_subnet_id: subnet.id });
    const [port] = await listPorts(neutron, { deviceOwner: 'Octavia' });
    assert.ok(port, 'a VIP port in the project');
    assert.equal(lb.vip_port_id, port.id);
    assert.equal(port.name, `octavia-lb-${lb.id}`);
    assert.deepEqual(port.fixed_ips, [{ subnet_id: subnet.id, ip_address: lb.vip_address }]);
    assert.equal(lb.vip_network_id, network.id);

    const fip = await createFloatingIP(neutron, { floating_network_id: external.id, port_id: lb.vip_port_id });
    assert.equal(fip.port_id, port.id);

    cloud.emulator.control.advance(1000);
    await deleteLoadBalancer(octavia, lb.id, { cascade: true });
    cloud.emulator.control.advance(1000);
    assert.deepEqual(await listPorts(neutron, { deviceOwner: 'Octavia' }), []);
    assert.equal((await getFloatingIP(neutron, fip.id)).port_id, null, 'the floating IP lost its port, as on Neutron');
  });

  it('a VIP subnet the caller cannot see is refused (400), as Octavia validates it', async () => {
    const octavia = (await cloud.projectSession('aap-2', ['member', 'load-balancer_member'])).client('load-balancer');
    await assert.rejects(
      createLoadBalancer(octavia, { name: 'x', vip_subnet_id: '00000000-0000-0000-0000-000000000001' }),
      (e: unknown) => e instanceof BadRequestError && /Subnet .* not found/.test(e.message),
    );
  });
});

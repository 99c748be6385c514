/** Octavia's controls (provisioning status, a real VIP port) and the listener/pool protocol matrix. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BadRequestError } from '../../openstack/errors.ts';
import * as octavia from '../../openstack/loadbalancer.ts';
import { cloudFixture, type CloudFixture } from '../testing/cloud.ts';

describe('Octavia controls and protocol rules', () => {
  let cloud: CloudFixture;
  let lbs: octavia.LoadBalancerClient;
  let serial = 0;

  before(async () => {
    cloud = await cloudFixture();
    lbs = (await cloud.projectSession('lb', ['member', 'load-balancer_member'])).client('load-balancer');
  });
  after(() => cloud.close());

  const active = async () => {
    const made = await octavia.createLoadBalancer(lbs, {
      name: `lb${String(++serial)}`,
      vip_subnet_id: '00000000-0000-0000-0000-000000000001',
    });
    cloud.emulator.control.advance(1000);
    return made;
  };

  it('provisioning: any status on a load balancer or a child, kept until changed; unknown ones refused', async () => {
    const lb = await active();
    assert.equal(await cloud.control('POST', `/octavia/provisioning/${lb.id}`, { status: 'PENDING_UPDATE' }), 204);
    cloud.emulator.control.advance(10_000);
    assert.equal((await octavia.getLoadBalancer(lbs, lb.id)).provisioning_status, 'PENDING_UPDATE');
    await cloud.control('POST', `/octavia/provisioning/${lb.id}`, { status: 'ACTIVE' });
    const pool = await octavia.createPool(lbs, {
      name: 'p',
      loadbalancer_id: lb.id,
      protocol: 'TCP',
      lb_algorithm: 'ROUND_ROBIN',
    });
    cloud.emulator.control.advance(1000);
    assert.equal(await cloud.control('POST', `/octavia/provisioning/${pool.id}`, { status: 'ERROR' }), 204);
    assert.equal((await octavia.getPool(lbs, pool.id)).provisioning_status, 'ERROR');
    assert.equal(await cloud.control('POST', `/octavia/provisioning/${pool.id}`, { status: 'BROKEN' }), 400);
    assert.equal(await cloud.control('POST', '/octavia/provisioning/nope', { status: 'ACTIVE' }), 404);
  });

  it('vip-port: the VIP moves to the given port and address', async () => {
    const lb = await active();
    const port = '11111111-1111-1111-1111-111111111111';
    const body = { port_id: port, vip_address: '192.168.0.9' };
    assert.equal(await cloud.control('POST', `/octavia/loadbalancers/${lb.id}/vip-port`, body), 204);
    const moved = await octavia.getLoadBalancer(lbs, lb.id);
    assert.deepEqual([moved.vip_port_id, moved.vip_address], [port, '192.168.0.9']);
  });

  it("a default pool must be one the listener's protocol can carry (UDP only UDP; TCP also PROXYV2)", async () => {
    const lb = await active();
    const pool = (protocol: octavia.PoolProtocol) =>
      octavia.createPool(lbs, { name: protocol, loadbalancer_id: lb.id, protocol, lb_algorithm: 'ROUND_ROBIN' });
    const proxy = await pool('PROXYV2');
    cloud.emulator.control.advance(1000);
    const listener = (protocol: octavia.ListenerProtocol, port: number, poolID: string) =>
      octavia.createListener(lbs, {
        name: `${protocol}${String(port)}`,
        loadbalancer_id: lb.id,
        protocol,
        protocol_port: port,
        default_pool_id: poolID,
      });
    await assert.rejects(listener('UDP', 53, proxy.id), BadRequestError);
    const tcp = await listener('TCP', 80, proxy.id);
    cloud.emulator.control.advance(1000);
    const udp = await pool('UDP');
    cloud.emulator.control.advance(1000);
    await assert.rejects(octavia.updateListener(lbs, tcp.id, { default_pool_id: udp.id }), BadRequestError);
  });
});

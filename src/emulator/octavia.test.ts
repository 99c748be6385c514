import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConflictError, ForbiddenError } from '../openstack/errors.ts';
import {
  createListener,
  createLoadBalancer,
  getLoadBalancer,
  listLoadBalancers,
  type LoadBalancerClient,
} from '../openstack/loadbalancer.ts';
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

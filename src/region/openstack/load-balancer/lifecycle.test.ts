/**
 * The load balancer provider on the emulator: the topology it creates, the principal behind every request, one
 * write per pass in the specified order, a pass interrupted at each of its requests in turn, and delete ordering.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as neutron from '../../../openstack/network.ts';
import { TransientError } from '../../provider/errors.ts';
import { listenerName, monitorName, poolName } from '../names.ts';
import { deleteLoadBalancer } from './lifecycle.ts';
import { byName, loadBalancerFixture, type LoadBalancerFixture } from '../testing/load-balancer.ts';

let s: LoadBalancerFixture;
before(async () => {
  s = await loadBalancerFixture('lb-create');
});
after(async () => {
  await s.close();
});

describe('createLoadBalancer', () => {
  it('realises the topology in the identity project, with a floating IP on the VIP port', async () => {
    const spec = s.newSpec({ publicIP: true });
    const realised = await s.converged(spec);
    const found = await s.inOctavia(spec);
    assert.equal(found.lbs.length, 1);
    const [lb] = found.lbs;
    assert.ok(lb);
    assert.equal(lb.project_id, s.identity.projectID);
    const [subnet] = await neutron.listSubnets(s.admin.client('network'), { name: `network-${s.network.id}` });
    assert.equal(lb.vip_subnet_id, subnet?.id);
    const http = byName(found.listeners, listenerName(spec.id, 'http'));
    const dns = byName(found.listeners, listenerName(spec.id, 'dns'));
    const httpPool = byName(found.pools, poolName(spec.id, 'http'));
    const dnsPool = byName(found.pools, poolName(spec.id, 'dns'));
    assert.deepEqual(
      [http.protocol, http.protocol_port, http.allowed_cidrs, http.default_pool_id, http.timeout_client_data],
      ['TCP', 80, ['10.0.0.0/8'], httpPool.id, 120_000],
    );
    assert.equal(http.timeout_member_data, 120_000);
    assert.deepEqual([dns.protocol, dns.protocol_port, dns.default_pool_id], ['UDP', 53, dnsPool.id]);
    assert.deepEqual([httpPool.protocol, httpPool.lb_algorithm, dnsPool.protocol], ['TCP', 'ROUND_ROBIN', 'UDP']);
    assert.deepEqual(found.members.get(httpPool.name), ['192.168.20.10:8080']);
    assert.deepEqual(found.members.get(dnsPool.name), ['192.168.20.11:53']);
    assert.deepEqual(
      found.monitors.map((m) => [m.name, m.type, m.delay, m.timeout, m.max_retries, m.max_retries_down]),
      [[monitorName(spec.id, 'http'), 'TCP', 10, 5, 3, 3]],
    );
    const fips = await neutron.listFloatingIPs(s.admin.client('network'), { portID: lb.vip_port_id ?? '' });
    assert.equal(fips.length, 1);
    assert.equal(fips[0]?.project_id, s.identity.projectID);
    assert.deepEqual(realised, { vipAddress: lb.vip_address, publicIP: fips[0].floating_ip_address });
    await s.removeAll(spec);
  });

  it("works as the identity's own user in its project; only the external network list is the region's", async () => {
    const spec = s.newSpec({ publicIP: true });
    const from = s.log().length;
    await s.converged(spec);
    await s.removeAll(spec);
    const lines = s.log().slice(from);
    const who = new Set(lines.map((line) => line.split(' ').slice(0, 2).join(' ')));
    assert.deepEqual(who, new Set([`identity ${s.identity.projectID}`, `region ${s.clients.credentials.projectID}`]));
    assert.deepEqual(
      lines.filter((line) => line.startsWith('region ')),
      [`region ${s.clients.credentials.projectID} GET network /networks`],
    );
    assert.ok(lines.some((l) => l.startsWith(`identity ${s.identity.projectID} POST network /floatingips`)));
    assert.ok(
      lines.some((l) => l.startsWith(`identity ${s.identity.projectID} POST load-balancer /lbaas/loadbalancers`)),
    );
  });

  it('one write per pass in the specified order, and a converged pass writes nothing', async () => {
    const spec = s.newSpec();
    const { rows } = await s.converge(spec);
    assert.deepEqual(rows, [
      'create-load-balancer',
      'create-pool',
      'create-listener',
      'replace-members',
      'create-monitor',
      'create-pool',
      'create-listener',
      'replace-members',
    ]);
    const writes = s.octaviaWrites() + s.neutronWrites();
    await s.converged(spec);
    // Token requests aside (a token can expire as the emulator's clock moves), a converged pass only reads.
    assert.equal(s.octaviaWrites() + s.neutronWrites(), writes);
    await s.removeAll(spec);
  });

  it('converges after a pass is interrupted at each of its requests in turn (answer lost, or never sent)', async () => {
    const probe = s.newSpec({ publicIP: true });
    const start = s.requests();
    await s.converged(probe);
    const total = s.requests() - start;
    await s.removeAll(probe);
    assert.ok(total > 20, `${String(total)} requests`);
    for (const how of ['answer', 'request'] as const) {
      for (let n = 1; n <= total; n++) {
        const spec = s.newSpec({ publicIP: true });
        s.interrupt(n, how);
        await s.converged(spec);
        const found = await s.inOctavia(spec);
        const counts = [found.lbs, found.listeners, found.pools, found.monitors].map((x) => x.length);
        assert.deepEqual(counts, [1, 2, 2, 1], `${how} ${String(n)}`);
        const fips = await neutron.listFloatingIPs(s.admin.client('network'), {
          portID: found.lbs[0]?.vip_port_id ?? '',
        });
        assert.equal(fips.length, 1, `${how} ${String(n)}: one floating IP`);
        await s.removeAll(spec);
      }
    }
  });
});

describe('deleteLoadBalancer', () => {
  it('deletes the floating IP first, then cascades, and yields until Octavia confirms absence', async () => {
    const spec = s.newSpec({ publicIP: true });
    await s.converged(spec);
    const [lb] = (await s.inOctavia(spec)).lbs;
    assert.ok(lb);
    const from = s.log().length;
    const rows = await s.removeAll(spec);
    assert.deepEqual(rows, ['floating IP deleted', 'cascade delete accepted']);
    const writes = s
      .log()
      .slice(from)
      .filter((l) => !l.includes(' GET '))
      .map((l) => l.split(' ').slice(2).join(' '));
    assert.deepEqual(writes, [
      'DELETE network /floatingips/{floatingip_id}',
      'DELETE load-balancer /lbaas/loadbalancers/{loadbalancer_id}',
    ]);
    assert.deepEqual(await s.inOctavia(spec), { lbs: [], listeners: [], pools: [], monitors: [], members: new Map() });
    assert.deepEqual(await neutron.listFloatingIPs(s.admin.client('network'), { projectID: s.identity.projectID }), []);
  });

  it('a floating IP delete that fails holds the cascade back', async () => {
    const spec = s.newSpec({ publicIP: true });
    await s.converged(spec);
    await s.control('POST', '/faults', {
      route: '/network/v2.0/floatingips/{floatingip_id}',
      method: 'DELETE',
      count: 1,
      status: 500,
    });
    const writes = s.octaviaWrites();
    await assert.rejects(deleteLoadBalancer(s.deps(), s.identity, spec), TransientError);
    assert.equal(s.octaviaWrites(), writes, 'no cascade while the floating IP stands');
    assert.equal((await s.inOctavia(spec)).lbs.length, 1);
    await s.removeAll(spec);
  });

  it('a never-realised identity is done without a request; a second delete of a gone one is done', async () => {
    const spec = s.newSpec();
    const before = s.requests();
    assert.deepEqual(await deleteLoadBalancer(s.deps(), undefined, spec), { kind: 'done', value: undefined });
    assert.equal(s.requests(), before);
    assert.deepEqual(await deleteLoadBalancer(s.deps(), s.identity, spec), { kind: 'done', value: undefined });
  });
});

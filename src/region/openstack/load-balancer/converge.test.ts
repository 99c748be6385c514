/**
 * The load balancer provider on the emulator, converging an existing load balancer: every in-place change, orphan
 * pruning, the PENDING states, unexpected states, the UDP and PROXYV2 rules, the requested VIP and duplicates.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as octavia from '../../../openstack/loadbalancer.ts';
import * as neutron from '../../../openstack/network.ts';
import { ResourceConsistencyError } from '../../provider/errors.ts';
import type { LoadBalancerInput } from '../../provider/inputs.ts';
import { listenerName, loadBalancerName, monitorName, poolName } from '../names.ts';
import { createLoadBalancer, deleteLoadBalancer, UDP_RULES_MESSAGE } from './lifecycle.ts';
import { byName, loadBalancerFixture, type LoadBalancerFixture } from '../testing/load-balancer.ts';

let s: LoadBalancerFixture;
before(async () => {
  s = await loadBalancerFixture('lb-converge');
});
after(async () => {
  await s.close();
});

describe('createLoadBalancer on an existing load balancer', () => {
  it('converges allowed CIDRs, TCP idle timeouts, members and monitor thresholds in place', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const before = await s.inOctavia(spec);
    const [http, dns] = spec.listeners;
    assert.ok(http && dns && http.pool.healthCheck);
    const changed: LoadBalancerInput = {
      ...spec,
      listeners: [
        {
          ...http,
          allowedCIDRs: ['172.16.0.0/12', '10.0.0.0/8'],
          idleTimeoutSeconds: 300,
          pool: {
            ...http.pool,
            members: [
              { address: '192.168.20.10', port: 8080 },
              { address: '192.168.20.12', port: 8080 },
            ],
            healthCheck: { ...http.pool.healthCheck, healthyThreshold: 5, unhealthyThreshold: 7 },
          },
        },
        { ...dns, allowedCIDRs: ['192.168.0.0/16'], pool: { ...dns.pool, members: [] } },
      ],
    };
    const { rows } = await s.converge(changed);
    assert.deepEqual(rows, [
      'update-listener',
      'replace-members',
      'update-monitor',
      'update-listener',
      'replace-members',
    ]);
    const now = await s.inOctavia(spec);
    const listener = byName(now.listeners, listenerName(spec.id, 'http'));
    assert.deepEqual([...(listener.allowed_cidrs ?? [])].sort(), ['10.0.0.0/8', '172.16.0.0/12']);
    assert.deepEqual([listener.timeout_client_data, listener.timeout_member_data], [300_000, 300_000]);
    assert.deepEqual(byName(now.listeners, listenerName(spec.id, 'dns')).allowed_cidrs, ['192.168.0.0/16']);
    assert.deepEqual(now.members.get(poolName(spec.id, 'http')), ['192.168.20.10:8080', '192.168.20.12:8080']);
    assert.deepEqual(now.members.get(poolName(spec.id, 'dns')), []);
    const monitor = byName(now.monitors, monitorName(spec.id, 'http'));
    assert.deepEqual([monitor.max_retries, monitor.max_retries_down, monitor.delay], [5, 7, 10]);
    // In place: the same Octavia objects, not replacements.
    assert.deepEqual(now.listeners.map((l) => l.id).sort(), before.listeners.map((l) => l.id).sort());
    assert.equal(monitor.id, byName(before.monitors, monitorName(spec.id, 'http')).id);
    await s.removeAll(spec);
  });

  it('relinks a listener whose default pool was unlinked out of band', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const listener = byName((await s.inOctavia(spec)).listeners, listenerName(spec.id, 'http'));
    await octavia.updateListener(s.admin.client('load-balancer'), listener.id, { default_pool_id: null });
    s.settle();
    const { rows } = await s.converge(spec);
    assert.deepEqual(rows, ['update-listener']);
    const now = await s.inOctavia(spec);
    assert.equal(byName(now.listeners, listener.name).default_pool_id, byName(now.pools, poolName(spec.id, 'http')).id);
    await s.removeAll(spec);
  });

  it('prunes the listener, then the pool and monitor, of a listener the spec dropped', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const [http, dns] = spec.listeners;
    assert.ok(http && dns);
    const { rows } = await s.converge({ ...spec, listeners: [dns] });
    assert.deepEqual(rows, ['delete-listener', 'delete-pool']);
    const now = await s.inOctavia(spec);
    assert.deepEqual(
      now.listeners.map((l) => l.name),
      [listenerName(spec.id, 'dns')],
    );
    assert.deepEqual(
      now.pools.map((p) => p.name),
      [poolName(spec.id, 'dns')],
    );
    assert.deepEqual(now.monitors, [], 'the pool took its monitor with it');
    const { rows: unchecked } = await s.converge({
      ...spec,
      listeners: [http, { ...dns }].map((l) => ({ ...l, pool: { ...l.pool, healthCheck: undefined } })),
    });
    assert.ok(!unchecked.includes('create-monitor'));
    await s.removeAll(spec);
  });

  it('removes a monitor whose health check was dropped, keeping the pool', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const [http, dns] = spec.listeners;
    assert.ok(http && dns);
    const { healthCheck: _, ...pool } = http.pool;
    const { rows } = await s.converge({ ...spec, listeners: [{ ...http, pool }, dns] });
    assert.deepEqual(rows, ['delete-monitor']);
    const now = await s.inOctavia(spec);
    assert.deepEqual(now.monitors, []);
    assert.equal(now.pools.length, 2);
    await s.removeAll(spec);
  });

  for (const status of ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE']) {
    it(`yields without writing while the load balancer is ${status}`, async () => {
      const spec = s.newSpec();
      await s.converged(spec);
      const [lb] = (await s.inOctavia(spec)).lbs;
      assert.ok(lb);
      await s.provisioning(lb.id, status);
      const writes = s.neutronWrites() + s.octaviaWrites();
      assert.deepEqual(await createLoadBalancer(s.deps(), s.identity, spec), {
        kind: 'yield',
        reason: `load balancer ${status}`,
      });
      assert.deepEqual(await deleteLoadBalancer(s.deps(), s.identity, spec), {
        kind: 'yield',
        reason: `load balancer ${status}`,
      });
      assert.equal(s.neutronWrites() + s.octaviaWrites(), writes);
      await s.provisioning(lb.id, 'ACTIVE');
      await s.removeAll(spec);
    });
  }

  it('yields while a listener is PENDING_UPDATE, and treats a child in ERROR as inconsistent', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const listener = byName((await s.inOctavia(spec)).listeners, listenerName(spec.id, 'http'));
    await s.provisioning(listener.id, 'PENDING_UPDATE');
    assert.equal((await createLoadBalancer(s.deps(), s.identity, spec)).kind, 'yield');
    await s.provisioning(listener.id, 'ERROR');
    await assert.rejects(createLoadBalancer(s.deps(), s.identity, spec), ResourceConsistencyError);
    await s.provisioning(listener.id, 'ACTIVE');
    await s.removeAll(spec);
  });

  it('a load balancer in ERROR is a consistency error on create, and is still deleted', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const [lb] = (await s.inOctavia(spec)).lbs;
    assert.ok(lb);
    assert.equal(await s.control('POST', `/octavia/loadbalancers/${lb.id}/error`), 204);
    await assert.rejects(createLoadBalancer(s.deps(), s.identity, spec), (error: unknown) => {
      assert.ok(error instanceof ResourceConsistencyError);
      assert.match(error.message, /load balancer is ERROR/);
      assert.doesNotMatch(error.userMessage, /ERROR/);
      return true;
    });
    await s.removeAll(spec);
    assert.deepEqual((await s.inOctavia(spec)).lbs, []);
  });

  it('uses a PROXYV2 pool for a tcp listener with proxyProtocolV2, and UDP-CONNECT monitors for udp', async () => {
    const spec = s.newSpec();
    const [http, dns] = spec.listeners;
    assert.ok(http && dns && http.pool.healthCheck);
    const proxied: LoadBalancerInput = {
      ...spec,
      listeners: [
        { ...http, pool: { ...http.pool, proxyProtocolV2: true } },
        { ...dns, pool: { ...dns.pool, healthCheck: http.pool.healthCheck } },
      ],
    };
    await s.converged(proxied);
    const found = await s.inOctavia(spec);
    assert.equal(byName(found.pools, poolName(spec.id, 'http')).protocol, 'PROXYV2');
    assert.equal(byName(found.monitors, monitorName(spec.id, 'dns')).type, 'UDP-CONNECT');
    await s.removeAll(spec);
  });

  it('refuses a udp listener with an idle timeout or proxy protocol v2 before writing anything', async () => {
    const [http, dns] = s.newSpec().listeners;
    assert.ok(http && dns);
    for (const bad of [
      { ...dns, idleTimeoutSeconds: 30 },
      { ...dns, pool: { ...dns.pool, proxyProtocolV2: true } },
    ]) {
      const spec = s.newSpec({ listeners: [http, bad] });
      const writes = s.octaviaWrites();
      const outcome = await createLoadBalancer(s.deps(), s.identity, spec);
      assert.equal(outcome.kind, 'terminal');
      assert.equal((outcome as { message: string }).message, UDP_RULES_MESSAGE);
      assert.equal(s.octaviaWrites(), writes);
    }
  });

  it('honours a requested VIP, and a realised VIP that differs from the request is a consistency error', async () => {
    const spec = s.newSpec({ requestedVIPAddress: '192.168.20.77' });
    assert.equal((await s.converged(spec)).vipAddress, '192.168.20.77');
    await assert.rejects(
      createLoadBalancer(s.deps(), s.identity, { ...spec, requestedVIPAddress: '192.168.20.78' }),
      ResourceConsistencyError,
    );
    await s.removeAll(spec);
  });

  it('two load balancers under one name are a consistency error', async () => {
    const spec = s.newSpec();
    await s.converged(spec);
    const [subnet] = await neutron.listSubnets(s.admin.client('network'), { name: `network-${s.network.id}` });
    const twin = await octavia.createLoadBalancer(s.clients.identity(s.identity.credentials).client('load-balancer'), {
      name: loadBalancerName(spec.id),
      vip_subnet_id: subnet?.id ?? '',
    });
    s.settle();
    await assert.rejects(createLoadBalancer(s.deps(), s.identity, spec), ResourceConsistencyError);
    await assert.rejects(deleteLoadBalancer(s.deps(), s.identity, spec), ResourceConsistencyError);
    await octavia.deleteLoadBalancer(s.admin.client('load-balancer'), twin.id, { cascade: true });
    s.settle();
    await s.removeAll(spec);
  });
});

/**
 * The load balancer provider on the emulator: create, every in-place change, orphan pruning, the PENDING states,
 * an unexpected state, the UDP and PROXYV2 rules, the requested VIP, duplicates, delete ordering, the principal
 * behind every request, and a pass interrupted at each of its requests in turn.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as octavia from '../../../openstack/loadbalancer.ts';
import * as neutron from '../../../openstack/network.ts';
import { ResourceConsistencyError, TransientError } from '../../provider/errors.ts';
import type { LoadBalancerInput, LoadBalancerRealisation, NetworkInput } from '../../provider/inputs.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { listenerName, loadBalancerName, monitorName, poolName } from '../names.ts';
import { createLoadBalancer, deleteLoadBalancer, UDP_RULES_MESSAGE, type OwnUserIdentity } from './loadbalancer.ts';
import { lbTestbed, twoListeners, type LbTestbed } from './testing.ts';

let tb: LbTestbed;
let identity: OwnUserIdentity;
let network: NetworkInput;
let serial = 0;

before(async () => {
  tb = await lbTestbed();
  identity = await tb.ownUser('lb-tests');
  network = await tb.network(identity, 'lbnet');
});
after(async () => {
  await tb.close();
});

const newSpec = (overrides: Partial<LoadBalancerInput> = {}) =>
  twoListeners(`lb${String(++serial)}`, network.id, overrides);
const adminOctavia = () => tb.cloud.admin.client('load-balancer');
const adminNeutron = () => tb.cloud.admin.client('network');

/** Load balancers whose VIP sits on a real Neutron port, and that port (removed with them, as Octavia would). */
const realVips = new Map<string, string>();

/** As a real network driver would have it: the VIP on a Neutron port, once the load balancer exists. */
async function ensureRealVip(spec: LoadBalancerInput): Promise<void> {
  const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
  if (found === undefined || realVips.has(found.id)) return;
  realVips.set(found.id, (await tb.realVipPort(identity, network, found.id)).id);
}

/** Runs passes until one does not yield (settling Octavia between them); a pass that throws is retried. */
async function converge(
  spec: LoadBalancerInput,
  maxPasses = 40,
): Promise<{ outcome: Outcome<LoadBalancerRealisation>; rows: string[] }> {
  const rows: string[] = [];
  for (let pass = 0; pass < maxPasses; pass++) {
    let outcome: Outcome<LoadBalancerRealisation> | undefined;
    try {
      outcome = await createLoadBalancer(tb.deps(), identity, spec);
    } catch (error) {
      if (!(error instanceof TransientError)) throw error;
      rows.push('error');
    }
    if (outcome !== undefined && outcome.kind !== 'yield') return { outcome, rows };
    if (outcome !== undefined) rows.push(outcome.reason);
    if (spec.publicIP) await ensureRealVip(spec);
    tb.settle();
  }
  throw new Error(`no convergence: ${rows.join(', ')}`);
}

async function converged(spec: LoadBalancerInput): Promise<LoadBalancerRealisation> {
  const { outcome } = await converge(spec);
  assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
  return (outcome as { value: LoadBalancerRealisation }).value;
}

async function removeAll(spec: LoadBalancerInput): Promise<string[]> {
  const rows: string[] = [];
  for (let pass = 0; pass < 20; pass++) {
    const found = await octavia.findLoadBalancerByName(adminOctavia(), loadBalancerName(spec.id));
    const outcome = await deleteLoadBalancer(tb.deps(), identity, spec);
    if (outcome.kind === 'done') return rows;
    const port = found === undefined ? undefined : realVips.get(found.id);
    if (port !== undefined && outcome.kind === 'yield' && outcome.reason.startsWith('cascade')) {
      await neutron.deletePort(adminNeutron(), port);
    }
    assert.equal(outcome.kind, 'yield', JSON.stringify(outcome));
    rows.push((outcome as { reason: string }).reason);
    tb.settle();
  }
  throw new Error('delete did not finish');
}

/** Everything Octavia holds under the load balancer's names, read as admin across projects. */
async function inOctavia(spec: LoadBalancerInput) {
  const admin = adminOctavia();
  const prefix = `${loadBalancerName(spec.id)}-`;
  const lbs = (await octavia.listLoadBalancers(admin)).filter((l) => l.name === loadBalancerName(spec.id));
  const listeners = (await octavia.listListeners(admin)).filter((l) => l.name.startsWith(prefix));
  const pools = (await octavia.listPools(admin)).filter((p) => p.name.startsWith(prefix));
  const monitors = (await octavia.listHealthMonitors(admin)).filter((m) => m.name.startsWith(prefix));
  const members = new Map<string, string[]>();
  for (const pool of pools) {
    const listed = await octavia.listMembers(admin, pool.id);
    members.set(pool.name, listed.map((m) => `${m.address}:${String(m.protocol_port)}`).sort());
  }
  return { lbs, listeners, pools, monitors, members };
}

const byName = <T extends { name: string }>(items: T[], name: string): T =>
  items.find((i) => i.name === name) ?? assert.fail(`no ${name}`);

describe('createLoadBalancer', () => {
  it('realises the topology in the identity project, with a floating IP on the VIP port', async () => {
    const spec = newSpec({ publicIP: true });
    const realised = await converged(spec);
    const found = await inOctavia(spec);
    assert.equal(found.lbs.length, 1);
    const [lb] = found.lbs;
    assert.ok(lb);
    assert.equal(lb.project_id, identity.projectID);
    const [subnet] = await neutron.listSubnets(adminNeutron(), { name: `network-${network.id}` });
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
    const fips = await neutron.listFloatingIps(adminNeutron(), { port_id: lb.vip_port_id ?? '' });
    assert.equal(fips.length, 1);
    assert.equal(fips[0]?.project_id, identity.projectID);
    assert.deepEqual(realised, { vipAddress: lb.vip_address, publicIP: fips[0].floating_ip_address });
    await removeAll(spec);
  });

  it("works as the identity's own user in its project; only the external network list is the region's", async () => {
    const spec = newSpec({ publicIP: true });
    const from = tb.log().length;
    await converged(spec);
    await removeAll(spec);
    const lines = tb.log().slice(from);
    const who = new Set(lines.map((line) => line.split(' ').slice(0, 2).join(' ')));
    assert.deepEqual(who, new Set([`identity ${identity.projectID}`, `region ${tb.clients.credentials.projectID}`]));
    assert.deepEqual(
      lines.filter((line) => line.startsWith('region ')),
      [`region ${tb.clients.credentials.projectID} GET network /networks`],
    );
    assert.ok(lines.some((l) => l.startsWith(`identity ${identity.projectID} POST network /floatingips`)));
    assert.ok(
      lines.some((l) => l.startsWith(`identity ${identity.projectID} POST load-balancer /lbaas/loadbalancers`)),
    );
  });

  it('one write per pass in the seed order, and a converged pass writes nothing', async () => {
    const spec = newSpec();
    const { rows } = await converge(spec);
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
    const writes = octaviaWrites() + tb.neutronWrites();
    await converged(spec);
    // Token requests aside (a token can expire as the emulator's clock moves), a converged pass only reads.
    assert.equal(octaviaWrites() + tb.neutronWrites(), writes);
    await removeAll(spec);
  });

  it('converges allowed CIDRs, TCP idle timeouts, members and monitor thresholds in place', async () => {
    const spec = newSpec();
    await converged(spec);
    const before = await inOctavia(spec);
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
    const { rows } = await converge(changed);
    assert.deepEqual(rows, [
      'update-listener',
      'replace-members',
      'update-monitor',
      'update-listener',
      'replace-members',
    ]);
    const now = await inOctavia(spec);
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
    await removeAll(spec);
  });

  it('relinks a listener whose default pool was unlinked out of band', async () => {
    const spec = newSpec();
    await converged(spec);
    const listener = byName((await inOctavia(spec)).listeners, listenerName(spec.id, 'http'));
    await octavia.updateListener(adminOctavia(), listener.id, { default_pool_id: null });
    tb.settle();
    const { rows } = await converge(spec);
    assert.deepEqual(rows, ['update-listener']);
    const now = await inOctavia(spec);
    assert.equal(byName(now.listeners, listener.name).default_pool_id, byName(now.pools, poolName(spec.id, 'http')).id);
    await removeAll(spec);
  });

  it('prunes the listener, then the pool and monitor, of a listener the spec dropped', async () => {
    const spec = newSpec();
    await converged(spec);
    const [http, dns] = spec.listeners;
    assert.ok(http && dns);
    const { rows } = await converge({ ...spec, listeners: [dns] });
    assert.deepEqual(rows, ['delete-listener', 'delete-pool']);
    const now = await inOctavia(spec);
    assert.deepEqual(
      now.listeners.map((l) => l.name),
      [listenerName(spec.id, 'dns')],
    );
    assert.deepEqual(
      now.pools.map((p) => p.name),
      [poolName(spec.id, 'dns')],
    );
    assert.deepEqual(now.monitors, [], 'the pool took its monitor with it');
    const { rows: unchecked } = await converge({
      ...spec,
      listeners: [http, { ...dns }].map((l) => ({ ...l, pool: { ...l.pool, healthCheck: undefined } })) as never,
    });
    assert.ok(!unchecked.includes('create-monitor'));
    await removeAll(spec);
  });

  it('removes a monitor whose health check was dropped, keeping the pool', async () => {
    const spec = newSpec();
    await converged(spec);
    const [http, dns] = spec.listeners;
    assert.ok(http && dns);
    const { healthCheck: _, ...pool } = http.pool;
    const { rows } = await converge({ ...spec, listeners: [{ ...http, pool }, dns] });
    assert.deepEqual(rows, ['delete-monitor']);
    const now = await inOctavia(spec);
    assert.deepEqual(now.monitors, []);
    assert.equal(now.pools.length, 2);
    await removeAll(spec);
  });

  for (const status of ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE']) {
    it(`yields without writing while the load balancer is ${status}`, async () => {
      const spec = newSpec();
      await converged(spec);
      const [lb] = (await inOctavia(spec)).lbs;
      assert.ok(lb);
      await tb.provisioning(lb.id, status);
      const writes = tb.neutronWrites() + octaviaWrites();
      assert.deepEqual(await createLoadBalancer(tb.deps(), identity, spec), {
        kind: 'yield',
        reason: `load balancer ${status}`,
      });
      assert.deepEqual(await deleteLoadBalancer(tb.deps(), identity, spec), {
        kind: 'yield',
        reason: `load balancer ${status}`,
      });
      assert.equal(tb.neutronWrites() + octaviaWrites(), writes);
      await tb.provisioning(lb.id, 'ACTIVE');
      await removeAll(spec);
    });
  }

  it('yields while a listener is PENDING_UPDATE, and treats a child in ERROR as inconsistent', async () => {
    const spec = newSpec();
    await converged(spec);
    const listener = byName((await inOctavia(spec)).listeners, listenerName(spec.id, 'http'));
    await tb.provisioning(listener.id, 'PENDING_UPDATE');
    assert.equal((await createLoadBalancer(tb.deps(), identity, spec)).kind, 'yield');
    await tb.provisioning(listener.id, 'ERROR');
    await assert.rejects(createLoadBalancer(tb.deps(), identity, spec), ResourceConsistencyError);
    await tb.provisioning(listener.id, 'ACTIVE');
    await removeAll(spec);
  });

  it('a load balancer in ERROR is a consistency error on create, and is still deleted', async () => {
    const spec = newSpec();
    await converged(spec);
    const [lb] = (await inOctavia(spec)).lbs;
    assert.ok(lb);
    assert.equal(await tb.cloud.control('POST', `/octavia/loadbalancers/${lb.id}/error`), 204);
    await assert.rejects(createLoadBalancer(tb.deps(), identity, spec), (error: unknown) => {
      assert.ok(error instanceof ResourceConsistencyError);
      assert.match(error.message, /load balancer is ERROR/);
      assert.doesNotMatch(error.userMessage, /ERROR/);
      return true;
    });
    await removeAll(spec);
    assert.deepEqual((await inOctavia(spec)).lbs, []);
  });

  it('uses a PROXYV2 pool for a tcp listener with proxyProtocolV2, and UDP-CONNECT monitors for udp', async () => {
    const spec = newSpec();
    const [http, dns] = spec.listeners;
    assert.ok(http && dns && http.pool.healthCheck);
    const proxied: LoadBalancerInput = {
      ...spec,
      listeners: [
        { ...http, pool: { ...http.pool, proxyProtocolV2: true } },
        { ...dns, pool: { ...dns.pool, healthCheck: http.pool.healthCheck } },
      ],
    };
    await converged(proxied);
    const found = await inOctavia(spec);
    assert.equal(byName(found.pools, poolName(spec.id, 'http')).protocol, 'PROXYV2');
    assert.equal(byName(found.monitors, monitorName(spec.id, 'dns')).type, 'UDP-CONNECT');
    await removeAll(spec);
  });

  it('refuses a udp listener with an idle timeout or proxy protocol v2 before writing anything', async () => {
    const [http, dns] = newSpec().listeners;
    assert.ok(http && dns);
    for (const bad of [
      { ...dns, idleTimeoutSeconds: 30 },
      { ...dns, pool: { ...dns.pool, proxyProtocolV2: true } },
    ]) {
      const spec = newSpec({ listeners: [http, bad] });
      const writes = octaviaWrites();
      const outcome = await createLoadBalancer(tb.deps(), identity, spec);
      assert.equal(outcome.kind, 'terminal');
      assert.equal((outcome as { message: string }).message, UDP_RULES_MESSAGE);
      assert.equal(octaviaWrites(), writes);
    }
  });

  it('honours a requested VIP, and a realised VIP that differs from the request is a consistency error', async () => {
    const spec = newSpec({ requestedVIPAddress: '192.168.20.77' });
    assert.equal((await converged(spec)).vipAddress, '192.168.20.77');
    await assert.rejects(
      createLoadBalancer(tb.deps(), identity, { ...spec, requestedVIPAddress: '192.168.20.78' }),
      ResourceConsistencyError,
    );
    await removeAll(spec);
  });

  it('two load balancers under one name are a consistency error', async () => {
    const spec = newSpec();
    await converged(spec);
    const [subnet] = await neutron.listSubnets(adminNeutron(), { name: `network-${network.id}` });
    const twin = await octavia.createLoadBalancer(tb.clients.identity(identity.credentials).client('load-balancer'), {
      name: loadBalancerName(spec.id),
      vip_subnet_id: subnet?.id ?? '',
    });
    tb.settle();
    await assert.rejects(createLoadBalancer(tb.deps(), identity, spec), ResourceConsistencyError);
    await assert.rejects(deleteLoadBalancer(tb.deps(), identity, spec), ResourceConsistencyError);
    await octavia.deleteLoadBalancer(adminOctavia(), twin.id, { cascade: true });
    tb.settle();
    await removeAll(spec);
  });

  it('converges after a pass is interrupted at each of its requests in turn (answer lost, or never sent)', async () => {
    const probe = newSpec({ publicIP: true });
    const start = tb.requests();
    await converged(probe);
    const total = tb.requests() - start;
    await removeAll(probe);
    assert.ok(total > 20, `${String(total)} requests`);
    for (const how of ['answer', 'request'] as const) {
      for (let n = 1; n <= total; n++) {
        const spec = newSpec({ publicIP: true });
        tb.interrupt(n, how);
        await converged(spec);
        const found = await inOctavia(spec);
        const counts = [found.lbs, found.listeners, found.pools, found.monitors].map((x) => x.length);
        assert.deepEqual(counts, [1, 2, 2, 1], `${how} ${String(n)}`);
        const fips = await neutron.listFloatingIps(adminNeutron(), { port_id: found.lbs[0]?.vip_port_id ?? '' });
        assert.equal(fips.length, 1, `${how} ${String(n)}: one floating IP`);
        await removeAll(spec);
      }
    }
  });
});

function octaviaWrites(): number {
  return tb.accounting
    .counts()
    .reduce((n, c) => n + (c.serviceType === 'load-balancer' && c.method !== 'GET' ? c.requests : 0), 0);
}

describe('deleteLoadBalancer', () => {
  it('deletes the floating IP first, then cascades, and yields until Octavia confirms absence', async () => {
    const spec = newSpec({ publicIP: true });
    await converged(spec);
    const [lb] = (await inOctavia(spec)).lbs;
    assert.ok(lb);
    const from = tb.log().length;
    const rows = await removeAll(spec);
    assert.deepEqual(rows, ['floating IP deleted', 'cascade delete accepted']);
    const writes = tb
      .log()
      .slice(from)
      .filter((l) => !l.includes(' GET '))
      .map((l) => l.split(' ').slice(2).join(' '));
    assert.deepEqual(writes, [
      'DELETE network /floatingips/{floatingip_id}',
      'DELETE load-balancer /lbaas/loadbalancers/{loadbalancer_id}',
    ]);
    assert.deepEqual(await inOctavia(spec), { lbs: [], listeners: [], pools: [], monitors: [], members: new Map() });
    assert.deepEqual(await neutron.listFloatingIps(adminNeutron(), { project_id: identity.projectID }), []);
  });

  it('a floating IP delete that fails holds the cascade back', async () => {
    const spec = newSpec({ publicIP: true });
    await converged(spec);
    await tb.cloud.control('POST', '/faults', {
      route: '/network/v2.0/floatingips/{floatingip_id}',
      method: 'DELETE',
      count: 1,
      status: 500,
    });
    const writes = octaviaWrites();
    await assert.rejects(deleteLoadBalancer(tb.deps(), identity, spec), TransientError);
    assert.equal(octaviaWrites(), writes, 'no cascade while the floating IP stands');
    assert.equal((await inOctavia(spec)).lbs.length, 1);
    await removeAll(spec);
  });

  it('a never-realised identity is done without a request; a second delete of a gone one is done', async () => {
    const spec = newSpec();
    const before = tb.requests();
    assert.deepEqual(await deleteLoadBalancer(tb.deps(), undefined, spec), { kind: 'done', value: undefined });
    assert.equal(tb.requests(), before);
    assert.deepEqual(await deleteLoadBalancer(tb.deps(), identity, spec), { kind: 'done', value: undefined });
  });
});

/** The load balancer decision table, row by row, without I/O: a converged observation perturbed one way at a time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Listener, LoadBalancerInput } from '../../provider/inputs.ts';
import { listenerName, monitorName, poolName } from '../names.ts';
import { planCreate, planDelete, statusRow, type Observed } from './decide.ts';

const LB = 'lb1';
const tcp: Listener = {
  name: 'web',
  protocol: 'tcp',
  port: 443,
  allowedCIDRs: ['10.0.0.0/8', '192.168.0.0/16'],
  idleTimeoutSeconds: 30,
  pool: {
    proxyProtocolV2: true,
    members: [{ address: '192.168.0.5', port: 8443 }],
    healthCheck: { intervalSeconds: 10, timeoutSeconds: 4, healthyThreshold: 2, unhealthyThreshold: 5 },
  },
};
const udp: Listener = {
  name: 'dns',
  protocol: 'udp',
  port: 53,
  allowedCIDRs: [],
  pool: {
    proxyProtocolV2: false,
    members: [{ address: '192.168.0.6', port: 53 }],
    healthCheck: { intervalSeconds: 5, timeoutSeconds: 2, healthyThreshold: 1, unhealthyThreshold: 1 },
  },
};
const spec: LoadBalancerInput = {
  id: LB,
  organizationID: 'o',
  projectID: 'p',
  regionID: 'r',
  networkID: 'n',
  publicIP: true,
  listeners: [tcp, udp],
};

/** What Octavia reports once `spec` has converged. */
function converged(): Observed {
  return {
    loadBalancer: { id: 'L', provisioning_status: 'ACTIVE', vip_address: '192.168.0.200', vip_port_id: 'P' },
    floatingIPs: [{ id: 'F', floating_ip_address: '203.0.113.9' }],
    listeners: [
      {
        id: 'l-web',
        name: listenerName(LB, 'web'),
        protocol: 'TCP',
        protocol_port: 443,
        allowed_cidrs: ['192.168.0.0/16', '10.0.0.0/8'],
        default_pool_id: 'p-web',
        timeout_client_data: 30_000,
        timeout_member_data: 30_000,
        provisioning_status: 'ACTIVE',
      },
      {
        id: 'l-dns',
        name: listenerName(LB, 'dns'),
        protocol: 'UDP',
        protocol_port: 53,
        allowed_cidrs: null,
        default_pool_id: 'p-dns',
        timeout_client_data: 50_000,
        timeout_member_data: 50_000,
        provisioning_status: 'ACTIVE',
      },
    ],
    pools: [
      { id: 'p-web', name: poolName(LB, 'web'), protocol: 'PROXYV2', provisioning_status: 'ACTIVE' },
      { id: 'p-dns', name: poolName(LB, 'dns'), protocol: 'UDP', provisioning_status: 'ACTIVE' },
    ],
    monitors: [
      {
        id: 'm-web',
        name: monitorName(LB, 'web'),
        type: 'TCP',
        delay: 10,
        timeout: 4,
        max_retries: 2,
        max_retries_down: 5,
        provisioning_status: 'ACTIVE',
      },
      {
        id: 'm-dns',
        name: monitorName(LB, 'dns'),
        type: 'UDP-CONNECT',
        delay: 5,
        timeout: 2,
        max_retries: 1,
        max_retries_down: 1,
        provisioning_status: 'ACTIVE',
      },
    ],
    members: new Map([
      ['p-web', [{ address: '192.168.0.5', port: 8443 }]],
      ['p-dns', [{ address: '192.168.0.6', port: 53 }]],
    ]),
  };
}

const base = converged();
const lbOf = (o: Observed) => o.loadBalancer ?? assert.fail('a load balancer');
const withLb = (patch: Partial<NonNullable<Observed['loadBalancer']>>): Observed => ({
  ...base,
  loadBalancer: { ...lbOf(base), ...patch },
});
const without = (key: 'listeners' | 'pools' | 'monitors', id: string): Observed => ({
  ...base,
  [key]: (base[key] as readonly { id: string }[]).filter((x) => x.id !== id),
});
function patched<K extends 'listeners' | 'pools' | 'monitors'>(
  key: K,
  id: string,
  patch: Partial<Observed[K][number]>,
): Observed {
  return {
    ...base,
    [key]: (base[key] as readonly { id: string }[]).map((x) => (x.id === id ? { ...x, ...patch } : x)),
  };
}

describe('statusRow (the spec: ACTIVE continues, PENDING_* yields, anything else is inconsistent)', () => {
  for (const [status, row] of [
    ['ACTIVE', 'active'],
    ['PENDING_CREATE', 'pending'],
    ['PENDING_UPDATE', 'pending'],
    ['PENDING_DELETE', 'pending'],
    ['ERROR', 'unexpected'],
    ['DELETED', 'unexpected'],
    ['SOMETHING_NEW', 'unexpected'],
  ] as const) {
    it(`${status} → ${row}`, () => {
      assert.equal(statusRow(status), row);
    });
  }
});

describe('planCreate', () => {
  it('converged: done with the VIP and the floating IP', () => {
    assert.deepEqual(planCreate(spec, base), { row: 'done', vipAddress: '192.168.0.200', publicIP: '203.0.113.9' });
  });

  it('no load balancer: create it', () => {
    assert.deepEqual(planCreate(spec, { ...base, loadBalancer: undefined }), { row: 'create-load-balancer' });
  });

  it('a requested VIP that differs from the realised one is a consistency row, whatever the status', () => {
    const step = planCreate(
      { ...spec, requestedVIPAddress: '192.168.0.201' },
      withLb({ provisioning_status: 'PENDING_CREATE' }),
    );
    assert.equal(step.row, 'vip-mismatch');
    assert.equal(planCreate({ ...spec, requestedVIPAddress: '192.168.0.200' }, base).row, 'done');
  });

  for (const status of ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE']) {
    it(`load balancer ${status}: yield before anything else`, () => {
      assert.deepEqual(planCreate(spec, withLb({ provisioning_status: status })), {
        row: 'pending',
        what: 'load balancer',
        status,
      });
    });
  }
  for (const status of ['ERROR', 'DELETED']) {
    it(`load balancer ${status}: unexpected status`, () => {
      assert.equal(planCreate(spec, withLb({ provisioning_status: status })).row, 'unexpected-status');
    });
  }

  it('no VIP port: inconsistent', () => {
    assert.equal(planCreate(spec, withLb({ vip_port_id: null })).row, 'vip-missing');
  });

  it('floating IP: created on the VIP port when asked for, deleted when not, two are inconsistent', () => {
    assert.deepEqual(planCreate(spec, { ...base, floatingIPs: [] }), { row: 'create-floating-ip', portID: 'P' });
    assert.deepEqual(planCreate({ ...spec, publicIP: false }, base), { row: 'delete-floating-ip', floatingIPID: 'F' });
    assert.deepEqual(planCreate({ ...spec, publicIP: false }, { ...base, floatingIPs: [] }), {
      row: 'done',
      vipAddress: '192.168.0.200',
      publicIP: undefined,
    });
    const two = [...base.floatingIPs, { id: 'G', floating_ip_address: '203.0.113.10' }];
    assert.equal(planCreate(spec, { ...base, floatingIPs: two }).row, 'duplicate');
  });

  it('a listener the spec dropped is pruned first; its pool and monitor go after every listener converged', () => {
    const one = { ...spec, listeners: [tcp] };
    assert.deepEqual(planCreate(one, base), { row: 'delete-listener', id: 'l-dns', name: listenerName(LB, 'dns') });
    const listenerGone = without('listeners', 'l-dns');
    assert.deepEqual(planCreate(one, listenerGone), { row: 'delete-pool', id: 'p-dns', name: poolName(LB, 'dns') });
    const poolGone = { ...listenerGone, pools: listenerGone.pools.filter((p) => p.id !== 'p-dns') };
    assert.deepEqual(planCreate(one, poolGone), { row: 'delete-monitor', id: 'm-dns', name: monitorName(LB, 'dns') });
  });

  it("another load balancer's children are never ours", () => {
    const foreign = {
      ...base.listeners[0],
      id: 'x',
      name: listenerName('lb2', 'gone'),
    } as Observed['listeners'][number];
    const pool = { id: 'y', name: poolName('lb2', 'gone'), protocol: 'TCP' as const, provisioning_status: 'ACTIVE' };
    const step = planCreate(spec, { ...base, listeners: [...base.listeners, foreign], pools: [...base.pools, pool] });
    assert.equal(step.row, 'done');
  });

  it('per listener: pool, then listener, then members, then monitor', () => {
    assert.deepEqual(planCreate(spec, without('pools', 'p-web')), {
      row: 'create-pool',
      loadBalancerID: 'L',
      listener: tcp,
      protocol: 'PROXYV2',
    });
    assert.deepEqual(planCreate(spec, without('listeners', 'l-web')), {
      row: 'create-listener',
      loadBalancerID: 'L',
      listener: tcp,
      poolID: 'p-web',
    });
    assert.deepEqual(planCreate(spec, { ...base, members: new Map([['p-dns', base.members.get('p-dns') ?? []]]) }), {
      row: 'replace-members',
      poolID: 'p-web',
      members: [{ address: '192.168.0.5', port: 8443 }],
    });
    assert.deepEqual(planCreate(spec, without('monitors', 'm-web')), {
      row: 'create-monitor',
      listener: tcp,
      poolID: 'p-web',
    });
  });

  it('pool protocols: UDP for udp, PROXYV2 for tcp only with proxyProtocolV2, else TCP', () => {
    const plain = { ...tcp, pool: { ...tcp.pool, proxyProtocolV2: false } };
    const none = { ...base, listeners: [], pools: [], monitors: [] };
    assert.equal(planCreate({ ...spec, listeners: [plain] }, none).row, 'create-pool');
    assert.deepEqual(
      [plain, tcp, udp].map((l) => {
        const step = planCreate({ ...spec, listeners: [l] }, none);
        return step.row === 'create-pool' ? step.protocol : step.row;
      }),
      ['TCP', 'PROXYV2', 'UDP'],
    );
  });

  it('UDP health checks use UDP-CONNECT, TCP ones TCP; a monitor of the other type is immutable drift', () => {
    assert.equal(planCreate(spec, patched('monitors', 'm-dns', { type: 'TCP' })).row, 'immutable-drift');
    assert.equal(planCreate(spec, patched('monitors', 'm-web', { type: 'UDP-CONNECT' })).row, 'immutable-drift');
  });

  it('a UDP listener with an idle timeout or proxy protocol v2 is rejected before any observation matters', () => {
    const timed = { ...udp, idleTimeoutSeconds: 10 };
    const proxied = { ...udp, pool: { ...udp.pool, proxyProtocolV2: true } };
    for (const listener of [timed, proxied]) {
      const step = planCreate({ ...spec, listeners: [tcp, listener] }, { ...base, loadBalancer: undefined });
      assert.equal(step.row, 'rejected');
    }
  });

  it('in place: allowed CIDRs (order-insensitive), default pool, TCP idle timeouts; UDP timeouts are left alone', () => {
    const cidrs = planCreate({ ...spec, listeners: [{ ...tcp, allowedCIDRs: ['10.0.0.0/8'] }, udp] }, base);
    assert.deepEqual(cidrs, { row: 'update-listener', id: 'l-web', update: { allowed_cidrs: ['10.0.0.0/8'] } });
    const unlinked = planCreate(spec, patched('listeners', 'l-web', { default_pool_id: null }));
    assert.deepEqual(unlinked, { row: 'update-listener', id: 'l-web', update: { default_pool_id: 'p-web' } });
    const idle = planCreate({ ...spec, listeners: [{ ...tcp, idleTimeoutSeconds: 90 }, udp] }, base);
    assert.deepEqual(idle, {
      row: 'update-listener',
      id: 'l-web',
      update: { timeout_client_data: 90_000, timeout_member_data: 90_000 },
    });
    const defaulted = planCreate({ ...spec, listeners: [{ ...tcp, idleTimeoutSeconds: undefined }, udp] }, base);
    assert.deepEqual(defaulted, {
      row: 'update-listener',
      id: 'l-web',
      update: { timeout_client_data: 60_000, timeout_member_data: 60_000 },
    });
    const opened = planCreate(spec, patched('listeners', 'l-dns', { allowed_cidrs: ['1.2.3.0/24'] }));
    assert.deepEqual(opened, { row: 'update-listener', id: 'l-dns', update: { allowed_cidrs: [] } });
  });

  it('in place: members by (address, port), whatever their order', () => {
    const moved = { ...tcp, pool: { ...tcp.pool, members: [{ address: '192.168.0.5', port: 9443 }] } };
    assert.equal(planCreate({ ...spec, listeners: [moved, udp] }, base).row, 'replace-members');
    const two = [
      { address: '192.168.0.7', port: 1 },
      { address: '192.168.0.5', port: 8443 },
    ];
    const more = { ...tcp, pool: { ...tcp.pool, members: two } };
    const reordered = { ...base, members: new Map([...base.members, ['p-web', [...two].reverse()]]) };
    assert.equal(planCreate({ ...spec, listeners: [more, udp] }, reordered).row, 'done');
  });

  it('in place: monitor thresholds, only the ones that changed', () => {
    const check = { intervalSeconds: 10, timeoutSeconds: 4, healthyThreshold: 2, unhealthyThreshold: 9 };
    const step = planCreate({ ...spec, listeners: [{ ...tcp, pool: { ...tcp.pool, healthCheck: check } }, udp] }, base);
    assert.deepEqual(step, { row: 'update-monitor', id: 'm-web', update: { max_retries_down: 9 } });
  });

  it('a health check removed from the spec: its monitor is pruned as an orphan', () => {
    const unchecked = { ...udp, pool: { ...udp.pool, healthCheck: undefined } };
    assert.deepEqual(planCreate({ ...spec, listeners: [tcp, unchecked] }, base), {
      row: 'delete-monitor',
      id: 'm-dns',
      name: monitorName(LB, 'dns'),
    });
  });

  it('an existing listener with another protocol or port, or a pool with another protocol: immutable drift', () => {
    assert.equal(planCreate({ ...spec, listeners: [{ ...tcp, port: 8443 }, udp] }, base).row, 'immutable-drift');
    const plain = { ...tcp, pool: { ...tcp.pool, proxyProtocolV2: false } };
    assert.equal(planCreate({ ...spec, listeners: [plain, udp] }, base).row, 'immutable-drift');
  });

  it('a child that is PENDING yields, one in ERROR is unexpected', () => {
    for (const [key, id] of [
      ['pools', 'p-web'],
      ['listeners', 'l-web'],
      ['monitors', 'm-dns'],
    ] as const) {
      assert.equal(planCreate(spec, patched(key, id, { provisioning_status: 'PENDING_UPDATE' })).row, 'pending');
      assert.equal(planCreate(spec, patched(key, id, { provisioning_status: 'ERROR' })).row, 'unexpected-status');
    }
  });

  it('two children under one name are a consistency row', () => {
    const twice = { ...base, pools: [...base.pools, { ...base.pools[0], id: 'p-web-2' } as Observed['pools'][number]] };
    assert.equal(planCreate(spec, twice).row, 'duplicate');
  });
});

describe('planDelete', () => {
  const gone = { loadBalancer: undefined, floatingIPs: [] };
  it('absent: gone', () => {
    assert.deepEqual(planDelete(gone), { row: 'gone' });
  });
  it('the floating IP goes first, then the cascade', () => {
    assert.deepEqual(planDelete(base), { row: 'delete-floating-ip', floatingIPID: 'F' });
    assert.deepEqual(planDelete({ ...base, floatingIPs: [] }), { row: 'cascade-delete', id: 'L' });
  });
  it('an ERROR load balancer is cascade-deleted too', () => {
    assert.deepEqual(planDelete({ ...withLb({ provisioning_status: 'ERROR' }), floatingIPs: [] }), {
      row: 'cascade-delete',
      id: 'L',
    });
  });
  for (const status of ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE', 'DELETED']) {
    it(`${status}: yield, touching nothing`, () => {
      assert.deepEqual(planDelete(withLb({ provisioning_status: status })), { row: 'pending', status });
    });
  }
  it('an unknown status is unexpected; two floating IPs are a duplicate', () => {
    assert.equal(planDelete(withLb({ provisioning_status: 'WEIRD' })).row, 'unexpected-status');
    const two = [...base.floatingIPs, { id: 'G', floating_ip_address: '203.0.113.10' }];
    assert.equal(planDelete({ ...base, floatingIPs: two }).row, 'duplicate');
  });
});

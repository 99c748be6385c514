import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { formatIPv4, parseIPv4, parsePrefix } from '../../../util/ipv4.ts';
import { hostRoutes, InvalidSubnetError, planSubnet, subnetUpdate, type SubnetPlan } from './subnet.ts';

const ip = (text: string): number => {
  const value = parseIPv4(text);
  assert.ok(value !== undefined, text);
  return value;
};

/** A valid layout: a network /n, a reservation /r (n < r ≤ 30) and an optional provider part /p (r ≤ p ≤ 30). */
const layouts = fc
  .record({
    address: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    length: fc.integer({ min: 0, max: 29 }),
    reservationOffset: fc.integer({ min: 1, max: 30 }),
    providerOffset: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  })
  .map(({ address, length, reservationOffset, providerOffset }) => {
    const prefixLength = Math.min(30, length + reservationOffset);
    const provider = providerOffset === undefined ? undefined : Math.min(30, prefixLength + providerOffset);
    return {
      prefix: `${formatIPv4(address)}/${length}`,
      reservations:
        provider === undefined ? { prefixLength } : { prefixLength, providerReservedPrefixLength: provider },
    };
  });

function numbers(plan: SubnetPlan) {
  const network = parsePrefix(plan.cidr);
  assert.ok(network);
  return {
    base: network.base,
    last: network.base + 2 ** (32 - network.length) - 1,
    gateway: ip(plan.gatewayIP),
    pool: [ip(plan.allocationPool.start), ip(plan.allocationPool.end)] as const,
    storage: plan.storageRange && ([ip(plan.storageRange.startIP), ip(plan.storageRange.endIP)] as const),
  };
}

describe('planSubnet', () => {
  it('lays out upstream’s /24 examples: gateway .1, pool after the reservation, storage inside it', () => {
    assert.deepEqual(planSubnet('192.168.10.0/24', { prefixLength: 25 }), {
      cidr: '192.168.10.0/24',
      gatewayIP: '192.168.10.1',
      allocationPool: { start: '192.168.10.128', end: '192.168.10.254' },
      storageRange: { startIP: '192.168.10.2', endIP: '192.168.10.127' },
    });
    assert.deepEqual(
      planSubnet('192.168.10.0/24', { prefixLength: 25, providerReservedPrefixLength: 29 }).storageRange,
      {
        startIP: '192.168.10.8',
        endIP: '192.168.10.127',
      },
    );
    assert.deepEqual(planSubnet('10.0.0.0/16', { prefixLength: 25, providerReservedPrefixLength: 28 }), {
      cidr: '10.0.0.0/16',
      gatewayIP: '10.0.0.1',
      allocationPool: { start: '10.0.0.128', end: '10.0.255.254' },
      storageRange: { startIP: '10.0.0.16', endIP: '10.0.0.127' },
    });
  });

  it('has no storage range when the provider part is the whole reservation', () => {
    const plan = planSubnet('192.168.10.0/24', { prefixLength: 29, providerReservedPrefixLength: 29 });
    assert.equal(plan.storageRange, undefined);
    assert.deepEqual(plan.allocationPool, { start: '192.168.10.8', end: '192.168.10.254' });
  });

  it('clears host bits of the prefix, as Neutron stores it', () => {
    assert.equal(planSubnet('10.1.2.3/24', { prefixLength: 26 }).cidr, '10.1.2.0/24');
    assert.equal(planSubnet('10.1.2.3/24', { prefixLength: 26 }).gatewayIP, '10.1.2.1');
  });

  it('refuses layouts that do not fit', () => {
    for (const [prefix, reservations] of [
      ['10.0.0.0/24', { prefixLength: 24 }],
      ['10.0.0.0/24', { prefixLength: 23 }],
      ['10.0.0.0/24', { prefixLength: 31 }],
      ['10.0.0.0/24', { prefixLength: 25, providerReservedPrefixLength: 24 }],
      ['10.0.0.0/24', { prefixLength: 25, providerReservedPrefixLength: 31 }],
      ['10.0.0.0', { prefixLength: 25 }],
      ['10.0.0.256/24', { prefixLength: 25 }],
      ['10.0.0.0/33', { prefixLength: 25 }],
    ] as const) {
      assert.throws(
        () => planSubnet(prefix, reservations),
        InvalidSubnetError,
        `${prefix} ${JSON.stringify(reservations)}`,
      );
    }
  });

  it('keeps the pool inside the prefix, after the reservation, and never on the gateway', () => {
    fc.assert(
      fc.property(layouts, ({ prefix, reservations }) => {
        const n = numbers(planSubnet(prefix, reservations));
        const reservationEnd = n.base + 2 ** (32 - reservations.prefixLength) - 1;
        assert.equal(n.gateway, n.base + 1);
        assert.ok(n.base < n.pool[0] && n.pool[0] <= n.pool[1] && n.pool[1] < n.last, 'pool inside, before broadcast');
        assert.equal(n.pool[0], reservationEnd + 1);
        assert.equal(n.pool[1], n.last - 1);
        assert.ok(n.gateway < n.pool[0], 'gateway outside the pool');
      }),
    );
  });

  it('puts the storage range inside the reservation, clear of the gateway, the provider part and the pool', () => {
    fc.assert(
      fc.property(layouts, ({ prefix, reservations }) => {
        const n = numbers(planSubnet(prefix, reservations));
        const provider = reservations.providerReservedPrefixLength;
        if (provider === reservations.prefixLength) {
          assert.equal(n.storage, undefined);
          return;
        }
        assert.ok(n.storage);
        const [start, end] = n.storage;
        assert.ok(start <= end, 'non-empty');
        assert.ok(n.gateway < start, 'gateway outside');
        assert.ok(end < n.pool[0], 'disjoint from the pool');
        assert.equal(end, n.base + 2 ** (32 - reservations.prefixLength) - 1, 'ends with the reservation');
        assert.equal(start, n.base + (provider === undefined ? 2 : 2 ** (32 - provider)), 'after the provider part');
      }),
    );
  });
});

describe('subnetUpdate', () => {
  const current = {
    dns_nameservers: ['8.8.8.8', '1.1.1.1'],
    host_routes: [
      { destination: '10.0.0.0/8', nexthop: '192.168.0.254' },
      { destination: '172.16.0.0/12', nexthop: '192.168.0.253' },
    ],
  };
  const spec = {
    dnsNameservers: ['8.8.8.8', '1.1.1.1'],
    routes: [
      { prefix: '172.16.0.0/12', nextHop: '192.168.0.253' },
      { prefix: '10.0.0.0/8', nextHop: '192.168.0.254' },
    ],
  };

  it('writes nothing when DNS servers match in order and routes match as a set', () => {
    assert.equal(subnetUpdate(current, spec), undefined);
  });

  it('sends both lists whole when either differs', () => {
    const reordered = { ...spec, dnsNameservers: ['1.1.1.1', '8.8.8.8'] };
    assert.deepEqual(subnetUpdate(current, reordered), {
      dns_nameservers: ['1.1.1.1', '8.8.8.8'],
      host_routes: hostRoutes(spec.routes),
    });
    const fewer = { ...spec, routes: spec.routes.slice(1) };
    assert.deepEqual(subnetUpdate(current, fewer)?.host_routes, [
      { destination: '10.0.0.0/8', nexthop: '192.168.0.254' },
    ]);
    assert.deepEqual(subnetUpdate(current, { dnsNameservers: [], routes: [] }), {
      dns_nameservers: [],
      host_routes: [],
    });
  });
});

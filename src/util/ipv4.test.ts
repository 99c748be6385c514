import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  contains,
  formatIPv4,
  formatPrefix,
  isCanonicalPrefix,
  isHostOf,
  overlaps,
  parseIPv4,
  parsePrefix,
  prefixSize,
  unusableRangeOf,
  type Prefix,
} from './ipv4.ts';

const ip = (text: string): number => {
  const value = parseIPv4(text);
  assert.ok(value !== undefined, text);
  return value;
};
const cidr = (text: string): Prefix => {
  const value = parsePrefix(text);
  assert.ok(value !== undefined, text);
  return value;
};

const addresses = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const prefixes = fc
  .record({ address: addresses, length: fc.integer({ min: 0, max: 32 }) })
  .map(({ address, length }) => cidr(`${formatIPv4(address)}/${String(length)}`));

describe('IPv4 addresses', () => {
  it('round-trips every address, 128.0.0.0 and above included', () => {
    fc.assert(fc.property(addresses, (a) => parseIPv4(formatIPv4(a)) === a));
    assert.equal(parseIPv4('255.255.255.255'), 2 ** 32 - 1);
    assert.equal(formatIPv4(ip('192.168.0.1')), '192.168.0.1');
  });

  it('refuses anything but four decimal octets of at most 255', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.0.0.1',
      '1.2.3.-4',
      '1.2.3.4 ',
      'a.b.c.d',
      '1..2.3',
      '0x1.2.3.4',
    ]) {
      assert.equal(parseIPv4(bad), undefined, bad);
    }
  });
});

describe('IPv4 prefixes', () => {
  it('clears host bits, as Neutron stores a CIDR, and needs the /n', () => {
    assert.deepEqual(parsePrefix('10.0.0.5/24'), { base: ip('10.0.0.0'), length: 24 });
    assert.equal(formatPrefix({ base: ip('192.168.10.0'), length: 25 }), '192.168.10.0/25');
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/', '10.0.0.0/2/4', '10.0.0/8', '10.0.0.0/x']) {
      assert.equal(parsePrefix(bad), undefined, bad);
    }
  });

  it('a parsed prefix sits on a multiple of its size and reads back the same', () => {
    fc.assert(
      fc.property(prefixes, (p) => p.base % prefixSize(p) === 0 && parsePrefix(formatPrefix(p))?.base === p.base),
    );
  });

  it('contains exactly the addresses from its base to its broadcast address', () => {
    assert.equal(contains(cidr('192.168.0.0/24'), ip('192.168.0.50')), true);
    assert.equal(contains(cidr('192.168.0.0/24'), ip('192.168.1.50')), false);
    assert.equal(contains(cidr('10.0.0.0/16'), ip('10.0.255.255')), true);
    fc.assert(
      fc.property(prefixes, addresses, (p, a) => {
        const inside = a >= p.base && a <= p.base + prefixSize(p) - 1;
        return contains(p, a) === inside && contains(p, p.base) && !contains(p, p.base + prefixSize(p));
      }),
    );
  });

  it('two prefixes overlap when one holds an address of the other; overlap is symmetric', () => {
    assert.equal(overlaps(cidr('10.0.0.0/8'), cidr('10.20.0.0/16')), true);
    assert.equal(overlaps(cidr('10.0.0.0/24'), cidr('10.0.1.0/24')), false);
    fc.assert(
      fc.property(prefixes, prefixes, (a, b) => {
        const shared = contains(a, b.base) || contains(b, a.base);
        return overlaps(a, b) === shared && overlaps(b, a) === overlaps(a, b);
      }),
    );
  });
});

describe('canonical prefixes', () => {
  it('are the network address in plain decimal: what formatPrefix writes', () => {
    fc.assert(fc.property(prefixes, (p) => isCanonicalPrefix(formatPrefix(p))));
    for (const good of ['0.0.0.0/0', '10.0.0.0/8', '192.168.0.0/24', '10.0.0.5/32']) {
      assert.equal(isCanonicalPrefix(good), true, good);
    }
  });

  it('refuse host bits, leading zeros and anything that is not a prefix', () => {
    for (const bad of ['10.0.0.5/24', '010.050.000.000/24', '10.0.0.0/08', '10.0.0.0', '10.0.0.0/33', '']) {
      assert.equal(isCanonicalPrefix(bad), false, bad);
    }
  });
});

describe('usable unicast space', () => {
  const range = (text: string) => unusableRangeOf(parsePrefix(text) as Prefix);
  it('names the unusable range a prefix overlaps: this network, loopback, link-local, multicast, reserved', () => {
    assert.equal(range('0.0.0.0/24'), '"this network"');
    assert.equal(range('127.0.0.0/24'), 'loopback');
    assert.equal(range('169.254.0.0/24'), 'link-local');
    assert.equal(range('224.0.0.0/24'), 'multicast');
    assert.equal(range('255.255.255.0/24'), 'reserved (and broadcast)');
    assert.equal(range('96.0.0.0/3'), 'loopback', 'a wide prefix over loopback');
    for (const usable of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/24', '100.64.0.0/10', '8.8.8.0/24']) {
      assert.equal(range(usable), undefined, usable);
    }
  });

  it('a host of a prefix is inside it and neither its network nor its broadcast address (except in a /31)', () => {
    const net = parsePrefix('10.0.0.0/24') as Prefix;
    const at = (a: string) => isHostOf(net, parseIPv4(a) as number);
    assert.deepEqual(['10.0.0.1', '10.0.0.254', '10.0.0.0', '10.0.0.255', '10.0.1.1'].map(at), [
      true,
      true,
      false,
      false,
      false,
    ]);
    assert.equal(isHostOf(parsePrefix('10.0.0.0/31') as Prefix, parseIPv4('10.0.0.0') as number), true);
  });
});

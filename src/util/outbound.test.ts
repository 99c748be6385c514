import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkedAddress, destinationRefusal, parseAllowed, PUBLIC_ONLY } from './outbound.ts';

describe('destinationRefusal', () => {
  it('refuses every address that is not public unicast, in any spelling', () => {
    const refused = [
      '127.0.0.1',
      '127.1', // short form
      '0x7f000001', // hex
      '2130706433', // one number
      '0177.0.0.1', // octal
      '0.0.0.0',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '100.64.0.1', // CGNAT
      '100.100.100.200', // a cloud's metadata address, in CGNAT
      '169.254.169.254', // the metadata address
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254', // the metadata address over IPv6
      'ff02::1',
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:7f00:1',
      '::ffff:8.8.8.8', // mapped, even when public: connect to the IPv4 address itself
      '64:ff9b::7f00:1', // NAT64
      '2002:7f00:1::', // 6to4
    ];
    for (const address of refused) {
      assert.notEqual(destinationRefusal(address, PUBLIC_ONLY), undefined, `${address} was allowed`);
    }
  });

  it('allows public unicast addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '151.101.1.1', '2606:4700:4700::1111', '2a00:1450:4001::1']) {
      assert.equal(destinationRefusal(address, PUBLIC_ONLY), undefined, address);
    }
  });

  it('allows what the operator allows, an IPv4-mapped spelling of it included, and nothing beside it', () => {
    const policy = { allow: ['10.1.2.0/24', 'fd00:1::/64', '127.0.0.1'] };
    assert.equal(destinationRefusal('10.1.2.7', policy), undefined);
    assert.equal(destinationRefusal('::ffff:10.1.2.7', policy), undefined);
    assert.equal(destinationRefusal('fd00:1::5', policy), undefined);
    assert.equal(destinationRefusal('127.0.0.1', policy), undefined);
    assert.notEqual(destinationRefusal('10.1.3.7', policy), undefined);
    assert.notEqual(destinationRefusal('127.0.0.2', policy), undefined);
    assert.notEqual(destinationRefusal('fd00:2::5', policy), undefined);
  });

  it('refuses what is not an address; an allow-list entry must parse', () => {
    assert.match(destinationRefusal('example.com', PUBLIC_ONLY) ?? '', /not an IP address/);
    assert.throws(() => parseAllowed('10.0.0.0/33'));
    assert.throws(() => parseAllowed('mirror.example'));
  });
});

describe('checkedAddress', () => {
  const resolve = (answers: Record<string, string[]>) => (host: string) => {
    const found = answers[host];
    return found === undefined ? Promise.reject(new Error('ENOTFOUND')) : Promise.resolve(found);
  };

  it('refuses a name when any of its addresses is refused (a public answer beside a loopback one)', async () => {
    const names = resolve({ 'mixed.test': ['8.8.8.8', '127.0.0.1'], 'public.test': ['8.8.4.4', '1.1.1.1'] });
    assert.ok('refusal' in (await checkedAddress('mixed.test', PUBLIC_ONLY, names)));
    assert.deepEqual(await checkedAddress('public.test', PUBLIC_ONLY, names), { address: '8.8.4.4' });
  });

  it('checks literals (bracketed IPv6 as a URL spells it) without a lookup, and localhost by what it resolves to', async () => {
    const never = () => Promise.reject(new Error('looked up'));
    assert.match(JSON.stringify(await checkedAddress('[::ffff:7f00:1]', PUBLIC_ONLY, never)), /not public/);
    assert.deepEqual(await checkedAddress('[2606:4700:4700::1111]', PUBLIC_ONLY, never), {
      address: '2606:4700:4700::1111',
    });
    assert.ok('refusal' in (await checkedAddress('localhost', PUBLIC_ONLY)));
    assert.match(JSON.stringify(await checkedAddress('nowhere.test', PUBLIC_ONLY, resolve({}))), /does not resolve/);
  });
});

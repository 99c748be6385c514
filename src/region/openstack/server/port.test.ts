import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressPairs, portConverged } from './port.ts';

describe('portConverged', () => {
  const port = {
    security_groups: ['a', 'b'],
    allowed_address_pairs: [{ ip_address: '10.0.0.0/24', mac_address: 'fa:16:3e:00:00:01' }],
  };

  it('compares groups as sets, and a pair without a MAC matches the port’s filled-in one', () => {
    assert.equal(
      portConverged(port, { security_groups: ['b', 'a'], allowed_address_pairs: [{ ip_address: '10.0.0.0/24' }] }),
      true,
    );
  });

  it('a group, a pair or a pair’s MAC that differs needs an update', () => {
    const pairs = [{ ip_address: '10.0.0.0/24' }];
    assert.equal(portConverged(port, { security_groups: ['a'], allowed_address_pairs: pairs }), false);
    assert.equal(portConverged(port, { security_groups: ['a', 'b'], allowed_address_pairs: [] }), false);
    const otherMac = [{ ip_address: '10.0.0.0/24', mac_address: 'fa:16:3e:00:00:02' }];
    assert.equal(portConverged(port, { security_groups: ['a', 'b'], allowed_address_pairs: otherMac }), false);
  });

  it('addressPairs sends a MAC only when the spec names one', () => {
    assert.deepEqual(
      addressPairs({ allowedAddressPairs: [{ cidr: '10.0.0.0/24' }, { cidr: '10.1.0.0/24', macAddress: 'm' }] }),
      [{ ip_address: '10.0.0.0/24' }, { ip_address: '10.1.0.0/24', mac_address: 'm' }],
    );
  });
});

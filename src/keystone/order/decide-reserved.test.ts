import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { BUILTIN_SERVICE_ACCOUNTS, decideReservedName, keystoneNameKey } from './decide-reserved.ts';

const plane = { adminUserName: 'admin', adminDomainName: 'Default' };

describe('User provisioning: reserved names folded as Keystone compares them', () => {
  it('ServiceAccountCollision for the admin user and every built-in service account, however spelt', () => {
    for (const userName of [
      'admin',
      'ADMIN',
      'admín',
      ' Admin ',
      'Nova',
      'NEUTRON-nova',
      'Hypervisor-Operator',
      'glánce',
    ]) {
      const decision = decideReservedName({ userName, ...plane });
      assert.equal(decision.row, 'ReservedName', userName);
      assert.ok('reason' in decision);
      assert.equal(decision.reason, 'ServiceAccountCollision');
    }
    assert.deepEqual(decideReservedName({ userName: 'ADMIN', ...plane }), {
      row: 'ReservedName',
      reason: 'ServiceAccountCollision',
      message:
        'user name "ADMIN" is Keystone user "admin", which the ControlPlane creates in domain "Default" itself; the order never provisions it',
    });
  });

  it('the admin user is the ControlPlane\u2019s, not always "admin"', () => {
    assert.equal(
      decideReservedName({ userName: 'admin', adminUserName: 'root', adminDomainName: 'Default' }).row,
      'FreeName',
    );
    assert.equal(
      decideReservedName({ userName: 'ROOT', adminUserName: 'root', adminDomainName: 'Default' }).row,
      'ReservedName',
    );
  });

  it('other names are free', () => {
    for (const userName of ['workflow', 'admin2', 'nova-compute', 'neutron_nova', 'administrator']) {
      assert.equal(decideReservedName({ userName, ...plane }).row, 'FreeName', userName);
    }
  });

  it('folding ignores case and accents, and is idempotent', () => {
    const accents = fc.constantFrom('', '\u0301', '\u0300', '\u0308');
    fc.assert(
      fc.property(
        fc.constantFrom(...BUILTIN_SERVICE_ACCOUNTS),
        fc.array(fc.boolean()),
        accents,
        (name, upper, mark) => {
          const spelt = Array.from(name)
            .map((ch, i) => (upper[i] === true ? ch.toUpperCase() : ch) + (i === 0 ? mark : ''))
            .join('');
          assert.equal(keystoneNameKey(spelt), name);
          assert.equal(keystoneNameKey(keystoneNameKey(spelt)), keystoneNameKey(spelt));
        },
      ),
    );
  });
});

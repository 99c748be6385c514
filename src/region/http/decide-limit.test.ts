import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decideLimit,
  DEFAULT_ORGANIZATION_LIMITS,
  limitOf,
  NO_ORGANIZATION_LIMITS,
  reachedDetail,
  type OrganizationLimits,
} from './decide-limit.ts';

const limits: OrganizationLimits = {
  defaults: { servers: 50, networks: 10 },
  organizations: { big: { servers: 500 }, frozen: { networks: 0 }, free: { servers: Infinity } },
};

describe('decideLimit', () => {
  it('fits while one more stays within the limit', () => {
    assert.deepEqual(decideLimit(50, 'servers', 0), { row: 'fits', kind: 'servers', usage: 0, limit: 50 });
    assert.deepEqual(decideLimit(50, 'servers', 49), { row: 'fits', kind: 'servers', usage: 49, limit: 50 });
  });

  it('is reached at the limit, and past it (a limit lowered under what an organization holds)', () => {
    assert.deepEqual(decideLimit(50, 'servers', 50), { row: 'reached', kind: 'servers', usage: 50, limit: 50 });
    assert.equal(decideLimit(10, 'servers', 12).row, 'reached');
  });

  it('a limit of 0 refuses the first', () => {
    assert.equal(decideLimit(0, 'networks', 0).row, 'reached');
  });

  it('no limit is unlimited whatever the usage', () => {
    assert.deepEqual(decideLimit(Infinity, 'volumes', 1e9), { row: 'unlimited', kind: 'volumes' });
  });
});

describe('limitOf', () => {
  it("an organization's override wins over the default, kind by kind", () => {
    assert.equal(limitOf(limits, 'big', 'servers'), 500);
    assert.equal(limitOf(limits, 'big', 'networks'), 10, 'a kind the override leaves out takes the default');
    assert.equal(limitOf(limits, 'frozen', 'networks'), 0);
    assert.equal(limitOf(limits, 'free', 'servers'), Infinity);
  });

  it('other organizations take the default; a kind without one is not limited', () => {
    assert.equal(limitOf(limits, 'small', 'servers'), 50);
    assert.equal(limitOf(limits, 'small', 'volumes'), Infinity);
    assert.equal(limitOf(NO_ORGANIZATION_LIMITS, 'small', 'identities'), Infinity);
  });

  it('an organization named like an Object.prototype member is an organization like any other', () => {
    assert.equal(limitOf(limits, 'constructor', 'servers'), 50);
    assert.equal(limitOf(limits, '__proto__', 'networks'), 10);
  });

  it('the defaults limit every kind', () => {
    for (const kind of ['identities', 'networks', 'servers', 'volumes', 'load-balancers', 'security-groups'] as const) {
      assert.ok(Number.isFinite(limitOf(DEFAULT_ORGANIZATION_LIMITS, 'any', kind)), kind);
    }
  });
});

describe('reachedDetail', () => {
  it('names the kind, the usage and the limit', () => {
    assert.equal(
      reachedDetail({ kind: 'servers', usage: 50, limit: 50 }),
      'organization limit for servers reached: 50 of 50',
    );
    assert.equal(
      reachedDetail({ kind: 'load-balancers', usage: 3, limit: 2 }),
      'organization limit for load balancers reached: 3 of 2',
    );
  });
});

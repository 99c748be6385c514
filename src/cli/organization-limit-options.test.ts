import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_ORGANIZATION_LIMITS } from '../region/http/decide-limit.ts';
import { organizationLimitsOf } from './organization-limit-options.ts';
import { serveCommand } from './serve.ts';
import { upCommand } from './up.ts';
import { flagsOf, invalidArgument } from './testing/flags.ts';

describe('--organization-limit', () => {
  for (const command of [serveCommand, upCommand]) {
    const parsed = (...argv: string[]) => organizationLimitsOf(flagsOf(command, ...argv));
    const name = command().name();

    it(`${name}: the documented defaults without the flag`, () => {
      assert.deepEqual(parsed(), DEFAULT_ORGANIZATION_LIMITS);
    });

    it(`${name}: KIND=N sets every organization's default, ORG:KIND=N one organization's; repeatable`, () => {
      const limits = parsed(
        '--organization-limit',
        'servers=50',
        '--organization-limit',
        'org-a:servers=500',
        '--organization-limit',
        'org-a:load-balancers=0',
        '--organization-limit',
        'org-b:networks=unlimited',
      );
      assert.deepEqual(limits.defaults, { ...DEFAULT_ORGANIZATION_LIMITS.defaults, servers: 50 });
      assert.deepEqual(limits.organizations, {
        'org-a': { servers: 500, 'load-balancers': 0 },
        'org-b': { networks: Infinity },
      });
    });

    it(`${name}: all=unlimited lifts every limit`, () => {
      const { defaults } = parsed('--organization-limit', 'all=unlimited');
      assert.ok(Object.values(defaults).every((n) => n === Infinity));
      assert.equal(Object.keys(defaults).length, 6);
    });

    it(`${name}: refuses an unknown kind, a negative or non-integer count, an organization that is no label value`, () => {
      for (const bad of [
        'servers',
        'server=5',
        'servers=-1',
        'servers=1.5',
        'servers=lots',
        ':servers=1',
        'a:b:servers=1',
      ]) {
        assert.throws(() => parsed('--organization-limit', bad), invalidArgument, bad);
      }
    });
  }
});

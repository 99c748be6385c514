import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS } from '../region/http/rate-limit.ts';
import { rateLimitsOf } from './rate-limit-options.ts';
import { serveCommand } from './serve.ts';
import { upCommand } from './up.ts';
import { flagsOf, invalidArgument } from './testing/flags.ts';

describe('rate-limit flags', () => {
  for (const command of [serveCommand, upCommand]) {
    const parsed = (...argv: string[]) => rateLimitsOf(flagsOf(command, ...argv));

    it(`${command().name()}: defaults, a rate with ten seconds of burst, 0 for off, and refuses the rest`, () => {
      assert.deepEqual(parsed(), DEFAULT_RATE_LIMITS);
      assert.deepEqual(parsed('--rate-limit-per-token', '5', '--rate-limit-per-address', '0'), {
        perToken: { perSecond: 5, burst: 50 },
        perAddress: undefined,
      });
      for (const bad of ['-1', 'fast', '']) {
        assert.throws(() => parsed('--rate-limit-per-token', bad), invalidArgument, bad);
      }
    });
  }
});

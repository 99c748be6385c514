/** The REST API's rate-limit flags, as `serve` and `up` both take them (ADR 0024). */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_RATE_LIMITS, rateLimitOf, type RateLimits } from '../region/http/rate-limit.ts';

export interface RateLimitFlags {
  rateLimitPerToken?: number;
  rateLimitPerAddress?: number;
}

function requestsPerSecond(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new InvalidArgumentError(`expected requests per second (0 turns the limit off), not ${value}`);
  }
  return n;
}

export function withRateLimitOptions(command: Command): Command {
  const { perToken, perAddress } = DEFAULT_RATE_LIMITS;
  return command
    .option(
      '--rate-limit-per-token <n>',
      `requests per second one bearer token may make, ten seconds of them at once (default ${String(perToken.perSecond)}; 0: off)`,
      requestsPerSecond,
    )
    .option(
      '--rate-limit-per-address <n>',
      `requests per second one client address may make, likewise (default ${String(perAddress.perSecond)}; 0: off, e.g. behind a proxy)`,
      requestsPerSecond,
    );
}

export function rateLimitsOf(flags: RateLimitFlags): RateLimits {
  return {
    perToken:
      flags.rateLimitPerToken === undefined ? DEFAULT_RATE_LIMITS.perToken : rateLimitOf(flags.rateLimitPerToken),
    perAddress:
      flags.rateLimitPerAddress === undefined ? DEFAULT_RATE_LIMITS.perAddress : rateLimitOf(flags.rateLimitPerAddress),
  };
}

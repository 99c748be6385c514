/**
 * Token buckets per bearer token and per client address (ADR 0024): each request takes a token from both; a bucket
 * refills at `perSecond` up to `burst`, so a client may burst, then proceeds at the rate. An empty bucket answers
 * 429 with Retry-After, before the token is even verified, so a flood costs no signature checks.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../util/clock.ts';

interface RateLimit {
  /** Sustained requests per second. */
  readonly perSecond: number;
  /** How many requests a full bucket allows at once. */
  readonly burst: number;
}

/** Either limit may be off (undefined): behind a proxy every client shares its address. */
export interface RateLimits {
  readonly perToken?: RateLimit | undefined;
  readonly perAddress?: RateLimit | undefined;
}

/**
 * Generous: ten seconds of burst, and rates no person and no well-behaved automation reaches (`npm start`'s journeys,
 * the test suites and the bench's sequential calls stay far below); a flood or a runaway loop does not.
 */
export const DEFAULT_RATE_LIMITS = {
  perToken: { perSecond: 100, burst: 1000 },
  perAddress: { perSecond: 300, burst: 3000 },
} as const satisfies RateLimits;

/** A limit of `perSecond` requests a second, with ten seconds of them as its burst; 0 is no limit. */
export const rateLimitOf = (perSecond: number): RateLimit | undefined =>
  perSecond <= 0 ? undefined : { perSecond, burst: perSecond * 10 };

interface Bucket {
  tokens: number;
  at: number;
}

/** Beyond this many keys, full buckets (idle clients) are forgotten first, then the oldest. */
const MAX_KEYS = 10_000;

export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly clock: Clock,
  ) {}

  /** Takes a token for `key`: 0 when the request may proceed, else the milliseconds until one will be there. */
  take(key: string): number {
    const now = this.clock.now();
    const bucket = this.#refilled(this.#buckets.get(key), now);
    this.#buckets.delete(key); // re-inserted last: the map's order is least recently seen first
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.#remember(key, bucket, now);
      return 0;
    }
    this.#remember(key, bucket, now);
    return Math.ceil(((1 - bucket.tokens) / this.limit.perSecond) * 1000);
  }

  #refilled(bucket: Bucket | undefined, now: number): Bucket {
    if (bucket === undefined) return { tokens: this.limit.burst, at: now };
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    return { tokens: Math.min(this.limit.burst, bucket.tokens + elapsed * this.limit.perSecond), at: now };
  }

  #remember(key: string, bucket: Bucket, now: number): void {
    this.#buckets.set(key, bucket);
    if (this.#buckets.size <= MAX_KEYS) return;
    for (const [other, b] of this.#buckets) {
      if (this.#refilled(b, now).tokens >= this.limit.burst) this.#buckets.delete(other);
    }
    for (const other of this.#buckets.keys()) {
      if (this.#buckets.size <= MAX_KEYS) break;
      this.#buckets.delete(other);
    }
  }
}

/** The bucket key of a bearer token: a digest, so the limiter never holds a token. */
const tokenKey = (authorization: string): string => createHash('sha256').update(authorization).digest('base64url');

/** Both limits of a request: the milliseconds until it may be retried, or 0 to proceed. */
export function rateLimiter(limits: RateLimits, clock: Clock): (address: string, authorization?: string) => number {
  const byAddress = limits.perAddress === undefined ? undefined : new TokenBuckets(limits.perAddress, clock);
  const byToken = limits.perToken === undefined ? undefined : new TokenBuckets(limits.perToken, clock);
  return (address, authorization) => {
    const wait = byAddress?.take(address) ?? 0;
    if (wait > 0 || authorization === undefined || byToken === undefined) return wait;
    return byToken.take(tokenKey(authorization));
  };
}

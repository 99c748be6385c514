/**
 * Token buckets per client address and per caller (ADR 0024, docs/adr/0036-trust-boundaries.md): a request takes a
 * token from its address's bucket before anything else, then, once its token is verified, from its principal's
 * (subject and token id), so two spellings of one `Authorization` header are one caller. A refused token takes from
 * a bucket of its own credential. A bucket refills at `perSecond` up to `burst`, so a client may burst, then
 * proceeds at the rate; an empty one answers 429 with Retry-After.
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

/** A bucket key that holds nothing secret: a digest of what identifies the caller. */
const bucketKey = (...parts: readonly string[]): string =>
  createHash('sha256').update(parts.join('\n')).digest('base64url');

/** The limits of a request: each answers the milliseconds until it may be retried, or 0 to proceed. */
interface RateLimiter {
  /** Before anything else: the client's address. */
  address(address: string): number;
  /** After authentication: the verified principal (subject and token id), however its header was spelt. */
  principal(subject: string, tokenID: string): number;
  /** A refused token (forged, expired, malformed), by its credential: refusals are limited like any other caller. */
  refused(credential: string): number;
}

export function rateLimiter(limits: RateLimits, clock: Clock): RateLimiter {
  const byAddress = limits.perAddress === undefined ? undefined : new TokenBuckets(limits.perAddress, clock);
  const byToken = limits.perToken === undefined ? undefined : new TokenBuckets(limits.perToken, clock);
  return {
    address: (address) => byAddress?.take(address) ?? 0,
    principal: (subject, tokenID) => byToken?.take(bucketKey('principal', subject, tokenID)) ?? 0,
    refused: (credential) => byToken?.take(bucketKey('refused', credential)) ?? 0,
  };
}

/**
 * Verified bearer tokens remembered for a short while, so a client that sends the same token with every request
 * (every client does) costs one signature check per half minute rather than one per request: an ECDSA verify was
 * about a fifth of a millisecond of each create's CPU. Keyed by a digest of the exact token, never the token; an
 * entry serves only until the token's own expiry and at most `ttlMs`, so a key withdrawn from the JWKS stops being
 * honoured within that time (docs/adr/0053-cpu-per-server.md).
 */
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { Clock } from '../../util/clock.ts';

interface VerifiedTokenOptions {
  readonly clock: Clock;
  /** How long a verified answer is reused at most (it never outlives the token's `exp`). */
  readonly ttlMs: number;
  /** How many tokens are remembered; the least recently used goes first. */
  readonly max: number;
}

interface Remembered {
  readonly payload: JWTPayload;
  readonly until: number;
}

/** `verify`, remembering what it accepted; a refusal is never remembered (each is logged and counted anew). */
export function rememberingVerified(
  verify: (token: string) => Promise<JWTPayload>,
  options: VerifiedTokenOptions,
): (token: string) => Promise<JWTPayload> {
  const remembered = new Map<string, Remembered>();
  return async (token) => {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = options.clock.now();
    const hit = remembered.get(key);
    remembered.delete(key);
    if (hit !== undefined && now < hit.until) {
      remembered.set(key, hit); // most recently used last
      return hit.payload;
    }
    const payload = await verify(token);
    // jose refuses a token once its `exp` second has begun, so it is good until then and no later.
    const expires = typeof payload.exp === 'number' ? payload.exp * 1000 : now;
    const until = Math.min(expires, now + options.ttlMs);
    if (until > now) {
      remembered.set(key, { payload, until });
      if (remembered.size > options.max) remembered.delete(remembered.keys().next().value as string);
    }
    return payload;
  };
}

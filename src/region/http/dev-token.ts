/**
 * A local signing key and development tokens, for `openregion up` and the tests: an ES256 key pair whose public
 * half the API verifies with, and tokens carrying the scope claims `auth.ts` reads. Production verifies tokens an
 * identity provider issues (a JWKS URL); nothing here is used there.
 */
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { Clock } from '../../util/clock.ts';

export const DEV_ALGORITHM = 'ES256';
/** What development tokens say they are from and for, unless told otherwise; `up` requires both. */
export const DEV_ISSUER = 'openregion-dev';
export const DEV_AUDIENCE = 'openregion';

export interface DevKeyPair {
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

export async function generateDevKeyPair(): Promise<DevKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(DEV_ALGORITHM, { extractable: true });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

interface DevTokenClaims {
  readonly subject: string;
  readonly organizationIDs: readonly string[];
  readonly projectIDs?: readonly string[];
  /** Display names of the projects, by id (the `projectNames` claim): the console shows them; the API ignores it. */
  readonly projectNames?: Readonly<Record<string, string>>;
  /** The `operator` claim (the console's operator views). */
  readonly operator?: boolean;
  /** Seconds; default 30 days. */
  readonly lifetimeSeconds?: number;
  /** Default openregion-dev. */
  readonly issuer?: string;
  /** Default openregion. */
  readonly audience?: string;
}

export async function signDevToken(keys: DevKeyPair, claims: DevTokenClaims, clock: Clock): Promise<string> {
  const key = await importJWK(keys.privateJwk, DEV_ALGORITHM);
  const now = Math.floor(clock.now() / 1000);
  const jwt = new SignJWT({
    organizationIds: [...claims.organizationIDs],
    ...(claims.projectIDs === undefined ? {} : { projectIds: [...claims.projectIDs] }),
    ...(claims.projectNames === undefined ? {} : { projectNames: { ...claims.projectNames } }),
    ...(claims.operator === true ? { operator: true } : {}),
  })
    .setProtectedHeader({ alg: DEV_ALGORITHM })
    .setSubject(claims.subject)
    .setIssuer(claims.issuer ?? DEV_ISSUER)
    .setAudience(claims.audience ?? DEV_AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.lifetimeSeconds ?? 30 * 24 * 3600));
  return jwt.sign(key);
}

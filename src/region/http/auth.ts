/**
 * Bearer-token authentication (jose): a JWT verified against a JWKS URL or one public key, and the tenancy it grants.
 *
 * Claims (the scope a token carries):
 * - `sub`: who is calling (recorded as the creator of what it makes);
 * - `organizationIds`: the organizations it may act in (required, non-empty);
 * - `projectIds`: when present, only these projects within those organizations; absent means every project.
 *
 * A token's scope decides visibility: what it may not see is answered exactly as what does not exist (404).
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, errors, importJWK, importSPKI, jwtVerify, type JWK, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import type { Clock } from '../../util/clock.ts';
import { problems } from './problem.ts';
import { defined } from '../../util/defined.ts';
import { rememberingVerified } from './verified-tokens.ts';

export interface Principal {
  readonly subject: string;
  readonly organizationIDs: readonly string[];
  /** Undefined: every project of the organizations. */
  readonly projectIDs?: readonly string[];
  /** The `operator: true` claim: the console's operator views (controllers, KeystoneUser orders). */
  readonly operator?: true;
  /**
   * Which token this is, for the per-caller rate limit: its `jti`, else a digest of its verified claims (so every
   * encoding of one token's bytes is one token). Never the token itself.
   */
  readonly tokenID?: string;
}

/** Whether the principal may see (and act on) what belongs to `organizationID`/`projectID`. */
export function canAccess(principal: Principal, organizationID: string, projectID?: string): boolean {
  if (!principal.organizationIDs.includes(organizationID)) return false;
  if (projectID === undefined || principal.projectIDs === undefined) return true;
  return principal.projectIDs.includes(projectID);
}

export type AuthKey =
  | { readonly jwksUrl: string }
  | { readonly publicKeyPem: string; readonly algorithm: string }
  | { readonly publicJwk: JWK; readonly algorithm: string };

interface AuthConfig {
  readonly key: AuthKey;
  readonly issuer?: string;
  readonly audience?: string;
  readonly clock: Clock;
  /** Where a refusal's reason goes (operators only: the caller reads just "a valid bearer token is required"). */
  readonly log?: Logger | undefined;
}

/** Why a token was refused, as an operator reads it in the log; never the token itself. */
type RefusalReason =
  | 'no bearer token'
  | 'malformed'
  | 'expired'
  | 'no expiry'
  | 'not yet valid'
  | 'wrong issuer'
  | 'wrong audience'
  | 'invalid claims'
  | 'unknown key'
  | 'bad signature'
  | 'algorithm not allowed'
  | 'key set unavailable'
  | 'no organization scope';

interface Refusal {
  readonly reason: RefusalReason;
  /** The claim that failed validation, when one did. */
  readonly claim?: string;
}

/** The reason a verification error stands for (jose's error classes, by their stable codes). */
function refusalOf(error: unknown): Refusal {
  if (error instanceof errors.JWTExpired) return { reason: 'expired', claim: 'exp' };
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'exp') return { reason: 'no expiry', claim: 'exp' };
    const byClaim: Record<string, RefusalReason> = { iss: 'wrong issuer', aud: 'wrong audience', nbf: 'not yet valid' };
    return { reason: byClaim[error.claim] ?? 'invalid claims', claim: error.claim };
  }
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return { reason: 'unknown key' };
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return { reason: 'bad signature' };
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return { reason: 'algorithm not allowed' };
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return { reason: 'key set unavailable' };
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return { reason: 'malformed' };
  // Anything else (a JWKS URL that does not answer, a key that does not import) is ours, not the caller's.
  return { reason: 'key set unavailable' };
}

export type Authenticator = (authorization: string | undefined) => Promise<Principal>;

/** A verified token is taken on trust again for at most this long (docs/adr/0053-cpu-per-server.md). */
const VERIFIED_TTL_MS = 30_000;
const VERIFIED_MAX = 1_024;

export function createAuthenticator(config: AuthConfig): Authenticator {
  const keyOf = resolveKey(config.key);
  const refuse = (refusal: Refusal, cause?: unknown) => {
    // A request without a token is routine (probes, a forgotten header): info; a presented token refused is a warning.
    const level = refusal.reason === 'no bearer token' ? 'info' : 'warn';
    config.log?.[level]({ ...refusal, ...(cause instanceof Error ? { error: cause.message } : {}) }, 'token refused');
    return Object.assign(problems.unauthorized(), { cause });
  };
  const verify = rememberingVerified(
    async (token) => {
      const key = await keyOf();
      const options = {
        currentDate: new Date(config.clock.now()),
        // A token without an expiry would be valid for ever.
        requiredClaims: ['exp'],
        ...defined({ issuer: config.issuer, audience: config.audience }),
      };
      return typeof key === 'function'
        ? (await jwtVerify(token, key, options)).payload
        : (await jwtVerify(token, key, options)).payload;
    },
    { clock: config.clock, ttlMs: VERIFIED_TTL_MS, max: VERIFIED_MAX },
  );
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (token === undefined) throw refuse({ reason: 'no bearer token' });
    let payload: JWTPayload;
    try {
      payload = await verify(token);
    } catch (error) {
      throw refuse(refusalOf(error), error);
    }
    const principal = principalOf(payload);
    if (principal === undefined) throw refuse({ reason: 'no organization scope', claim: 'organizationIds' });
    return { ...principal, tokenID: tokenIDOf(payload) };
  };
}

/** The scope claims of a verified payload; undefined when they are missing or malformed. */
export function principalOf(payload: JWTPayload): Principal | undefined {
  const organizations = stringList(payload['organizationIds']);
  if (organizations === undefined || organizations.length === 0) return undefined;
  const projects = payload['projectIds'] === undefined ? undefined : stringList(payload['projectIds']);
  if (payload['projectIds'] !== undefined && projects === undefined) return undefined;
  return {
    subject: typeof payload.sub === 'string' ? payload.sub : 'unknown',
    organizationIDs: organizations,
    ...defined({ projectIDs: projects }),
    ...(payload['operator'] === true ? { operator: true as const } : {}),
  };
}

function stringList(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items = value.filter((v): v is string => typeof v === 'string' && v !== '');
  return items.length === value.length ? items : undefined;
}

/**
 * The token of an `Authorization: Bearer` header, parsed once, as RFC 6750 §2.1 has it: the scheme in any case
 * (RFC 7235 §2.1), one or more spaces, then one b64token and nothing else: no tab, no second token, no junk after
 * it. Node has already trimmed the value's surrounding whitespace.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header ?? '');
  return match?.[1];
}

const tokenIDOf = (payload: JWTPayload): string =>
  typeof payload.jti === 'string' && payload.jti !== ''
    ? `jti:${payload.jti}`
    : `claims:${createHash('sha256').update(JSON.stringify(payload)).digest('base64url')}`;

type VerifyKey = Awaited<ReturnType<typeof importSPKI>> | Uint8Array | ReturnType<typeof createRemoteJWKSet>;

function resolveKey(key: AuthKey): () => Promise<VerifyKey> {
  if ('jwksUrl' in key) {
    const set = createRemoteJWKSet(new URL(key.jwksUrl));
    return () => Promise.resolve(set);
  }
  let imported: Promise<VerifyKey> | undefined;
  return () => {
    imported ??=
      'publicKeyPem' in key ? importSPKI(key.publicKeyPem, key.algorithm) : importJWK(key.publicJwk, key.algorithm);
    return imported;
  };
}

/**
 * Keystone v3 authentication: the credential methods and scopes openregion uses, the request body they make, and
 * the token they yield. Pure: no I/O here (session.ts sends the request).
 */
import { ConfigError } from './errors.ts';

export type DomainRef = { readonly id: string } | { readonly name: string };
export type UserRef = { readonly id: string } | { readonly name: string; readonly domain: DomainRef };
export type ProjectRef = { readonly id: string } | { readonly name: string; readonly domain: DomainRef };

export type AuthMethod =
  | { readonly type: 'password'; readonly user: UserRef; readonly password: string }
  | { readonly type: 'application_credential'; readonly id: string; readonly secret: string }
  | { readonly type: 'application_credential'; readonly name: string; readonly user: UserRef; readonly secret: string }
  | { readonly type: 'token'; readonly token: string };

export type ScopeKind = 'project' | 'domain' | 'system' | 'unscoped';
export type Scope =
  | { readonly kind: 'project'; readonly project: ProjectRef }
  | { readonly kind: 'domain'; readonly domain: DomainRef }
  | { readonly kind: 'system' }
  | { readonly kind: 'unscoped' };
export type ScopeOf<K extends ScopeKind> = Extract<Scope, { kind: K }>;

export interface CatalogEndpoint {
  readonly id?: string;
  readonly interface: string;
  readonly region?: string | null;
  readonly region_id?: string | null;
  readonly url: string;
}
export interface CatalogEntry {
  readonly id?: string;
  readonly type: string;
  readonly name?: string;
  readonly endpoints: readonly CatalogEndpoint[];
}

interface NamedRef {
  readonly id: string;
  readonly name: string;
}
interface ScopedProject extends NamedRef {
  readonly domain: NamedRef;
}

/** A Keystone token and what it says about its holder. `value` is a secret: never log it. */
export interface Token {
  readonly value: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly user: { readonly id: string; readonly name: string; readonly domain: NamedRef };
  readonly project: ScopedProject | undefined;
  readonly domain: NamedRef | undefined;
  readonly system: boolean;
  readonly roles: readonly NamedRef[];
  readonly catalog: readonly CatalogEntry[];
}

/** The scope a token will have: an application credential's is always its project, whatever is requested. */
export function effectiveScopeKind(method: AuthMethod, scope: Scope): ScopeKind {
  return method.type === 'application_credential' ? 'project' : scope.kind;
}

/** The body of `POST /v3/auth/tokens` for a method and scope. */
export function authRequestBody(method: AuthMethod, scope: Scope): unknown {
  if (method.type === 'application_credential' && scope.kind !== 'unscoped') {
    throw new ConfigError('scope', 'an application credential carries its own project scope; request no other scope');
  }
  const identity = identityOf(method);
  const scoped = scopeOf(scope);
  return { auth: scoped === undefined ? { identity } : { identity, scope: scoped } };
}

function identityOf(method: AuthMethod): unknown {
  switch (method.type) {
    case 'password':
      return { methods: ['password'], password: { user: { ...userOf(method.user), password: method.password } } };
    case 'application_credential':
      return {
        methods: ['application_credential'],
        application_credential:
          'id' in method
            ? { id: method.id, secret: method.secret }
            : { name: method.name, secret: method.secret, user: userOf(method.user) },
      };
    case 'token':
      return { methods: ['token'], token: { id: method.token } };
  }
}

function userOf(user: UserRef): Record<string, unknown> {
  return 'id' in user ? { id: user.id } : { name: user.name, domain: user.domain };
}

function scopeOf(scope: Scope): unknown {
  switch (scope.kind) {
    case 'project':
      return { project: 'id' in scope.project ? { id: scope.project.id } : scope.project };
    case 'domain':
      return { domain: scope.domain };
    case 'system':
      return { system: { all: true } };
    case 'unscoped':
      return undefined;
  }
}

interface TokenBody {
  token?: {
    issued_at?: string;
    expires_at?: string;
    user?: { id: string; name: string; domain: NamedRef };
    project?: ScopedProject;
    domain?: NamedRef;
    system?: unknown;
    roles?: NamedRef[];
    catalog?: CatalogEntry[];
  };
}

/** Builds a Token from Keystone's answer; `subjectToken` is the X-Subject-Token header. */
export function parseTokenResponse(subjectToken: string | undefined, body: unknown, now: number): Token {
  const token = (body as TokenBody | null)?.token;
  if (!subjectToken || !token?.user || !token.expires_at) {
    throw new Error('Keystone answered the token request without a token, an expiry or a user');
  }
  return {
    value: subjectToken,
    issuedAt: token.issued_at ? Date.parse(token.issued_at) : now,
    expiresAt: Date.parse(token.expires_at),
    user: token.user,
    project: token.project,
    domain: token.domain,
    system: token.system !== undefined,
    roles: token.roles ?? [],
    catalog: token.catalog ?? [],
  };
}

/**
 * Whether a cached token should be replaced before use: renew ahead of expiry, by five minutes or, for short-lived
 * tokens, by half their lifetime, so a request never leaves with a token that dies in flight.
 */
export function needsRenewal(token: Pick<Token, 'issuedAt' | 'expiresAt'>, now: number): boolean {
  const lifetime = token.expiresAt - token.issuedAt;
  const margin = Math.min(5 * 60_000, Math.max(0, lifetime) / 2);
  return now >= token.expiresAt - margin;
}

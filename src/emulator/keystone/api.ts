/** What Keystone's route modules share: the store, time, ids, authenticated routing and Keystone's refusals. */
import { hasRole, isAdmin, type AuthContext } from '../auth.ts';
import type { ServiceContext } from '../context.ts';
import { keystoneFault } from '../faults.ts';
import type { EmuFault, EmuRequest, EmuResponse, Method } from '../http.ts';
import type { KeystoneStore } from './store.ts';
import { unauthorized } from './tokens.ts';

export const PREFIX = '/identity/v3';

type AuthedHandler = (req: EmuRequest, auth: AuthContext) => EmuResponse | Promise<EmuResponse>;

export interface KeystoneApi {
  readonly store: KeystoneStore;
  readonly ctx: ServiceContext;
  /** Registers an authenticated route below `/identity/v3`. */
  readonly route: (method: Method, path: string, handler: AuthedHandler) => void;
  /** Revokes the tokens of a user (a password change, a disabled user, a removed assignment). */
  readonly revokeUser: (userID: string) => void;
}

export const forbidden = (action: string): EmuFault =>
  keystoneFault(403, 'Forbidden', `You are not authorized to perform the requested action: identity:${action}.`);

export const notFound = (kind: string, id: string): EmuFault =>
  keystoneFault(404, 'Not Found', `Could not find ${kind}: ${id}.`);

export const conflict = (kind: string, name: string, where: string): EmuFault =>
  keystoneFault(
    409,
    'Conflict',
    `Conflict occurred attempting to store ${kind} - it is not permitted to have two ${kind}s with the same name in the same ${where} : ${name}.`,
  );

export const badRequest = (message: string): EmuFault => keystoneFault(400, 'Bad Request', message);

/** Zed's defaults with enforce_scope off: the admin role anywhere is cloud admin (the legacy `admin_required`). */
export function requireAdmin(auth: AuthContext, action: string): void {
  if (!isAdmin(auth)) throw forbidden(action);
}

/**
 * The SCS domain manager of the domain (deploy/policies/keystone.yaml `is_domain_manager` and
 * `token.domain.id:...`): role manager on a token scoped to that very domain.
 */
export const managesDomain = (auth: AuthContext, domainID: string | undefined): boolean =>
  domainID !== undefined && hasRole(auth, 'manager') && auth.domainId === domainID;

/** The roles a domain manager may grant and revoke (keystone.yaml `is_domain_managed_role`). */
export const DOMAIN_MANAGED_ROLES: readonly string[] = [
  'member',
  'reader',
  '_member_',
  'load-balancer_member',
  'load-balancer_observer',
];

/** A reader of the domain: admin, a system reader, or a reader on a token scoped to that domain. */
export const readsDomain = (auth: AuthContext, domainID: string): boolean =>
  isAdmin(auth) || (hasRole(auth, 'reader') && (auth.system || auth.domainId === domainID));

export const tokenOf = (req: EmuRequest, header = 'x-auth-token'): string => {
  const value = req.headers[header];
  return typeof value === 'string' ? value : '';
};

export function authenticateWith(store: KeystoneStore, now: () => number) {
  return (req: EmuRequest, fault: (message: string) => EmuFault = unauthorized): AuthContext => {
    const auth = store.authContext(tokenOf(req), now());
    if (!auth) throw fault('The request you have made requires authentication.');
    return auth;
  };
}

/** Keystone's list envelope. */
export const listBody = (key: string, items: unknown[], self: string): Record<string, unknown> => ({
  [key]: items,
  links: { next: null, self, previous: null },
});

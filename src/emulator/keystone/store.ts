/**
 * Keystone's state: domains, projects, users, roles with implied roles, role assignments, application credentials
 * and issued tokens. Names compare as the real cloud's MariaDB collation does: case-insensitively.
 */
import type { AuthContext } from '../auth.ts';

export interface KDomain {
  readonly id: string;
  name: string;
  description: string;
  enabled: boolean;
}

export interface KProject {
  readonly id: string;
  name: string;
  readonly domainId: string;
  description: string;
  enabled: boolean;
  tags: string[];
}

export interface KUser {
  readonly id: string;
  name: string;
  readonly domainId: string;
  enabled: boolean;
  password: string | undefined;
  description: string | undefined;
  defaultProjectId: string | undefined;
  options: Record<string, unknown>;
}

export interface KRole {
  readonly id: string;
  name: string;
  readonly domainId: string | null;
  description: string | null;
}

export type Target =
  | { readonly kind: 'project'; readonly id: string }
  | { readonly kind: 'domain'; readonly id: string }
  | { readonly kind: 'system' };

export interface KAssignment {
  readonly userId: string;
  readonly roleId: string;
  readonly target: Target;
  /** OS-INHERIT: a domain grant that applies to every project of the domain, not to the domain itself. */
  readonly inherited?: boolean;
}

export interface KAppCred {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly userId: string;
  readonly projectId: string;
  readonly roleIds: readonly string[];
  readonly secret: string;
  readonly expiresAt: number | null;
  readonly unrestricted: boolean;
}

export type TokenScope =
  | { readonly kind: 'project'; readonly projectId: string }
  | { readonly kind: 'domain'; readonly domainId: string }
  | { readonly kind: 'system' }
  | { readonly kind: 'unscoped' };

export interface KToken {
  readonly value: string;
  readonly userId: string;
  readonly methods: readonly string[];
  readonly scope: TokenScope;
  readonly roleIds: readonly string[];
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly appCredId: string | undefined;
  readonly auditId: string;
}

/** MariaDB's utf8 collation: names compare case-insensitively (a simplification of its accent folding). */
export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const sameTarget = (a: Target, b: Target): boolean =>
  a.kind === b.kind && (a.kind === 'system' || (b.kind !== 'system' && a.id === b.id));

/** The same grant: user, role, target and inheritance. */
export const sameAssignment = (a: KAssignment, b: KAssignment): boolean =>
  a.userId === b.userId &&
  a.roleId === b.roleId &&
  sameTarget(a.target, b.target) &&
  (a.inherited === true) === (b.inherited === true);

/** What a persistent emulator keeps of Keystone: everything, tokens included, so a token outlives a restart. */
export const KEYSTONE_RECORDS = [
  'domains',
  'projects',
  'users',
  'roles',
  'implied',
  'assignments',
  'appCreds',
  'tokens',
] as const satisfies readonly (keyof KeystoneStore)[];

export class KeystoneStore {
  readonly domains = new Map<string, KDomain>();
  readonly projects = new Map<string, KProject>();
  readonly users = new Map<string, KUser>();
  readonly roles = new Map<string, KRole>();
  /** prior role id → the role ids it implies directly. */
  readonly implied = new Map<string, Set<string>>();
  assignments: KAssignment[] = [];
  readonly appCreds = new Map<string, KAppCred>();
  readonly tokens = new Map<string, KToken>();

  clear(): void {
    for (const map of [this.domains, this.projects, this.users, this.roles, this.implied, this.appCreds, this.tokens]) {
      map.clear();
    }
    this.assignments = [];
  }

  roleByName(name: string): KRole | undefined {
    return [...this.roles.values()].find((r) => r.domainId === null && sameName(r.name, name));
  }

  domainByName(name: string): KDomain | undefined {
    return [...this.domains.values()].find((d) => sameName(d.name, name));
  }

  /** Role ids and every role they imply, transitively. */
  expand(roleIDs: Iterable<string>): string[] {
    const out = new Set<string>();
    const visit = (id: string): void => {
      if (out.has(id)) return;
      out.add(id);
      for (const next of this.implied.get(id) ?? []) visit(next);
    };
    for (const id of roleIDs) visit(id);
    return [...out];
  }

  /**
   * The user's roles on a target, implied roles included: what a token scoped there carries. A project also gets
   * the roles granted on its domain inherited to projects; a domain does not get its own inherited grants.
   */
  effectiveRoleIDs(userID: string, target: Target): string[] {
    const projectDomain = target.kind === 'project' ? this.projects.get(target.id)?.domainId : undefined;
    const direct = this.assignments.filter(
      (a) =>
        a.userId === userID &&
        (a.inherited === true
          ? a.target.kind === 'domain' && a.target.id === projectDomain
          : sameTarget(a.target, target)),
    );
    return this.expand(direct.map((a) => a.roleId)).filter((id) => this.roles.has(id));
  }

  roleNames(roleIDs: readonly string[]): string[] {
    return roleIDs.flatMap((id) => {
      const role = this.roles.get(id);
      return role ? [role.name] : [];
    });
  }

  /** Forgets every token `match` selects: Keystone's revocation events, at full resolution. */
  revokeTokens(match: (token: KToken) => boolean): void {
    for (const [value, token] of this.tokens) if (match(token)) this.tokens.delete(value);
  }

  /** The caller a live token describes, or undefined when unknown, revoked, expired or its user is disabled. */
  authContext(value: string, now: number): AuthContext | undefined {
    const token = this.tokens.get(value);
    if (!token) return undefined;
    const user = this.users.get(token.userId);
    if (token.expiresAt <= now || !user?.enabled) return undefined;
    const project = token.scope.kind === 'project' ? this.projects.get(token.scope.projectId) : undefined;
    return {
      token: value,
      userId: user.id,
      userName: user.name,
      userDomainId: user.domainId,
      projectId: project?.id,
      projectDomainId: project?.domainId,
      domainId: token.scope.kind === 'domain' ? token.scope.domainId : undefined,
      system: token.scope.kind === 'system',
      roles: this.roleNames(token.roleIds),
      applicationCredentialId: token.appCredId,
    };
  }
}

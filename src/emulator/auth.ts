/**
 * Who made an emulated request, and the policy questions every service asks of it. Its own module: the services and
 * the cross-service lookups both read it, and the lookups are part of what a service is given (context.ts).
 */
/** Who a request's token says the caller is. Roles are names, implied roles already expanded. */
export interface AuthContext {
  readonly token: string;
  readonly userId: string;
  readonly userName: string;
  readonly userDomainId: string;
  /** Set for a project-scoped token (including one from an application credential). */
  readonly projectId: string | undefined;
  readonly projectDomainId: string | undefined;
  /** Set for a domain-scoped token. */
  readonly domainId: string | undefined;
  readonly system: boolean;
  readonly roles: readonly string[];
  /** Set when the token came from an application credential. */
  readonly applicationCredentialId: string | undefined;
}

export const hasRole = (auth: AuthContext, role: string): boolean => auth.roles.includes(role);
export const isAdmin = (auth: AuthContext): boolean => hasRole(auth, 'admin');

/**
 * Whether `auth` may see or change resources owned by project `projectId`: those of its own project, or any with
 * the admin role (the Zed policies' legacy `admin_required`, which ignores the token's scope).
 */
export const mayAccessProject = (auth: AuthContext, projectID: string | null | undefined): boolean =>
  isAdmin(auth) || (projectID != null && auth.projectId === projectID);

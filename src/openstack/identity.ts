/**
 * Keystone v3: domains, projects, users, roles, role assignments and application credentials, for the region
 * service's identity lifecycle (project, user, grants and application credential per region Identity) and the
 * Keystone orders.
 *
 * Request bodies are wire-shaped (snake_case, as Keystone reads them); list filters and assignment targets are
 * camelCase option objects.
 *
 * Names: Keystone's `name` filters compare with the database's collation. On MariaDB (production) that is case-
 * and accent-insensitive, so `name=admin` also lists `ADMIN` and `admín`; the find functions keep only exact
 * matches. A case or accent variant therefore reads as absent, and creating the exact name then fails with 409
 * (ConflictError), since uniqueness uses the same collation: a name we did not create is never adopted. Keystone
 * also `strip()`s names on create, so a name with surrounding whitespace would never be found again.
 */
import { exactlyNamed } from './exact.ts';
import { isNotFound } from './errors.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { ServiceClient } from './session.ts';
import { commaJoined, flag, requestEnveloped, toQuery, type QueryKeys } from './request.ts';

export type IdentityClient = ServiceClient<'identity'>;
/**
 * Keystone creates an application credential only for the token's own user, on the token's project: the create
 * call therefore needs a project-scoped session of that user.
 */
type ProjectScopedIdentityClient = ServiceClient<'identity', 'project'>;

// ---------------------------------------------------------------------------------------------------- domains

export interface Domain {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly tags?: readonly string[];
}

interface DomainFilter {
  readonly name?: string | undefined;
  readonly enabled?: boolean | undefined;
}

const domainKeys: QueryKeys<DomainFilter> = { name: 'name', enabled: 'enabled' };

interface DomainCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
}

interface DomainUpdate {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** A domain must be disabled before Keystone lets it be deleted. */
  readonly enabled?: boolean | undefined;
}

export function listDomains(
  identity: IdentityClient,
  filter: DomainFilter = {},
  options?: ListOptions,
): Promise<Domain[]> {
  return listAll<Domain>(
    identity,
    { method: 'GET', path: '/domains', query: toQuery(filter, domainKeys) },
    pageStyleFor('identity', 'domains'),
    options,
  );
}

export function getDomain(identity: IdentityClient, domainId: string): Promise<Domain> {
  return requestEnveloped<Domain>(identity, 'domain', {
    method: 'GET',
    path: '/domains/{domain_id}',
    params: { domain_id: domainId },
  });
}

export function createDomain(identity: IdentityClient, domain: DomainCreate): Promise<Domain> {
  return requestEnveloped<Domain>(identity, 'domain', { method: 'POST', path: '/domains', body: { domain } });
}

export function updateDomain(identity: IdentityClient, domainId: string, update: DomainUpdate): Promise<Domain> {
  return requestEnveloped<Domain>(identity, 'domain', {
    method: 'PATCH',
    path: '/domains/{domain_id}',
    params: { domain_id: domainId },
    body: { domain: update },
  });
}

/** Deletes a domain; Keystone refuses (403) until the domain is disabled, so callers disable it first. */
export async function deleteDomain(identity: IdentityClient, domainId: string): Promise<void> {
  await identity.request({ method: 'DELETE', path: '/domains/{domain_id}', params: { domain_id: domainId } });
}

// ---------------------------------------------------------------------------------------------------- projects

export interface Project {
  readonly id: string;
  readonly name: string;
  readonly domain_id: string;
  readonly description: string | null;
  readonly enabled: boolean;
  readonly parent_id: string | null;
  readonly is_domain: boolean;
  readonly tags: readonly string[];
}

interface ProjectFilter {
  readonly domainId?: string | undefined;
  readonly name?: string | undefined;
  /** Projects carrying every one of these tags (sent comma-joined as `tags`). */
  readonly tags?: readonly string[] | undefined;
  /** Projects carrying at least one of these tags (sent comma-joined as `tags-any`). */
  readonly tagsAny?: readonly string[] | undefined;
}

const projectKeys: QueryKeys<ProjectFilter> = {
  domainId: 'domain_id',
  name: 'name',
  tags: commaJoined('tags'),
  tagsAny: commaJoined('tags-any'),
};

interface ProjectCreate {
  readonly name: string;
  readonly domain_id: string;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
  /** The region service tags identity projects `organization=…` and `project=…`; tags may not contain `,` or `/`. */
  readonly tags?: readonly string[] | undefined;
}

interface ProjectUpdate {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly enabled?: boolean | undefined;
  /** Replaces the whole tag list. */
  readonly tags?: readonly string[] | undefined;
}

export function listProjects(
  identity: IdentityClient,
  filter: ProjectFilter = {},
  options?: ListOptions,
): Promise<Project[]> {
  return listAll<Project>(
    identity,
    {
      method: 'GET',
      path: '/projects',
      query: toQuery(filter, projectKeys),
    },
    pageStyleFor('identity', 'projects'),
    options,
  );
}

/** The project named exactly `name` in the domain, or undefined (see the module comment on name matching). */
export async function findProjectByName(
  identity: IdentityClient,
  domainId: string,
  name: string,
  options?: ListOptions,
): Promise<Project | undefined> {
  return exactlyNamed(await listProjects(identity, { domainId, name }, options), name, 'keystone project');
}

export function getProject(identity: IdentityClient, projectId: string): Promise<Project> {
  return requestEnveloped<Project>(identity, 'project', {
    method: 'GET',
    path: '/projects/{project_id}',
    params: { project_id: projectId },
  });
}

export function createProject(identity: IdentityClient, project: ProjectCreate): Promise<Project> {
  return requestEnveloped<Project>(identity, 'project', {
    method: 'POST',
    path: '/projects',
    body: { project },
  });
}

export function updateProject(identity: IdentityClient, projectId: string, update: ProjectUpdate): Promise<Project> {
  return requestEnveloped<Project>(identity, 'project', {
    method: 'PATCH',
    path: '/projects/{project_id}',
    params: { project_id: projectId },
    body: { project: update },
  });
}

export async function deleteProject(identity: IdentityClient, projectId: string): Promise<void> {
  await identity.request({ method: 'DELETE', path: '/projects/{project_id}', params: { project_id: projectId } });
}

// ---------------------------------------------------------------------------------------------------- users

/** Keystone's per-user options (the ones a service account sets); Keystone answers with the options it holds. */
interface UserOptions {
  readonly ignore_change_password_upon_first_use?: boolean | undefined;
  readonly ignore_password_expiry?: boolean | undefined;
  readonly ignore_lockout_failure_attempts?: boolean | undefined;
  readonly lock_password?: boolean | undefined;
  readonly multi_factor_auth_enabled?: boolean | undefined;
  readonly multi_factor_auth_rules?: readonly (readonly string[])[] | undefined;
}

export interface User {
  readonly id: string;
  readonly name: string;
  readonly domain_id: string;
  readonly enabled: boolean;
  readonly description?: string | null;
  readonly default_project_id?: string | null;
  readonly password_expires_at: string | null;
  readonly options?: UserOptions;
}

interface UserFilter {
  readonly domainId?: string | undefined;
  readonly name?: string | undefined;
}

const userKeys: QueryKeys<UserFilter> = { domainId: 'domain_id', name: 'name' };

interface UserCreate {
  readonly name: string;
  readonly domain_id: string;
  readonly password?: string | undefined;
  readonly description?: string | undefined;
  readonly default_project_id?: string | undefined;
  readonly enabled?: boolean | undefined;
  readonly options?: UserOptions | undefined;
}

/**
 * What `updateUser` may change. The password is left out on purpose: it has its own calls, because a password
 * change revokes every token of the user.
 */
interface UserUpdate {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly default_project_id?: string | null | undefined;
  /** Disabling a user revokes its tokens and deletes its application credentials and access rules. */
  readonly enabled?: boolean | undefined;
  readonly options?: UserOptions | undefined;
}

export function listUsers(identity: IdentityClient, filter: UserFilter = {}, options?: ListOptions): Promise<User[]> {
  return listAll<User>(
    identity,
    { method: 'GET', path: '/users', query: toQuery(filter, userKeys) },
    pageStyleFor('identity', 'users'),
    options,
  );
}

/** The user named exactly `name` in the domain, or undefined (see the module comment on name matching). */
export async function findUserByName(
  identity: IdentityClient,
  domainId: string,
  name: string,
  options?: ListOptions,
): Promise<User | undefined> {
  return exactlyNamed(await listUsers(identity, { domainId, name }, options), name, 'keystone user');
}

export function getUser(identity: IdentityClient, userId: string): Promise<User> {
  return requestEnveloped<User>(identity, 'user', {
    method: 'GET',
    path: '/users/{user_id}',
    params: { user_id: userId },
  });
}

/** A duplicate (domain, name) is refused with 409, raised as ConflictError. */
export function createUser(identity: IdentityClient, user: UserCreate): Promise<User> {
  return requestEnveloped<User>(identity, 'user', { method: 'POST', path: '/users', body: { user } });
}

export function updateUser(identity: IdentityClient, userId: string, update: UserUpdate): Promise<User> {
  return requestEnveloped<User>(identity, 'user', {
    method: 'PATCH',
    path: '/users/{user_id}',
    params: { user_id: userId },
    body: { user: update },
  });
}

/** Deleting a user also deletes its application credentials. */
export async function deleteUser(identity: IdentityClient, userId: string): Promise<void> {
  await identity.request({ method: 'DELETE', path: '/users/{user_id}', params: { user_id: userId } });
}

/**
 * Sets a user's password as an administrator, without the old one. Keystone checks it against its password rules
 * and revokes every token the user holds; the user's application credentials survive.
 */
export function setUserPassword(identity: IdentityClient, userId: string, password: string): Promise<User> {
  return requestEnveloped<User>(identity, 'user', {
    method: 'PATCH',
    path: '/users/{user_id}',
    params: { user_id: userId },
    body: { user: { password } },
  });
}

/** Self-service change: the user's own token, and its current password as `original_password`. Answers 204. */
export async function changeOwnPassword(
  identity: IdentityClient,
  userId: string,
  change: { readonly original_password: string; readonly password: string },
): Promise<void> {
  await identity.request({
    method: 'POST',
    path: '/users/{user_id}/password',
    params: { user_id: userId },
    body: { user: { password: change.password, original_password: change.original_password } },
  });
}

// ---------------------------------------------------------------------------------------------------- roles

export interface Role {
  readonly id: string;
  readonly name: string;
  /** null for a global role, which is what the region service's manager/member roles are. */
  readonly domain_id: string | null;
  readonly description?: string | null;
}

interface RoleFilter {
  readonly name?: string | undefined;
  /** Keystone lists only global roles unless a domain is named. */
  readonly domainId?: string | undefined;
}

const roleKeys: QueryKeys<RoleFilter> = { name: 'name', domainId: 'domain_id' };

export function listRoles(identity: IdentityClient, filter: RoleFilter = {}, options?: ListOptions): Promise<Role[]> {
  return listAll<Role>(
    identity,
    { method: 'GET', path: '/roles', query: toQuery(filter, roleKeys) },
    pageStyleFor('identity', 'roles'),
    options,
  );
}

/** The global role (or, with `domainId`, the domain-specific role) named exactly `name`, or undefined. */
export async function findRoleByName(
  identity: IdentityClient,
  name: string,
  domainId?: string,
  options?: ListOptions,
): Promise<Role | undefined> {
  return exactlyNamed(await listRoles(identity, { name, domainId }, options), name, 'keystone role');
}

export async function createRole(identity: IdentityClient, role: { readonly name: string }): Promise<Role> {
  return requestEnveloped<Role>(identity, 'role', { method: 'POST', path: '/roles', body: { role } });
}

/** The global role named exactly `name`, created when there is none; its id. For seeding and tests. */
export async function ensureRole(identity: IdentityClient, name: string): Promise<string> {
  return (await findRoleByName(identity, name))?.id ?? (await createRole(identity, { name })).id;
}

export function getRole(identity: IdentityClient, roleId: string): Promise<Role> {
  return requestEnveloped<Role>(identity, 'role', {
    method: 'GET',
    path: '/roles/{role_id}',
    params: { role_id: roleId },
  });
}

// ---------------------------------------------------------------------------------------------------- role assignments

/** A user's role on one project or one domain. */
type RoleAssignmentTarget = { readonly userId: string; readonly roleId: string } & (
  { readonly projectId: string; readonly domainId?: never } | { readonly domainId: string; readonly projectId?: never }
);

function assignmentPath(target: RoleAssignmentTarget): { path: string; params: Record<string, string> } {
  if (target.projectId !== undefined) {
    return {
      path: '/projects/{project_id}/users/{user_id}/roles/{role_id}',
      params: { project_id: target.projectId, user_id: target.userId, role_id: target.roleId },
    };
  }
  return {
    path: '/domains/{domain_id}/users/{user_id}/roles/{role_id}',
    params: { domain_id: target.domainId, user_id: target.userId, role_id: target.roleId },
  };
}

/** Grants the role (PUT, 204); granting an existing assignment is a no-op, so this is idempotent. */
export async function grantRole(identity: IdentityClient, target: RoleAssignmentTarget): Promise<void> {
  await identity.request({ method: 'PUT', ...assignmentPath(target) });
}

/**
 * Revokes the role (DELETE, 204; 404 when it was not granted). Revoking a user's role on a project deletes the
 * user's application credentials on that project.
 */
export async function revokeRole(identity: IdentityClient, target: RoleAssignmentTarget): Promise<void> {
  await identity.request({ method: 'DELETE', ...assignmentPath(target) });
}

/** Whether the role is granted directly (HEAD: 204 yes, 404 no). */
export async function hasRole(identity: IdentityClient, target: RoleAssignmentTarget): Promise<boolean> {
  try {
    await identity.request({ method: 'HEAD', ...assignmentPath(target) });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

interface NamedRef {
  readonly id: string;
  /** Present with `include_names`. */
  readonly name?: string;
  readonly domain?: { readonly id: string; readonly name?: string };
}

export interface RoleAssignment {
  readonly role: NamedRef;
  readonly user?: NamedRef;
  readonly group?: NamedRef;
  readonly scope: {
    readonly project?: NamedRef;
    readonly domain?: NamedRef;
    readonly system?: { readonly all: boolean };
    readonly 'OS-INHERIT:inherited_to'?: string;
  };
}

interface RoleAssignmentFilter {
  readonly userId?: string | undefined;
  readonly projectId?: string | undefined;
  readonly domainId?: string | undefined;
  readonly roleId?: string | undefined;
  /** Expand group membership, inheritance and implied roles into what a token would carry. */
  readonly effective?: boolean | undefined;
  /** Add names beside the ids of roles, users, groups, projects and domains. */
  readonly includeNames?: boolean | undefined;
}

const roleAssignmentKeys: QueryKeys<RoleAssignmentFilter> = {
  userId: 'user.id',
  projectId: 'scope.project.id',
  domainId: 'scope.domain.id',
  roleId: 'role.id',
  // Keystone reads these flags by presence: any value but `0` means true, so `false` is left out.
  effective: flag('effective'),
  includeNames: flag('include_names'),
};

interface ApplicationCredentialFilter {
  readonly name?: string | undefined;
}

const applicationCredentialKeys: QueryKeys<ApplicationCredentialFilter> = { name: 'name' };

export function listRoleAssignments(
  identity: IdentityClient,
  filter: RoleAssignmentFilter = {},
  options?: ListOptions,
): Promise<RoleAssignment[]> {
  return listAll<RoleAssignment>(
    identity,
    {
      method: 'GET',
      path: '/role_assignments',
      query: toQuery(filter, roleAssignmentKeys),
    },
    pageStyleFor('identity', 'role_assignments'),
    options,
  );
}

// ---------------------------------------------------------------------------------------------------- application credentials

interface AccessRule {
  readonly id?: string | undefined;
  readonly service: string;
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
}

/** An application credential as Keystone shows it after creation: it never carries the secret again. */
export interface ApplicationCredential {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  /** The project the credential authenticates into: the project of the token that created it. */
  readonly project_id: string;
  readonly user_id?: string;
  readonly expires_at: string | null;
  readonly unrestricted: boolean;
  readonly roles: readonly { readonly id: string; readonly name: string; readonly domain_id?: string | null }[];
  readonly access_rules?: readonly AccessRule[];
}

/**
 * The answer to a create: the only time Keystone returns the secret. It is neither stored nor shown again (get and
 * list answer `ApplicationCredential`, which has no `secret`), so the caller must persist it before doing anything
 * else; if it is lost, the credential must be deleted and a new one created.
 */
export interface NewApplicationCredential extends ApplicationCredential {
  readonly secret: string;
}

export interface ApplicationCredentialCreate {
  readonly name: string;
  readonly description?: string | undefined;
  /** By id or name; defaults to all the roles of the creating token. A role the user lacks is refused with 400. */
  readonly roles?: readonly ({ readonly id: string } | { readonly name: string })[] | undefined;
  /** ISO 8601; null or absent for no expiry. */
  readonly expires_at?: string | null | undefined;
  /** Lets the credential create further credentials and trusts; leave false unless required. */
  readonly unrestricted?: boolean | undefined;
  readonly access_rules?: readonly AccessRule[] | undefined;
}

/**
 * Creates an application credential for `userId`, which must be the token's own user (403 otherwise), on the
 * token's project. The result carries the secret, once.
 */
export function createApplicationCredential(
  identity: ProjectScopedIdentityClient,
  userId: string,
  credential: ApplicationCredentialCreate,
): Promise<NewApplicationCredential> {
  return requestEnveloped<NewApplicationCredential>(identity, 'application_credential', {
    method: 'POST',
    path: '/users/{user_id}/application_credentials',
    params: { user_id: userId },
    body: { application_credential: credential },
  });
}

export function getApplicationCredential(
  identity: IdentityClient,
  userId: string,
  credentialId: string,
): Promise<ApplicationCredential> {
  return requestEnveloped<ApplicationCredential>(identity, 'application_credential', {
    method: 'GET',
    path: '/users/{user_id}/application_credentials/{application_credential_id}',
    params: { user_id: userId, application_credential_id: credentialId },
  });
}

export function listApplicationCredentials(
  identity: IdentityClient,
  userId: string,
  filter: ApplicationCredentialFilter = {},
  options?: ListOptions,
): Promise<ApplicationCredential[]> {
  return listAll<ApplicationCredential>(
    identity,
    {
      method: 'GET',
      path: '/users/{user_id}/application_credentials',
      params: { user_id: userId },
      query: toQuery(filter, applicationCredentialKeys),
    },
    pageStyleFor('identity', 'application_credentials'),
    options,
  );
}

/** The user's application credential named exactly `name`, or undefined. */
export async function findApplicationCredentialByName(
  identity: IdentityClient,
  userId: string,
  name: string,
  options?: ListOptions,
): Promise<ApplicationCredential | undefined> {
  return exactlyNamed(
    await listApplicationCredentials(identity, userId, { name }, options),
    name,
    'keystone application credential',
  );
}

export async function deleteApplicationCredential(
  identity: IdentityClient,
  userId: string,
  credentialId: string,
): Promise<void> {
  await identity.request({
    method: 'DELETE',
    path: '/users/{user_id}/application_credentials/{application_credential_id}',
    params: { user_id: userId, application_credential_id: credentialId },
  });
}

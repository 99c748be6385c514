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
import { exactlyNamed, type Named } from './exact.ts';
import { isNotFound } from './errors.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { ServiceClient } from './session.ts';
import { commaJoined, flag, requestEnveloped, toQuery, type QueryKeys } from './request.ts';
import { resource, type Resource } from './resource.ts';

export type IdentityClient = ServiceClient<'identity'>;
/**
 * Keystone creates an application credential only for the token's own user, on the token's project: the create
 * call therefore needs a project-scoped session of that user.
 */
type ProjectScopedIdentityClient = ServiceClient<'identity', 'project'>;

/** A Keystone collection (see resource.ts): paged by `links.next`, updated with PATCH; a duplicate name is a `keystone …`. */
function keystone<T extends Named, F extends object, Create, Update = never>(
  path: string,
  envelope: string,
  keys: QueryKeys<F>,
): Resource<IdentityClient, T, F, Create, Update> {
  const style = pageStyleFor('identity', `${envelope}s`);
  return resource({ path, envelope, keys, style, update: 'PATCH', kind: `keystone ${envelope}` });
}

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

/** deleteDomain: Keystone refuses (403) until the domain is disabled, so callers disable it first. */
const domains = keystone<Domain, DomainFilter, DomainCreate, DomainUpdate>('/domains', 'domain', domainKeys);
export const { list: listDomains, get: getDomain, create: createDomain, update: updateDomain } = domains;
export const { delete: deleteDomain } = domains;

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
  readonly domainID?: string | undefined;
  readonly name?: string | undefined;
  /** Projects carrying every one of these tags (sent comma-joined as `tags`). */
  readonly tags?: readonly string[] | undefined;
  /** Projects carrying at least one of these tags (sent comma-joined as `tags-any`). */
  readonly tagsAny?: readonly string[] | undefined;
}

const projectKeys: QueryKeys<ProjectFilter> = {
  domainID: 'domain_id',
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

const projects = keystone<Project, ProjectFilter, ProjectCreate, ProjectUpdate>('/projects', 'project', projectKeys);
export const { list: listProjects, get: getProject, create: createProject, update: updateProject } = projects;
export const { delete: deleteProject } = projects;

/** The project named exactly `name` in the domain, or undefined (see the module comment on name matching). */
export function findProjectByName(
  identity: IdentityClient,
  domainID: string,
  name: string,
  options?: ListOptions,
): Promise<Project | undefined> {
  return projects.findByName(identity, name, { domainID }, options);
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
  readonly domainID?: string | undefined;
  readonly name?: string | undefined;
}

const userKeys: QueryKeys<UserFilter> = { domainID: 'domain_id', name: 'name' };

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

/** createUser: a duplicate (domain, name) is refused with 409. deleteUser also deletes its application credentials. */
const users = keystone<User, UserFilter, UserCreate, UserUpdate>('/users', 'user', userKeys);
export const { list: listUsers, get: getUser, create: createUser, update: updateUser, delete: deleteUser } = users;

/** The user named exactly `name` in the domain, or undefined (see the module comment on name matching). */
export function findUserByName(
  identity: IdentityClient,
  domainID: string,
  name: string,
  options?: ListOptions,
): Promise<User | undefined> {
  return users.findByName(identity, name, { domainID }, options);
}

/**
 * Sets a user's password as an administrator, without the old one. Keystone checks it against its password rules
 * and revokes every token the user holds; the user's application credentials survive.
 */
export function setUserPassword(identity: IdentityClient, userID: string, password: string): Promise<User> {
  return requestEnveloped<User>(identity, 'user', {
    method: 'PATCH',
    path: '/users/{user_id}',
    params: { user_id: userID },
    body: { user: { password } },
  });
}

/** Self-service change: the user's own token, and its current password as `original_password`. Answers 204. */
export async function changeOwnPassword(
  identity: IdentityClient,
  userID: string,
  change: { readonly original_password: string; readonly password: string },
): Promise<void> {
  await identity.request({
    method: 'POST',
    path: '/users/{user_id}/password',
    params: { user_id: userID },
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
  readonly domainID?: string | undefined;
}

const roleKeys: QueryKeys<RoleFilter> = { name: 'name', domainID: 'domain_id' };

const roles = keystone<Role, RoleFilter, { readonly name: string }>('/roles', 'role', roleKeys);
export const { list: listRoles, create: createRole, get: getRole } = roles;

/** The global role (or, with `domainId`, the domain-specific role) named exactly `name`, or undefined. */
export function findRoleByName(
  identity: IdentityClient,
  name: string,
  domainID?: string,
  options?: ListOptions,
): Promise<Role | undefined> {
  return roles.findByName(identity, name, { domainID }, options);
}

/** The global role named exactly `name`, created when there is none; its id. For seeding and tests. */
export async function ensureRole(identity: IdentityClient, name: string): Promise<string> {
  return (await findRoleByName(identity, name))?.id ?? (await createRole(identity, { name })).id;
}

// ---------------------------------------------------------------------------------------------------- role assignments

/** A user's role on one project or one domain. */
type RoleAssignmentTarget = { readonly userID: string; readonly roleID: string } & (
  { readonly projectID: string; readonly domainID?: never } | { readonly domainID: string; readonly projectID?: never }
);

function assignmentPath(target: RoleAssignmentTarget): { path: string; params: Record<string, string> } {
  if (target.projectID !== undefined) {
    return {
      path: '/projects/{project_id}/users/{user_id}/roles/{role_id}',
      params: { project_id: target.projectID, user_id: target.userID, role_id: target.roleID },
    };
  }
  return {
    path: '/domains/{domain_id}/users/{user_id}/roles/{role_id}',
    params: { domain_id: target.domainID, user_id: target.userID, role_id: target.roleID },
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
  readonly userID?: string | undefined;
  readonly projectID?: string | undefined;
  readonly domainID?: string | undefined;
  readonly roleID?: string | undefined;
  /** Expand group membership, inheritance and implied roles into what a token would carry. */
  readonly effective?: boolean | undefined;
  /** Add names beside the ids of roles, users, groups, projects and domains. */
  readonly includeNames?: boolean | undefined;
}

const roleAssignmentKeys: QueryKeys<RoleAssignmentFilter> = {
  userID: 'user.id',
  projectID: 'scope.project.id',
  domainID: 'scope.domain.id',
  roleID: 'role.id',
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
  userID: string,
  credential: ApplicationCredentialCreate,
): Promise<NewApplicationCredential> {
  return requestEnveloped<NewApplicationCredential>(identity, 'application_credential', {
    method: 'POST',
    path: '/users/{user_id}/application_credentials',
    params: { user_id: userID },
    body: { application_credential: credential },
  });
}

export function getApplicationCredential(
  identity: IdentityClient,
  userID: string,
  credentialID: string,
): Promise<ApplicationCredential> {
  return requestEnveloped<ApplicationCredential>(identity, 'application_credential', {
    method: 'GET',
    path: '/users/{user_id}/application_credentials/{application_credential_id}',
    params: { user_id: userID, application_credential_id: credentialID },
  });
}

export function listApplicationCredentials(
  identity: IdentityClient,
  userID: string,
  filter: ApplicationCredentialFilter = {},
  options?: ListOptions,
): Promise<ApplicationCredential[]> {
  return listAll<ApplicationCredential>(
    identity,
    {
      method: 'GET',
      path: '/users/{user_id}/application_credentials',
      params: { user_id: userID },
      query: toQuery(filter, applicationCredentialKeys),
    },
    pageStyleFor('identity', 'application_credentials'),
    options,
  );
}

/** The user's application credential named exactly `name`, or undefined. */
export async function findApplicationCredentialByName(
  identity: IdentityClient,
  userID: string,
  name: string,
  options?: ListOptions,
): Promise<ApplicationCredential | undefined> {
  return exactlyNamed(
    await listApplicationCredentials(identity, userID, { name }, options),
    name,
    'keystone application credential',
  );
}

export async function deleteApplicationCredential(
  identity: IdentityClient,
  userID: string,
  credentialID: string,
): Promise<void> {
  await identity.request({
    method: 'DELETE',
    path: '/users/{user_id}/application_credentials/{application_credential_id}',
    params: { user_id: userID, application_credential_id: credentialID },
  });
}

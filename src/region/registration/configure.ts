/**
 * `region configure`, mode create: the provider's Keystone scaffolding for one deployment (`--prefix`) on one
 * cloud. Domain `<prefix>`, project and user `<prefix>-region`, the user's grants on the domain and the project,
 * and `manager` + `member` + `baremetal_observer` on the domain inherited to every project of it (docs/adr/0010;
 * `baremetal_observer` is what deploy/policies/ironic.yaml lets list every bare-metal node, docs/adr/0046).
 *
 * Idempotent: every object is looked up first and written only when missing or different, so a second run with
 * the same password sends no write at all. A supplied password is kept (checked by authenticating, set only when
 * it does not work); without one a new one is generated and set.
 */
import { ConfigError } from '../../openstack/errors.ts';
import {
  createDomain,
  createProject,
  createRole,
  createUser,
  findProjectByName,
  findRoleByName,
  findUserByName,
  grantRole,
  listDomains,
  listRoleAssignments,
  setUserPassword,
  updateDomain,
  updateProject,
  updateUser,
  type IdentityClient,
  type RoleAssignment,
} from '../../openstack/identity.ts';
import { grantInheritedRole } from '../../openstack/identity-inherit.ts';
import { exactlyNamed } from '../../openstack/exact.ts';
import type { RegionCredentials } from './credentials.ts';

interface ConfigurePlan {
  readonly prefix: string;
  readonly domainRoles: readonly string[];
  readonly projectRoles: readonly string[];
  /** Granted on the domain, inherited to its projects (OS-INHERIT), not to the domain itself. */
  readonly inheritedRoles: readonly string[];
}

export const DEFAULT_ROLES = {
  domain: ['member', 'load-balancer_member', 'manager'],
  project: ['member', 'manager'],
  // baremetal_observer: the monitor's Ironic lookup (docs/spec/openstack-provider.md §Baremetal progress) lists nodes by
  // instance UUID with this credential scoped to an identity project, and Zed lets a project see only the nodes it
  // owns; deploy/policies/ironic.yaml lets this role list them all, and nothing else.
  inherited: ['manager', 'member', 'baremetal_observer'],
} as const;

/**
 * Roles that only the shipped policies (deploy/policies) give a meaning, so a cloud may not have them yet: configure
 * creates them (as the administrator it runs as) instead of refusing. Every other missing role is an error.
 */
const POLICY_ROLES: ReadonlySet<string> = new Set(['baremetal_observer']);

/** The legacy role older clouds' Neutron still requires of tenants. */
const LEGACY_MEMBER_ROLE = '_member_';

interface PlanOptions {
  readonly legacyMemberRole?: boolean;
  readonly domainRoles?: readonly string[] | undefined;
  readonly projectRoles?: readonly string[] | undefined;
  readonly inheritedRoles?: readonly string[] | undefined;
}

export function planFor(prefix: string, options: PlanOptions = {}): ConfigurePlan {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,56}$/.test(prefix)) {
    throw new ConfigError('--prefix', 'must be 1-57 letters, digits, `_`, `.` or `-`, starting with a letter or digit');
  }
  const legacy = options.legacyMemberRole === true ? [LEGACY_MEMBER_ROLE] : [];
  const unique = (roles: readonly string[]) => [...new Set([...roles, ...legacy])];
  return {
    prefix,
    domainRoles: unique(options.domainRoles ?? DEFAULT_ROLES.domain),
    projectRoles: unique(options.projectRoles ?? DEFAULT_ROLES.project),
    inheritedRoles: [...new Set(options.inheritedRoles ?? DEFAULT_ROLES.inherited)],
  };
}

/** The names a deployment's scaffolding has: one domain per deployment, the region's project and user in it. */
export function scaffoldingNames(prefix: string): { domain: string; project: string; user: string } {
  return { domain: prefix, project: `${prefix}-region`, user: `${prefix}-region` };
}

export interface ConfigureDeps {
  /** A cloud administrator's identity client (create domain, users, grants). */
  readonly identity: IdentityClient;
  readonly authUrl: string;
  readonly regionName: string | undefined;
  /** Whether the password authenticates the user (an unscoped token); never throws for a wrong password. */
  readonly authenticates: (userId: string, password: string) => Promise<boolean>;
  /** A fresh, crypto-random password. */
  readonly newPassword: () => string;
}

interface ConfigureResult {
  readonly credentials: RegionCredentials;
  /** What this run changed, one line each (never a password); empty when everything was already in place. */
  readonly changes: readonly string[];
}

export async function configureRegion(
  plan: ConfigurePlan,
  suppliedPassword: string | undefined,
  deps: ConfigureDeps,
): Promise<ConfigureResult> {
  const { identity } = deps;
  const names = scaffoldingNames(plan.prefix);
  const changes: string[] = [];
  const description = `openregion region provider (${plan.prefix})`;

  const roleIds = await resolveRoles(
    identity,
    [...plan.domainRoles, ...plan.projectRoles, ...plan.inheritedRoles],
    changes,
  );

  let domain = exactlyNamed(await listDomains(identity, { name: names.domain }), names.domain, 'keystone domain');
  if (domain === undefined) {
    domain = await createDomain(identity, { name: names.domain, description: `openregion deployment ${plan.prefix}` });
    changes.push(`created domain ${names.domain}`);
  } else if (!domain.enabled) {
    domain = await updateDomain(identity, domain.id, { enabled: true });
    changes.push(`enabled domain ${names.domain}`);
  }

  let project = await findProjectByName(identity, domain.id, names.project);
  if (project === undefined) {
    project = await createProject(identity, { name: names.project, domain_id: domain.id, description });
    changes.push(`created project ${names.project}`);
  } else if (!project.enabled) {
    project = await updateProject(identity, project.id, { enabled: true });
    changes.push(`enabled project ${names.project}`);
  }

  let password = suppliedPassword;
  let user = await findUserByName(identity, domain.id, names.user);
  if (user === undefined) {
    password ??= deps.newPassword();
    user = await createUser(identity, {
      name: names.user,
      domain_id: domain.id,
      password,
      description,
      default_project_id: project.id,
    });
    changes.push(`created user ${names.user}`);
  } else {
    if (!user.enabled) {
      user = await updateUser(identity, user.id, { enabled: true });
      changes.push(`enabled user ${names.user}`);
    }
    if (password === undefined || !(await deps.authenticates(user.id, password))) {
      password ??= deps.newPassword();
      await setUserPassword(identity, user.id, password);
      changes.push(`set the password of user ${names.user}`);
    }
  }

  const held = await listRoleAssignments(identity, { userId: user.id });
  const wanted: { where: 'domain' | 'project' | 'inherited'; role: string }[] = [
    ...plan.domainRoles.map((role) => ({ where: 'domain' as const, role })),
    ...plan.projectRoles.map((role) => ({ where: 'project' as const, role })),
    ...plan.inheritedRoles.map((role) => ({ where: 'inherited' as const, role })),
  ];
  for (const { where, role } of wanted) {
    const roleId = roleIds.get(role) ?? '';
    const target = where === 'project' ? { projectId: project.id } : { domainId: domain.id };
    if (held.some((a) => assignmentMatches(a, where, target, roleId))) continue;
    if (where === 'inherited') await grantInheritedRole(identity, { domainId: domain.id, userId: user.id, roleId });
    else await grantRole(identity, { userId: user.id, roleId, ...target });
    changes.push(
      `granted ${role} on ${where === 'project' ? `project ${names.project}` : `domain ${names.domain}`}${where === 'inherited' ? ', inherited to its projects' : ''}`,
    );
  }

  return {
    credentials: {
      authUrl: deps.authUrl,
      regionName: deps.regionName,
      domainId: domain.id,
      domainName: domain.name,
      projectId: project.id,
      projectName: project.name,
      userId: user.id,
      userName: user.name,
      password,
    },
    changes,
  };
}

async function resolveRoles(
  identity: IdentityClient,
  names: readonly string[],
  changes: string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const missing: string[] = [];
  for (const name of new Set(names)) {
    const role = await findRoleByName(identity, name);
    if (role !== undefined) out.set(name, role.id);
    else if (POLICY_ROLES.has(name)) {
      out.set(name, (await createRole(identity, { name })).id);
      changes.push(`created role ${name}`);
    } else missing.push(name);
  }
  if (missing.length > 0) {
    throw new ConfigError('roles', `the cloud has no role named ${missing.join(', ')}; an administrator creates it`);
  }
  return out;
}

function assignmentMatches(
  a: RoleAssignment,
  where: 'domain' | 'project' | 'inherited',
  target: { projectId?: string; domainId?: string },
  roleId: string,
): boolean {
  if (a.role.id !== roleId) return false;
  const inherited = a.scope['OS-INHERIT:inherited_to'] === 'projects';
  if (where === 'project') return !inherited && a.scope.project?.id === target.projectId;
  return inherited === (where === 'inherited') && a.scope.domain?.id === target.domainId;
}

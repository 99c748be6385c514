/**
 * The steps of an identity's creation, each find-then-create so that any of them may be repeated after a pass was
 * interrupted anywhere (identity.ts runs them in upstream's order). Each takes the narrowest client its principal
 * allows (principals.ts), which is what the scoping test checks:
 *
 * - Keystone projects, users and grants: the manager (region user, domain-scoped) — the only principal that
 *   manages the domain.
 * - Quotas: privileged (region user in the identity project): setting quotas needs the manager role there, which
 *   the identity's own user must not have over its own limits.
 * - Application credential, server group, keypair: the identity user in its project. Keystone makes an application
 *   credential only for the token's own user on the token's project; Nova keypairs belong to the token's user, so a
 *   keypair made by the region user would be shared by (and collide across) every identity.
 */
import type { ServiceType } from '../../../openstack/catalog.ts';
import { ConflictError, EndpointNotFoundError, ForbiddenError, isNotFound } from '../../../openstack/errors.ts';
import {
  createApplicationCredential,
  createProject,
  createUser,
  deleteApplicationCredential,
  findApplicationCredentialByName,
  findProjectByName,
  findRoleByName,
  findUserByName,
  grantRole,
  listRoleAssignments,
  updateProject,
  type ApplicationCredential,
  type ApplicationCredentialCreate,
  type Project,
  type User,
} from '../../../openstack/identity.ts';
import {
  UNLIMITED,
  createKeypair,
  createServerGroup,
  deleteKeypair,
  findServerGroupByName,
  getKeypair,
  unlimitedComputeQuota,
  updateQuotaSet as updateComputeQuota,
  type Keypair,
  type ServerGroup,
  type ServerGroupPolicy,
} from '../../../openstack/compute.ts';
import {
  deleteFloatingIP,
  deleteSecurityGroup,
  listFloatingIPs,
  listSecurityGroups,
  unlimitedNetworkQuota,
  updateNetworkQuota,
} from '../../../openstack/network.ts';
import { updateQuotaSet as updateVolumeQuota, type QuotaSetUpdate } from '../../../openstack/blockstorage.ts';
import { TransientError } from '../../provider/errors.ts';
import type { IdentityClient, ManagerIdentityClient, PrivilegedClient, ProjectClients } from '../principals.ts';
import { IDENTITY_KEYPAIR_NAME } from '../names.ts';
import { publicKeyMaterial } from './secrets.ts';

/** docs/spec/upstream-region.md §Trust / scoping, quotas: every Cinder limit the region sets, unlimited. */
const unlimitedVolumeQuota: QuotaSetUpdate = {
  volumes: UNLIMITED,
  gigabytes: UNLIMITED,
  snapshots: UNLIMITED,
  backups: UNLIMITED,
  backup_gigabytes: UNLIMITED,
  per_volume_gigabytes: UNLIMITED,
  groups: UNLIMITED,
};

/** The project by name in the managed domain, made with the tenancy tags if absent; missing tags are added. */
export async function ensureProject(
  manager: ManagerIdentityClient,
  domainID: string,
  name: string,
  tags: readonly string[],
): Promise<Project> {
  const found = await findProjectByName(manager, domainID, name);
  if (found === undefined) return createProject(manager, { name, domain_id: domainID, tags });
  const missing = tags.filter((tag) => !found.tags.includes(tag));
  return missing.length === 0 ? found : updateProject(manager, found.id, { tags: [...found.tags, ...missing] });
}

/**
 * Grants `roleNames` to the user on the project, each only if the user does not hold it already in effect. The
 * check comes first because on the policy-installed cloud the region user holds `manager` on every project of its
 * domain through an inherited domain grant, and a domain manager may not grant `manager` itself.
 */
export async function ensureRoles(
  manager: ManagerIdentityClient,
  userID: string,
  projectID: string,
  roleNames: readonly string[],
): Promise<void> {
  const held = await listRoleAssignments(manager, {
    userID: userID,
    projectID: projectID,
    effective: true,
    includeNames: true,
  });
  const heldNames = new Set(held.map((a) => a.role.name));
  for (const name of roleNames) {
    if (heldNames.has(name)) continue;
    const role = await findRoleByName(manager, name);
    if (role === undefined)
      throw new TransientError(`keystone role ${name} does not exist; an operator must create it`);
    await grantRole(manager, { userID: userID, projectID: projectID, roleID: role.id });
  }
}

/**
 * Unlimited Nova, Neutron and Cinder quotas on the project; a service the catalog lacks is skipped. A service whose
 * policy refuses the region user (403) is skipped too and named in the answer: the policy-installed cloud keeps
 * Neutron quotas admin-only on purpose (deploy/policies/neutron.yaml), and the project then keeps the cloud's
 * defaults, which is an operator's decision, not a reason to hold the identity back. A service in `skip` is not
 * asked (quotas.ts remembers refusals).
 */
export async function ensureUnlimitedQuotas(
  privileged: ProjectClients<'privileged'>,
  skip: ReadonlySet<ServiceType> = new Set(),
): Promise<ServiceType[]> {
  const project = privileged.projectID;
  const refused: ServiceType[] = [];
  const apply = async <S extends ServiceType>(
    service: S,
    update: (client: PrivilegedClient<S>) => Promise<unknown>,
  ): Promise<void> => {
    if (skip.has(service)) return;
    const client = privileged.client(service);
    try {
      await client.baseUrl();
    } catch (error) {
      if (error instanceof EndpointNotFoundError) return;
      throw error;
    }
    try {
      await update(client);
    } catch (error) {
      if (!(error instanceof ForbiddenError)) throw error;
      refused.push(service);
    }
  };
  await apply('compute', (c) => updateComputeQuota(c, project, unlimitedComputeQuota));
  await apply('network', (c) => updateNetworkQuota(c, project, unlimitedNetworkQuota));
  await apply('block-storage', (c) => updateVolumeQuota(c, project, unlimitedVolumeQuota));
  return refused;
}

/** The user by name in the managed domain, or a new one with `password`; `created` says which. */
export async function ensureUser(
  manager: ManagerIdentityClient,
  domainID: string,
  name: string,
  projectID: string,
  password: string,
): Promise<{ user: User; created: boolean }> {
  const found = await findUserByName(manager, domainID, name);
  if (found !== undefined) return { user: found, created: false };
  const user = await createUser(manager, { name, domain_id: domainID, password, default_project_id: projectID });
  return { user, created: true };
}

/**
 * The user's application credential by name. One found under another id than the record's is kept only if it
 * authenticates with the persisted secret (a pass interrupted after creating it); otherwise it was made with a
 * secret nobody holds, and is deleted and made again.
 */
export async function ensureApplicationCredential(
  keystone: IdentityClient<'identity'>,
  userID: string,
  create: ApplicationCredentialCreate & { readonly secret: string },
  recordedID: string | undefined,
  authenticates: (id: string) => Promise<boolean>,
): Promise<ApplicationCredential> {
  const found = await findApplicationCredentialByName(keystone, userID, create.name);
  if (found !== undefined && (found.id === recordedID || (await authenticates(found.id)))) return found;
  if (found !== undefined) await deleteApplicationCredential(keystone, userID, found.id);
  return createApplicationCredential(keystone, userID, create);
}

export async function ensureServerGroup(
  compute: IdentityClient<'compute'>,
  name: string,
  policy: ServerGroupPolicy,
): Promise<ServerGroup> {
  return (await findServerGroupByName(compute, name)) ?? createServerGroup(compute, { name, policy });
}

/**
 * The identity keypair holding the record's public key. A keypair under the name with another key is replaced:
 * servers are created with the key the record holds. When the record's key cannot be read as OpenSSH (a record
 * upstream wrote), an existing keypair is left as it is, and a missing one is made from a new key (`newKey`
 * generates and persists it first).
 */
export async function ensureKeypair(
  compute: IdentityClient<'compute'>,
  publicKey: string | undefined,
  newKey: () => Promise<string>,
): Promise<Keypair> {
  const found = await getKeypairOrUndefined(compute);
  if (found !== undefined && (publicKey === undefined || sameKey(found.public_key, publicKey))) return found;
  if (found !== undefined) await deleteKeypair(compute, IDENTITY_KEYPAIR_NAME);
  const key = publicKey ?? (await newKey());
  return createKeypair(compute, { name: IDENTITY_KEYPAIR_NAME, public_key: key, type: 'ssh' });
}

const sameKey = (a: string, b: string): boolean => publicKeyMaterial(a) === publicKeyMaterial(b);

async function getKeypairOrUndefined(compute: IdentityClient<'compute'>): Promise<Keypair | undefined> {
  try {
    return await getKeypair(compute, IDENTITY_KEYPAIR_NAME);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/**
 * Releases the floating IPs still allocated to the identity's project at teardown; returns their ids. A server or
 * load balancer finds its floating IP by the port it is attached to, so one whose port went out of band (deleted by
 * hand, or by Octavia with a load balancer deleted by hand) is found by nothing, and Neutron keeps it, address and
 * all, after the project is gone. Called once every workload is gone, when whatever the project holds is such a one.
 */
export async function releaseFloatingIPs(own: ProjectClients<'identity'>): Promise<string[]> {
  const neutron = own.client('network');
  try {
    await neutron.baseUrl();
  } catch (error) {
    if (error instanceof EndpointNotFoundError) return [];
    throw error;
  }
  const left = await listFloatingIPs(neutron, { projectID: own.projectID });
  for (const ip of left) {
    try {
      await deleteFloatingIP(neutron, ip.id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return left.map((ip) => ip.id);
}

/** What became of a project's `default` security group at teardown. */
type DefaultGroupRemoval =
  | { readonly kind: 'removed' | 'absent' }
  /** Neutron lets only an admin remove a `default` group (SecurityGroupCannotRemoveDefault), or policy refused. */
  | { readonly kind: 'refused'; readonly id: string };

/**
 * Removes the `default` security group Neutron makes in every project on first network use, which Neutron keeps when
 * the project is deleted. Called by the identity's teardown once every workload is gone (nothing else uses the
 * group then). Neutron refuses the removal to any credential but an admin; the caller reports that to operators
 * and goes on, as with the quotas above.
 */
export async function removeDefaultSecurityGroup(
  privileged: ProjectClients<'privileged'>,
): Promise<DefaultGroupRemoval> {
  const neutron = privileged.client('network');
  try {
    await neutron.baseUrl();
  } catch (error) {
    if (error instanceof EndpointNotFoundError) return { kind: 'absent' };
    throw error;
  }
  const groups = await listSecurityGroups(neutron, { name: 'default', projectID: privileged.projectID });
  const group = groups.find((g) => g.name === 'default' && g.project_id === privileged.projectID);
  if (group === undefined) return { kind: 'absent' };
  try {
    await deleteSecurityGroup(neutron, group.id);
    return { kind: 'removed' };
  } catch (error) {
    if (isNotFound(error)) return { kind: 'removed' };
    const cannot = error instanceof ConflictError && error.fault.type === 'SecurityGroupCannotRemoveDefault';
    if (cannot || error instanceof ForbiddenError) return { kind: 'refused', id: group.id };
    throw error;
  }
}

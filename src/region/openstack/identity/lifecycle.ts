/**
 * Identity create and delete (reference §5 "Trust / scoping"): a Keystone project in the managed domain, the region
 * user's `manager` role on it, unlimited quotas, a user with its roles, an application credential and clouds.yaml,
 * a Nova server group and the SSH keypair — and the OpenstackIdentity record, the one provider state persisted.
 *
 * Crash safety is the requirement everything here serves. Every step re-finds by name before it creates
 * (steps.ts); every secret is generated locally and persisted in the record before the call that uses it;
 * every id is saved right after the call that made it. A pass interrupted after any OpenStack call therefore
 * converges on the next one with exactly one project, user, application credential, server group and keypair, all
 * usable with the secrets the record holds.
 */
import type { Logger } from 'pino';
import type { Client } from '../../../kube/client.ts';
import { BadRequestError, isNotFound } from '../../../openstack/errors.ts';
import {
  deleteApplicationCredential,
  deleteProject,
  deleteUser,
  findApplicationCredentialByName,
  findProjectByName,
  findUserByName,
  getProject,
  listRoleAssignments,
  setUserPassword,
  type Project,
} from '../../../openstack/identity.ts';
import { deleteKeypair, deleteServerGroup, findServerGroupByName } from '../../../openstack/compute.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import { terminalOrThrow } from '../../provider/classify.ts';
import type { CallContext } from '../../provider/contract.ts';
import { ResourceKind, TransientError } from '../../provider/errors.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { CLOUD_NAME, IdentityRecords, base64, cloudsYaml } from './record.ts';
import { ensureIdentityQuotas } from './quotas.ts';
import { cryptoSecretSource, publicKeyOf, type IdentitySecretSource } from './secrets.ts';
import {
  ensureApplicationCredential,
  ensureKeypair,
  ensureProject,
  ensureRoles,
  ensureServerGroup,
  ensureUser,
  releaseFloatingIPs,
  removeDefaultSecurityGroup,
} from './steps.ts';
import { IDENTITY_KEYPAIR_NAME, identityName, organizationTag, projectTag } from '../names.ts';
import type { ManagerIdentityClient, ProjectClients } from '../principals.ts';
import type { InventoryCaches } from '../inventory/caches.ts';
import { markLeftBehind } from './default-group.ts';
import { deleteSnapshotImages } from './snapshots.ts';
import type { RegionContext } from '../registry.ts';

/**
 * An identity user's roles when the Region names none: upstream's. `manager` is deliberately absent: the region's
 * domain-manager credential may not grant it (deploy/policies), and the identity's credential is handed to tenants,
 * so it must not manage its own project; the region user already holds manager there by an inherited grant.
 */
export const DEFAULT_IDENTITY_ROLES: readonly string[] = ['member', 'load-balancer_member'];
/** What the region user must hold on each identity project for the privileged client's calls. */
const REGION_PROJECT_ROLE = 'manager';
const DEFAULT_SERVER_GROUP_POLICY = 'soft-anti-affinity';

export interface IdentityDeps {
  readonly kube: Client;
  readonly secrets?: IdentitySecretSource | undefined;
  readonly log?: Logger | undefined;
  /** The region's inventory caches: the snapshot images a teardown deletes leave the image list at once. */
  readonly inventory?: InventoryCaches;
  /** Told once per project whose `default` security group Neutron kept at teardown (counted on /metrics). */
  readonly onDefaultGroupLeftBehind?: ((region: string) => void) | undefined;
}

export async function createIdentity(
  region: RegionContext,
  deps: IdentityDeps,
  ctx: CallContext,
  identity: IdentityInput,
): Promise<Outcome<undefined>> {
  const { clients, config } = region;
  const { domainID, userID: regionUserID, authUrl } = clients.credentials;
  const source = deps.secrets ?? cryptoSecretSource;
  const log = (deps.log ?? silentLogger()).child({ identityID: identity.id });
  const records = new IdentityRecords(deps.kube, region.namespace);
  const name = identityName(identity.id);

  return guarded('create identity', ctx.signal, async (at) => {
    at('record');
    const prepared = await records.withSecrets(identity, source);
    const secrets = prepared.secrets;
    let record = prepared.record;
    const manager = clients.manager();

    at('project');
    const tags = [organizationTag(identity.organizationID), projectTag(identity.projectID)];
    const project = await ensureProject(manager, domainID, name, tags);
    record = await records.save(record, { projectID: project.id });

    at('region user role');
    await ensureRoles(manager, regionUserID, project.id, [REGION_PROJECT_ROLE]);

    at('quotas');
    await ensureIdentityQuotas(clients, project.id, log);

    at('user');
    const { user, created } = await ensureUser(manager, domainID, name, project.id, secrets.password);
    // A re-found user may hold another password (a lost record, an operator's reset): make it the record's again.
    if (!created) {
      at('user password');
      const auth = { type: 'password', user: { id: user.id }, password: secrets.password } as const;
      if (!(await clients.authenticates(auth))) await setUserPassword(manager, user.id, secrets.password);
    }
    record = await records.save(record, { userID: user.id });

    at('user roles');
    const roles = config.identity?.clusterRoles ?? DEFAULT_IDENTITY_ROLES;
    await ensureRoles(manager, user.id, project.id, roles);

    at('application credential');
    const own = clients.identity({ projectID: project.id, userID: user.id, password: secrets.password });
    const secret = secrets.applicationCredentialSecret;
    const credential = await ensureApplicationCredential(
      own.client('identity'),
      user.id,
      { name, roles: roles.map((role) => ({ name: role })), secret },
      record.spec.applicationCredentialID,
      (id) => clients.authenticates({ type: 'application_credential', id, secret }),
    ).catch((error: unknown) => {
      // Keystone can answer a token issued right after the grants without them (seen on Zed under load); the
      // grants are in place, so this is worth a retry with a fresh token, not a terminal refusal.
      if (!(error instanceof BadRequestError && error.body.includes('unassigned role'))) throw error;
      clients.forgetProject(project.id);
      throw new TransientError('application credential roles not yet in the identity token', {
        resource: ResourceKind.Identity,
        cause: error,
      });
    });
    record = await records.save(record, {
      applicationCredentialID: credential.id,
      cloud: CLOUD_NAME,
      cloudConfig: base64(cloudsYaml(authUrl, { id: credential.id, secret })),
    });

    at('server group');
    const policy = config.compute?.serverGroupPolicy ?? DEFAULT_SERVER_GROUP_POLICY;
    const group = await ensureServerGroup(own.client('compute'), name, policy);
    record = await records.save(record, { serverGroupID: group.id });

    at('keypair');
    await ensureKeypair(own.client('compute'), publicKeyOf(secrets.sshPrivateKey), async () => {
      const key = source.sshKeypair();
      record = await records.save(record, { sshPrivateKey: base64(key.privateKey) });
      return key.publicKey;
    });
    await records.save(record, { sshKeyName: IDENTITY_KEYPAIR_NAME });
    log.info({ projectID: project.id, userID: user.id }, 'identity provisioned');
  });
}

/**
 * Deletes in upstream's order — keypair, server group, application credential, user, project — then the record;
 * first any floating IP the project still holds, and before the user and project, the project's `default` security
 * group: Neutron would keep both for ever.
 * No record means nothing was ever made (the record is written before any OpenStack call). With a record, the
 * project and user are re-found by name when the record lacks their ids, so an interrupted create is cleaned up.
 */
export async function deleteIdentity(
  region: RegionContext,
  deps: IdentityDeps,
  ctx: CallContext,
  identity: IdentityInput,
): Promise<Outcome<undefined>> {
  const { clients } = region;
  const { domainID } = clients.credentials;
  const records = new IdentityRecords(deps.kube, region.namespace);
  const name = identityName(identity.id);
  const log = (deps.log ?? silentLogger()).child({ identityID: identity.id });

  return guarded('delete identity', ctx.signal, async (at) => {
    at('record');
    const record = await records.get(identity.id);
    if (record === undefined) return;
    const manager = clients.manager();

    at('project');
    const project = await findProject(manager, domainID, name, record.spec.projectID);
    at('user');
    const user = await findUserByName(manager, domainID, name);
    let own: ProjectClients<'identity'> | undefined;

    if (project !== undefined && user !== undefined && (await holdsAnyRole(manager, user.id, project.id))) {
      // Only a user with a role on the project can have made the credential, group and keypair (they come later).
      at('user password');
      const password = record.spec.password ?? (deps.secrets ?? cryptoSecretSource).password();
      const auth = { type: 'password', user: { id: user.id }, password } as const;
      if (!(await clients.authenticates(auth))) await setUserPassword(manager, user.id, password);
      own = clients.identity({ projectID: project.id, userID: user.id, password });

      at('floating IPs');
      const released = await releaseFloatingIPs(own);
      if (released.length > 0) {
        log.info({ projectID: project.id, floatingIPs: released }, 'released floating IPs no resource held any more');
      }
      at('keypair');
      await ignoreNotFound(deleteKeypair(own.client('compute'), IDENTITY_KEYPAIR_NAME));
      at('server group');
      const group = await findServerGroupByName(own.client('compute'), name);
      if (group !== undefined) await ignoreNotFound(deleteServerGroup(own.client('compute'), group.id));
      at('application credential');
      const credential = await findApplicationCredentialByName(own.client('identity'), user.id, name);
      if (credential !== undefined) {
        await ignoreNotFound(deleteApplicationCredential(own.client('identity'), user.id, credential.id));
      }
    }
    if (project !== undefined) {
      // Before the project goes: once it has, nothing but an admin can find or delete what it owned.
      at('snapshot images');
      const images = await deleteSnapshotImages(clients.privileged(project.id), identity.id);
      if (images.length > 0) {
        deps.inventory?.forgetImages(region, images);
        log.info({ projectID: project.id, imageIDs: images }, 'deleted the snapshot images the identity published');
      }
      at('default security group');
      const removal = await removeDefaultSecurityGroup(clients.privileged(project.id));
      if (removal.kind === 'refused') {
        // Tagged for `region gc` by the project's own member (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
        at('default security group tag');
        const neutron = (own ?? clients.privileged(project.id)).client('network');
        if (await markLeftBehind(neutron, removal.id, identity.id))
          deps.onDefaultGroupLeftBehind?.(region.region.metadata.name);
        log.warn(
          { projectID: project.id, securityGroupID: removal.id },
          "Neutron keeps the project's default security group: only an admin may remove it; it outlives the project " +
            'until `openregion region gc` removes it',
        );
      }
    }
    if (user !== undefined) {
      at('user');
      await ignoreNotFound(deleteUser(manager, user.id));
    }
    if (project !== undefined) {
      at('project');
      await ignoreNotFound(deleteProject(manager, project.id));
      clients.forgetProject(project.id);
    }
    at('record');
    await records.delete(identity.id);
  });
}

/** Runs a pass; an error becomes the catalogue's error (thrown) or a terminal outcome, naming the step it hit. */
async function guarded(
  operation: string,
  signal: AbortSignal,
  pass: (at: (step: string) => void) => Promise<void>,
): Promise<Outcome<undefined>> {
  let step = 'start';
  try {
    await pass((next) => {
      signal.throwIfAborted();
      step = next;
    });
    return Outcome.ok();
  } catch (error) {
    return terminalOrThrow(error, { resource: ResourceKind.Identity, operation: `${operation} (${step})` });
  }
}

async function findProject(
  manager: ManagerIdentityClient,
  domainID: string,
  name: string,
  projectID: string | undefined,
): Promise<Project | undefined> {
  if (projectID === undefined) return findProjectByName(manager, domainID, name);
  try {
    return await getProject(manager, projectID);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

async function holdsAnyRole(manager: ManagerIdentityClient, userID: string, projectID: string): Promise<boolean> {
  const held = await listRoleAssignments(manager, { userID: userID, projectID: projectID, effective: true });
  return held.length > 0;
}

async function ignoreNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/**
 * The `default` security groups Neutron keeps after an identity's teardown, and the operator path that removes them
 * (docs/adr/0038-leaks-snapshot-images-and-default-groups.md). Neutron makes a `default` group in every project and
 * lets only an admin delete it (docs/adr/0019-deletes-that-finish.md), so with the region's own credentials each
 * deleted identity leaves one behind. At teardown, before the project goes, the identity's own user tags its group
 * (`markLeftBehind`); `openregion region gc` then runs with admin credentials and deletes exactly the groups that
 * carry those tags and whose project Keystone no longer has (`collectLeftBehindDefaultGroups`).
 */
import { Counter, type Registry } from 'prom-client';
import { deleteQuotaSet as deleteVolumeQuota } from '../../../openstack/blockstorage.ts';
import { deleteQuotaSet as deleteComputeQuota } from '../../../openstack/compute.ts';
import { EndpointNotFoundError, isNotFound, ConflictError } from '../../../openstack/errors.ts';
import { getProject, type IdentityClient as KeystoneClient } from '../../../openstack/identity.ts';
import {
  addTag,
  deleteNetworkQuota,
  deleteSecurityGroup,
  getSecurityGroup,
  listSecurityGroups,
  type NetworkClient,
  type SecurityGroup,
} from '../../../openstack/network.ts';
import type { ComputeClient } from '../../../openstack/compute.ts';
import type { BlockStorageClient } from '../../../openstack/blockstorage.ts';
import { LEFT_BEHIND_TAG, leftBehindIdentityTag, parseLeftBehindIdentityTag } from '../names.ts';

/**
 * Tags the project's default group as left behind by `identityID`; true when it did not carry the tags before (the
 * first pass to see it refused), so a pass repeated after a crash counts it once.
 */
export async function markLeftBehind(neutron: NetworkClient, groupID: string, identityID: string): Promise<boolean> {
  const group = await getSecurityGroup(neutron, groupID);
  const wanted = [LEFT_BEHIND_TAG, leftBehindIdentityTag(identityID)];
  const missing = wanted.filter((tag) => !group.tags.includes(tag));
  for (const tag of missing) await addTag(neutron, 'security-groups', groupID, tag);
  return missing.length > 0;
}

/**
 * The counter of default groups teardowns left behind, per region, on `registry` (served on /metrics); the returned
 * function is the identity provider's `onDefaultGroupLeftBehind`. What `region gc` removed since is not subtracted:
 * the count is what the region's credentials could not clean up, for an alert on its rate.
 */
export function leftBehindCounter(registry: Registry): (region: string) => void {
  const counter = new Counter({
    name: 'openregion_region_default_security_groups_left_behind_total',
    help: "Projects' default security groups Neutron kept at identity teardown (only an admin may delete them; region gc does)",
    labelNames: ['region'],
    registers: [registry],
  });
  return (region) => {
    counter.inc({ region });
  };
}

/** One group `region gc` looked at. */
export interface LeftBehindGroup {
  readonly id: string;
  readonly projectID: string;
  /** The identity whose teardown left it, from its tag; undefined when the tag is missing or ambiguous. */
  readonly identityID: string | undefined;
}

export interface LeftBehindReport {
  /** Deleted (or, in a dry run, that would be). */
  readonly deleted: readonly LeftBehindGroup[];
  /** Carrying the marker but not provably ours and orphaned: left alone, with why. */
  readonly kept: readonly (LeftBehindGroup & { readonly why: string })[];
  /** Ours and orphaned, but Neutron refused the delete (a port of the gone project still uses it). */
  readonly failed: readonly (LeftBehindGroup & { readonly why: string })[];
}

/** Why a tagged group is not ours to delete, or undefined when it is: a pure reading of what gc saw. */
export function notOursBecause(group: SecurityGroup, projectExists: boolean): string | undefined {
  if (group.name !== 'default') return 'not a default group';
  if (!group.tags.includes(LEFT_BEHIND_TAG)) return 'no left-behind marker';
  if (identityOf(group) === undefined) return 'no single identity tag';
  if (projectExists) return 'its project still exists';
  return undefined;
}

function identityOf(group: SecurityGroup): string | undefined {
  const ids = group.tags.map(parseLeftBehindIdentityTag).filter((id) => id !== undefined);
  return ids.length === 1 ? ids[0] : undefined;
}

/** The admin clients gc runs with; compute and block storage also clear the gone project's quota records. */
interface AdminClients {
  readonly network: NetworkClient;
  readonly identity: KeystoneClient;
  readonly compute?: ComputeClient | undefined;
  readonly blockStorage?: BlockStorageClient | undefined;
}

/**
 * Lists the default groups carrying the left-behind marker (admin credentials: every project's) and deletes those
 * whose project Keystone no longer holds, after that project's Nova, Neutron and Cinder quota records (which the
 * services also keep past the project, and which the region's teardown may not delete either); with `dryRun`,
 * deletes nothing and reports what it would delete. Never deletes what it cannot prove is ours: the marker, one
 * identity tag, the name `default` and a project that is gone are all required. The group goes last, so a run cut
 * off anywhere leaves the proof for the next.
 */
export async function collectLeftBehindDefaultGroups(
  admin: AdminClients,
  options: { readonly dryRun: boolean },
): Promise<LeftBehindReport> {
  const tagged = await listSecurityGroups(admin.network, { name: 'default', tags: [LEFT_BEHIND_TAG] });
  const deleted: LeftBehindGroup[] = [];
  const kept: (LeftBehindGroup & { why: string })[] = [];
  const failed: (LeftBehindGroup & { why: string })[] = [];
  for (const group of tagged) {
    const seen = { id: group.id, projectID: group.project_id, identityID: identityOf(group) };
    const why = notOursBecause(group, await projectExists(admin.identity, group.project_id));
    if (why !== undefined) {
      kept.push({ ...seen, why });
      continue;
    }
    if (!options.dryRun) {
      try {
        await deleteQuotaRecords(admin, group.project_id);
        await deleteSecurityGroup(admin.network, group.id);
      } catch (error) {
        if (!isNotFound(error)) {
          if (!(error instanceof ConflictError)) throw error;
          failed.push({ ...seen, why: error.fault.message || error.fault.type || 'conflict' });
          continue;
        }
      }
    }
    deleted.push(seen);
  }
  return { deleted, kept, failed };
}

async function deleteQuotaRecords(admin: AdminClients, projectID: string): Promise<void> {
  const calls: [{ baseUrl(): Promise<string> } | undefined, () => Promise<void>][] = [
    [admin.network, () => deleteNetworkQuota(admin.network, projectID)],
    [admin.compute, () => (admin.compute ? deleteComputeQuota(admin.compute, projectID) : Promise.resolve())],
    [
      admin.blockStorage,
      () => (admin.blockStorage ? deleteVolumeQuota(admin.blockStorage, projectID) : Promise.resolve()),
    ],
  ];
  for (const [client, call] of calls) {
    if (client === undefined) continue;
    try {
      await client.baseUrl();
    } catch (error) {
      if (error instanceof EndpointNotFoundError) continue;
      throw error;
    }
    try {
      await call();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}

async function projectExists(keystone: KeystoneClient, projectID: string): Promise<boolean> {
  try {
    await getProject(keystone, projectID);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/**
 * A region Volume in Cinder (docs/spec/openstack-provider.md §Cinder Volume create/delete): `volume-{id}` in the
 * identity's project, made with the IDENTITY client (the identity's own user in its project: a workload call). Create
 * lists by that name and exact-matches before it submits, so a retried pass adopts the volume an earlier one made; the
 * rows are decide.ts.
 */
import * as cinder from '../../../openstack/blockstorage.ts';
import { ResourceConflictError, ResourceConsistencyError, ResourceKind } from '../../provider/errors.ts';
import type { VolumeInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { VOLUME_DESCRIPTION, volumeMetadata, volumeName } from '../names.ts';
import type { IdentityClient, RegionClientSet } from '../principals.ts';
import type { RealisedIdentity, UserIdentity } from '../realised.ts';
import { gone, Steps } from '../steps.ts';
import { decideCreate, decideDelete, VOLUME_ERRORED_MESSAGE, VOLUME_ERRORED_REASON } from './decide.ts';

export interface VolumeDeps {
  readonly clients: RegionClientSet;
  readonly signal: AbortSignal;
  /** Told the row each pass took (for logs and metrics). */
  readonly observe?: ((operation: string, row: string) => void) | undefined;
}

type Cinder = IdentityClient<'block-storage'>;

export const cinderOf = (deps: Pick<VolumeDeps, 'clients'>, identity: UserIdentity): Cinder =>
  deps.clients.identity(identity.credentials).client('block-storage');

/** Operator-only detail of an errored volume: Cinder's id and status, never shown to the tenant. */
export class VolumeErroredDetail extends Error {
  constructor(volume: Pick<cinder.Volume, 'id' | 'status'>) {
    super(`cinder volume ${volume.id} is in status ${volume.status}`);
    this.name = 'VolumeErroredDetail';
  }
}

export async function createVolume(
  deps: VolumeDeps,
  identity: UserIdentity,
  volume: VolumeInput,
): Promise<Outcome<undefined>> {
  const client = cinderOf(deps, identity);
  const step = new Steps(deps.signal, 'create volume', ResourceKind.Volume);
  try {
    const found = await step.run('find volume', () => cinder.findVolumeByName(client, volumeName(volume.id)));
    const decision = decideCreate(found);
    deps.observe?.('create volume', decision.row);
    switch (decision.action) {
      case 'done':
        return Outcome.ok();
      case 'yield':
        return Outcome.yield(`${decision.row}/${found?.status ?? ''}`);
      case 'errored':
        return Outcome.terminal(VOLUME_ERRORED_REASON, VOLUME_ERRORED_MESSAGE, new VolumeErroredDetail(found ?? NONE));
      case 'create':
        await step.run('create volume', () => cinder.createVolume(client, volumeCreate(identity, volume)));
        // Accepted is partial progress: the volume is `creating` until a later read sees it available.
        return Outcome.yield('C1/accepted');
    }
  } catch (error) {
    return step.fail(error);
  }
}

/**
 * Delete re-finds by the same name: absent is done; an accepted delete yields until a later pass confirms absence. A
 * never-realised identity (undefined) proves no volume can exist (docs/spec/openstack-provider.md §Cinder Volume
 * create/delete).
 */
export async function deleteVolume(
  deps: VolumeDeps,
  identity: UserIdentity | undefined,
  volume: Pick<VolumeInput, 'id'>,
): Promise<Outcome<undefined>> {
  if (identity === undefined) return Outcome.ok();
  const client = cinderOf(deps, identity);
  const step = new Steps(deps.signal, 'delete volume', ResourceKind.Volume);
  try {
    const found = await step.run('find volume', () => cinder.findVolumeByName(client, volumeName(volume.id)));
    const decision = decideDelete(found);
    deps.observe?.('delete volume', decision.row);
    const id = found?.id ?? '';
    switch (decision.action) {
      case 'done':
        return Outcome.ok();
      case 'yield':
        return Outcome.yield(`${decision.row}/${found?.status ?? ''}`);
      case 'conflict':
        throw new ResourceConflictError(`delete volume: cinder volume ${id} is attached`, {
          resource: ResourceKind.Volume,
        });
      case 'inconsistent':
        throw new ResourceConsistencyError(`delete volume: cinder volume ${id} is in status error_deleting`, {
          resource: ResourceKind.Volume,
        });
      case 'delete':
        await step.run('delete volume', () => gone(cinder.deleteVolume(client, id)));
        return Outcome.yield('D4/accepted');
    }
  } catch (error) {
    return step.fail(error);
  }
}

const NONE = { id: '', status: '' };

/** Size and class straight from the spec; tags translated, linkage keys last and no legacy keys (names.ts). */
function volumeCreate(identity: RealisedIdentity, volume: VolumeInput): cinder.VolumeCreate {
  return {
    size: volume.sizeGiB,
    name: volumeName(volume.id),
    description: VOLUME_DESCRIPTION,
    volume_type: volume.volumeClassID,
    metadata: volumeMetadata(
      {
        volumeID: volume.id,
        organizationID: volume.organizationID,
        projectID: volume.projectID,
        regionID: volume.regionID,
        networkID: volume.networkID,
        identityID: identity.identityID,
      },
      volume.tags,
    ),
  };
}

/**
 * Existing-volume server attachments (docs/spec/openstack-provider.md §Existing-volume server attachments): a
 * project-scoped write path run as the identity's own user. Both sides are re-found by name — the Nova server by its
 * display name (exact post-filter), the Cinder volume by `volume-{id}` — and Cinder's attachment rows are the
 * observation before any Nova volume-attachment call.
 *
 * Deliberately asymmetric: attach needs both resources (missing → not found), while for detach anything already
 * absent means detached state holds. Only the guest device crosses the provider boundary.
 */
import * as cinder from '../../../openstack/blockstorage.ts';
import * as nova from '../../../openstack/compute.ts';
import { ConflictError, NotFoundError } from '../../../openstack/errors.ts';
import { ResourceConflictError, ResourceKind, ResourceNotFoundError } from '../../provider/errors.ts';
import type { AttachmentInput, ServerInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { ServerVolumeAttachment } from '../../provider/types.ts';
import { volumeName } from '../names.ts';
import { findServer } from '../server/find.ts';
import { Steps } from '../steps.ts';
import { decideAttach, decideDetach, VOLUME_ERRORED_MESSAGE, VOLUME_ERRORED_REASON } from './decide.ts';
import { cinderOf, VolumeErroredDetail, type VolumeDeps } from './lifecycle.ts';
import type { UserIdentity } from '../realised.ts';
import { defined } from '../../../util/defined.ts';

export type AttachServer = Pick<ServerInput, 'id' | 'name'>;
type AttachVolume = AttachmentInput;

const attachment = { resource: ResourceKind.VolumeAttachment };

export async function attachVolume(
  deps: VolumeDeps,
  identity: UserIdentity,
  server: AttachServer,
  volume: AttachVolume,
): Promise<Outcome<ServerVolumeAttachment>> {
  const compute = deps.clients.identity(identity.credentials).client('compute');
  const step = new Steps(deps.signal, 'attach volume', ResourceKind.VolumeAttachment);
  try {
    const found = await step.run('find server', () => findServer(compute, server));
    if (found === undefined) {
      throw new ResourceNotFoundError(`attach volume: no nova server ${server.name}`, {
        resource: ResourceKind.Server,
      });
    }
    const block = cinderOf(deps, identity);
    const vol = await step.run('find volume', () => cinder.findVolumeByName(block, volumeName(volume.id)));
    if (vol === undefined) {
      throw new ResourceNotFoundError(`attach volume: no cinder volume ${volumeName(volume.id)}`, {
        resource: ResourceKind.Volume,
      });
    }
    const decision = decideAttach(vol, found.id, found);
    deps.observe?.('attach volume', decision.row);
    switch (decision.action) {
      case 'done':
        return Outcome.done(deviceOf(decision.device));
      case 'conflict':
        throw new ResourceConflictError(`attach volume: cinder volume ${vol.id} is attached to another server`, {
          ...attachment,
        });
      case 'errored':
        return Outcome.terminal(VOLUME_ERRORED_REASON, VOLUME_ERRORED_MESSAGE, new VolumeErroredDetail(vol));
      case 'yield':
        return Outcome.yield(decision.row === 'A0' ? `A0/${found.status}` : `${decision.row}/${vol.status}`);
      case 'attach':
        return await step.run('create nova attachment', () =>
          createAttachment(compute, found.id, vol.id, volume.device),
        );
    }
  } catch (error) {
    return step.fail(error);
  }
}

/** Nova create; a 409 is followed by exactly one attachment read, so a concurrent identical attach is success. */
async function createAttachment(
  compute: nova.ComputeClient,
  serverID: string,
  volumeID: string,
  device: string | undefined,
): Promise<Outcome<ServerVolumeAttachment>> {
  try {
    await nova.attachVolume(compute, serverID, { volumeId: volumeID, ...defined({ device }) });
    // Accepted, not attached: Cinder reports the attachment (row A1) once it completes.
    return Outcome.yield('A4/accepted');
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    let read: nova.VolumeAttachment;
    try {
      read = await nova.getVolumeAttachment(compute, serverID, volumeID);
    } catch (readError) {
      if (!(readError instanceof NotFoundError)) throw readError;
      throw new ResourceConflictError('attach volume: nova refused the attach and holds no such attachment', {
        ...attachment,
        cause: error,
      });
    }
    return Outcome.done(deviceOf(read.device ?? undefined));
  }
}

/** A never-realised identity (undefined) has nothing attached: a no-op, as the other teardown paths. */
export async function detachVolume(
  deps: VolumeDeps,
  identity: UserIdentity | undefined,
  server: AttachServer,
  volume: Pick<AttachVolume, 'id'>,
): Promise<Outcome<undefined>> {
  if (identity === undefined) return Outcome.ok();
  const compute = deps.clients.identity(identity.credentials).client('compute');
  const step = new Steps(deps.signal, 'detach volume', ResourceKind.VolumeAttachment);
  try {
    const found = await step.run('find server', () => findServer(compute, server));
    if (found === undefined) return Outcome.ok();
    const block = cinderOf(deps, identity);
    const vol = await step.run('find volume', () => cinder.findVolumeByName(block, volumeName(volume.id)));
    if (vol === undefined) return Outcome.ok();
    const decision = decideDetach(vol, found.id);
    deps.observe?.('detach volume', decision.row);
    switch (decision.action) {
      case 'done':
        return Outcome.ok();
      case 'yield':
        return Outcome.yield(`${decision.row}/${vol.status}`);
      case 'detach':
        return await step.run('delete nova attachment', () => deleteAttachment(compute, found.id, vol.id));
    }
  } catch (error) {
    return step.fail(error);
  }
}

/** A 404 is success (detached already holds); a 409 is a conflict; anything else is left to classify. */
async function deleteAttachment(
  compute: nova.ComputeClient,
  serverID: string,
  volumeID: string,
): Promise<Outcome<undefined>> {
  try {
    await nova.detachVolume(compute, serverID, volumeID);
    return Outcome.yield('X3/accepted');
  } catch (error) {
    if (error instanceof NotFoundError) return Outcome.ok();
    if (error instanceof ConflictError) {
      throw new ResourceConflictError('detach volume: nova refused the detach', { ...attachment, cause: error });
    }
    throw error;
  }
}

const deviceOf = (device: string | undefined): ServerVolumeAttachment => (device ? { device } : {});

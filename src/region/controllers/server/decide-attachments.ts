/**
 * A server's volume attachments as pure decisions (docs/spec/openstack-provider.md §Existing-volume server
 * attachments: "attachment intent and observed rows remain on Server.Spec.Volumes and Server.Status.Volumes"). The
 * provider attaches and detaches; what this side adds is the claim: before its first attach a server claims the
 * Volume (`spec.claimRef` and a reference finalizer on it), so no second server can take it and the Volume's deletion
 * waits until the server has detached and released it.
 *
 * The rows, for one volume in spec.volumes, decided from the stored Volume before any provider call:
 *
 *   V1  no such Volume                              → park   (a spec edit, or the Volume appearing, wakes it)
 *   V2  claimed by another server                   → park   (its release wakes this server)
 *   V3  unclaimed and being deleted                 → park
 *   V4  not Available yet                           → wait   (re-checked; its becoming Available wakes it too)
 *   V5  Available, unclaimed                        → claim, then attach
 *   V6  Available, claimed by this server           → attach
 *
 * Volumes attach in list order, one at a time: the first that is not attached yet holds the ones after it, so the
 * guest sees devices in the order the spec lists them. Detaches (a volume this server claims or reported that the
 * spec no longer names) go first.
 */
import type { ServerStatus } from '../../apis/server.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { defined } from '../../../util/defined.ts';

export type AttachmentRow = NonNullable<ServerStatus['volumes']>[number];

/** What the claim rows read of a stored Volume. */
export interface VolumeView {
  readonly id: string;
  readonly deleting: boolean;
  readonly available: boolean;
  /** The server whose claimRef the Volume carries. */
  readonly claimedBy: string | undefined;
}

/** Fixed, cause-neutral row messages. */
export const attachmentMessages = {
  attached: 'the volume is attached',
  attaching: 'the volume is being attached',
  detaching: 'the volume is being detached',
  queued: 'waiting for the volumes listed before it to attach',
  volumeNotReady: 'waiting for the volume to be provisioned',
  volumeNotFound: 'the volume does not exist',
  claimedElsewhere: 'the volume is attached to (or requested by) another server',
  volumeDeleting: 'the volume is being deleted',
  refused: 'the cloud refused the attachment (the volume may be attached elsewhere); retrying',
} as const;

/** The server's own message while any row is Errored: which one and why is in status.volumes. */
export const ATTACHMENT_PARKED_MESSAGE =
  'a volume in spec.volumes cannot be attached; status.volumes says which and why';
export const ATTACHMENT_PARKED_REASON = 'VolumeUnavailable';

type ClaimRow =
  | { readonly row: 'V1'; readonly action: 'park'; readonly message: string }
  | { readonly row: 'V2'; readonly action: 'park'; readonly message: string }
  | { readonly row: 'V3'; readonly action: 'park'; readonly message: string }
  | { readonly row: 'V4'; readonly action: 'wait'; readonly message: string }
  | { readonly row: 'V5'; readonly action: 'claim' }
  | { readonly row: 'V6'; readonly action: 'attach' };

export function decideClaim(volume: VolumeView | undefined, serverID: string): ClaimRow {
  if (volume === undefined) return { row: 'V1', action: 'park', message: attachmentMessages.volumeNotFound };
  if (volume.claimedBy !== undefined && volume.claimedBy !== serverID) {
    return { row: 'V2', action: 'park', message: attachmentMessages.claimedElsewhere };
  }
  const mine = volume.claimedBy === serverID;
  // A Volume this server holds stays attached while its deletion waits on the reference (the claim protects it).
  if (!mine && volume.deleting) return { row: 'V3', action: 'park', message: attachmentMessages.volumeDeleting };
  if (!volume.available) return { row: 'V4', action: 'wait', message: attachmentMessages.volumeNotReady };
  return mine ? { row: 'V6', action: 'attach' } : { row: 'V5', action: 'claim' };
}

/**
 * The volumes to detach: those this server claims or last reported that the spec no longer names, in the order
 * they were reported, then claimed.
 */
export function detachments(
  desired: readonly string[],
  claimed: readonly string[],
  reported: readonly AttachmentRow[],
): string[] {
  const wanted = new Set(desired);
  return [...new Set([...reported.map((r) => r.id), ...claimed])].filter((id) => !wanted.has(id));
}

/** spec.volumes without a repeated id (the first stays), for stores that do not enforce the list map. */
export function uniqueByID<T extends { readonly id: string }>(volumes: readonly T[]): T[] {
  const seen = new Set<string>();
  return volumes.filter((v) => !seen.has(v.id) && seen.add(v.id));
}

/** The row for a provider outcome of one attach. */
export function attachRow(id: string, outcome: Outcome<{ readonly device?: string }>): AttachmentRow {
  switch (outcome.kind) {
    case 'done':
      return {
        id,
        provisioningStatus: 'Provisioned',
        ...defined({ device: outcome.value.device }),
        message: attachmentMessages.attached,
      };
    case 'yield':
      return { id, provisioningStatus: 'Provisioning', message: attachmentMessages.attaching };
    case 'park':
    case 'terminal':
      return { id, provisioningStatus: 'Errored', message: outcome.message };
  }
}

export const erroredRow = (id: string, message: string): AttachmentRow => ({
  id,
  provisioningStatus: 'Errored',
  message,
});

export const waitingRow = (id: string, message: string): AttachmentRow => ({
  id,
  provisioningStatus: 'Provisioning',
  message,
});

export const detachingRow = (id: string): AttachmentRow => ({
  id,
  provisioningStatus: 'Deprovisioning',
  message: attachmentMessages.detaching,
});

/** How the attachments leave the server pass: all attached, some still moving, or one needing the user. */
export type AttachmentsVerdict = 'done' | 'yield' | 'park';

export function attachmentsVerdict(rows: readonly AttachmentRow[]): AttachmentsVerdict {
  if (rows.some((r) => r.provisioningStatus === 'Errored')) return 'park';
  return rows.every((r) => r.provisioningStatus === 'Provisioned') ? 'done' : 'yield';
}

/**
 * A server's volume attachments, the I/O around decide-attachments.ts: read the identity's Volumes fresh, detach
 * what the spec dropped (releasing each claim once detached), then claim and attach what it names, in order, each
 * through the provider's VolumeProvider. The result is the status.volumes rows (this reconciler's field) and how
 * the server pass should end; a provider failure is returned too, so the rows are written before the pass backs off.
 */
import { isConditionTrue } from '../../../kube/conditions.ts';
import type { Client } from '../../../kube/client.ts';
import type { Server } from '../../apis/server.ts';
import { conditionTypes, labels } from '../../apis/shared.ts';
import { serverClaimFinalizer, volumeType, type Volume } from '../../apis/volume.ts';
import type { CallContext, VolumeProvider } from '../../provider/contract.ts';
import { ResourceConflictError } from '../../provider/errors.ts';
import type { IdentityInput, ServerInput } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import {
  attachmentMessages,
  attachmentsVerdict,
  attachRow,
  decideClaim,
  detachingRow,
  detachments,
  erroredRow,
  uniqueByID,
  waitingRow,
  type AttachmentRow,
  type AttachmentsVerdict,
  type VolumeView,
} from './decide-attachments.ts';
import { defined } from '../../../util/defined.ts';

/** The provider calls attachments make. */
export type AttachmentLifecycle = Pick<VolumeProvider, 'attachVolume' | 'detachVolume'>;

interface AttachmentPass {
  readonly client: Client;
  readonly server: Server;
  readonly identity: IdentityInput;
  readonly input: ServerInput;
  /** Told each claim row the pass took (for the log). */
  readonly observe?: (row: string, volumeID: string) => void;
}

interface AttachmentsResult {
  readonly rows: AttachmentRow[];
  readonly verdict: AttachmentsVerdict;
  /** A provider call threw: write the rows, then fail the pass with it (backoff). */
  readonly failure?: Error;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The Volumes of the server's identity by id: a Volume of any other identity is one Nova cannot see. */
async function identityVolumes(client: Client, server: Server, identityID: string): Promise<Map<string, Volume>> {
  const { items } = await client.list(volumeType, {
    namespace: server.metadata.namespace ?? '',
    labelSelector: `${labels.identityID}=${identityID}`,
  });
  return new Map(items.map((v) => [v.metadata.name, v]));
}

const viewOf = (volume: Volume): VolumeView => ({
  id: volume.metadata.name,
  deleting: volume.metadata.deletionTimestamp !== undefined,
  available: isConditionTrue(volume.status?.conditions, conditionTypes.available),
  claimedBy: volume.spec.claimRef?.kind === 'Server' ? volume.spec.claimRef.id : undefined,
});

/** Sets the claim (claimRef and the reference finalizer) before the first attach; a lost race is a conflict. */
async function claim(client: Client, volume: Volume, serverID: string): Promise<void> {
  const finalizer = serverClaimFinalizer(serverID);
  const finalizers = volume.metadata.finalizers ?? [];
  await client.update(volumeType, {
    ...volume,
    metadata: {
      ...volume.metadata,
      finalizers: finalizers.includes(finalizer) ? finalizers : [...finalizers, finalizer],
    },
    spec: { ...volume.spec, claimRef: { kind: 'Server', id: serverID } },
  });
}

/** Removes this server's claim once the volume is detached; nothing to do for a claim it does not hold. */
async function release(client: Client, volume: Volume | undefined, serverID: string): Promise<void> {
  if (volume === undefined) return;
  const finalizer = serverClaimFinalizer(serverID);
  const finalizers = volume.metadata.finalizers ?? [];
  const claimed = volume.spec.claimRef?.id === serverID;
  if (!claimed && !finalizers.includes(finalizer)) return;
  const { claimRef, ...spec } = volume.spec;
  await client.update(volumeType, {
    ...volume,
    metadata: { ...volume.metadata, finalizers: finalizers.filter((f) => f !== finalizer) },
    spec: claimed || claimRef === undefined ? spec : { ...spec, claimRef },
  });
}

/** Detaches what the spec dropped, then claims and attaches what it names, in order. */
export async function reconcileAttachments(
  provider: AttachmentLifecycle,
  ctx: CallContext,
  pass: AttachmentPass,
): Promise<AttachmentsResult> {
  const { client, server, identity, input } = pass;
  const serverID = server.metadata.name;
  const reported = server.status?.volumes ?? [];
  const desired = uniqueByID(server.spec.volumes ?? []);
  const stored = await identityVolumes(client, server, identity.id);
  const claimed = [...stored.values()].filter((v) => viewOf(v).claimedBy === serverID).map((v) => v.metadata.name);
  const rows: AttachmentRow[] = [];
  const result = (failure?: unknown): AttachmentsResult => ({
    rows,
    verdict: attachmentsVerdict(rows),
    ...(failure === undefined ? {} : { failure: asError(failure) }),
  });

  for (const id of detachments(
    desired.map((v) => v.id),
    claimed,
    reported,
  )) {
    let outcome: Outcome<undefined>;
    try {
      outcome = await provider.detachVolume(ctx, identity, input, { id });
    } catch (error) {
      rows.push(detachingRow(id));
      return result(error);
    }
    if (outcome.kind === 'done') await release(client, stored.get(id), serverID);
    else rows.push(outcome.kind === 'yield' ? detachingRow(id) : erroredRow(id, outcome.message));
  }

  let blocked = false;
  for (const want of desired) {
    if (blocked) {
      rows.push(waitingRow(want.id, attachmentMessages.queued));
      continue;
    }
    const volume = stored.get(want.id);
    const decision = decideClaim(volume === undefined ? undefined : viewOf(volume), serverID);
    pass.observe?.(decision.row, want.id);
    if (decision.action === 'park' || decision.action === 'wait') {
      rows.push(
        decision.action === 'park' ? erroredRow(want.id, decision.message) : waitingRow(want.id, decision.message),
      );
      blocked = true;
      continue;
    }
    if (decision.action === 'claim' && volume !== undefined) await claim(client, volume, serverID);
    let outcome: Outcome<{ readonly device?: string }>;
    try {
      outcome = await provider.attachVolume(ctx, identity, input, {
        id: want.id,
        ...defined({ device: want.device }),
      });
    } catch (error) {
      const conflict = error instanceof ResourceConflictError;
      rows.push(
        conflict
          ? erroredRow(want.id, attachmentMessages.claimedElsewhere)
          : waitingRow(want.id, attachmentMessages.attaching),
      );
      return result(error);
    }
    const row = attachRow(want.id, outcome);
    rows.push(row);
    blocked = row.provisioningStatus !== 'Provisioned';
  }
  return result();
}

/**
 * Before the server goes: detach every volume it claims or reported, releasing each claim; yields until all are
 * detached, so Nova never deletes a server with a volume still on it and no claim outlives its server.
 */
export async function detachAll(
  provider: AttachmentLifecycle,
  ctx: CallContext,
  pass: AttachmentPass,
): Promise<Outcome<undefined>> {
  const { client, server, identity, input } = pass;
  const serverID = server.metadata.name;
  const stored = await identityVolumes(client, server, identity.id);
  const claimed = [...stored.values()].filter((v) => viewOf(v).claimedBy === serverID).map((v) => v.metadata.name);
  let pending = false;
  for (const id of detachments([], claimed, server.status?.volumes ?? [])) {
    const outcome = await provider.detachVolume(ctx, identity, input, { id });
    if (outcome.kind === 'done') await release(client, stored.get(id), serverID);
    else if (outcome.kind === 'yield') pending = true;
    else return outcome;
  }
  return pending ? Outcome.yield('volumes-detaching') : Outcome.ok();
}

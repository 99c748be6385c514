/**
 * The Cinder volume and attachment rows (docs/spec/openstack-provider.md §Cinder Volume create/delete and
 * docs/spec/openstack-provider.md §Existing-volume server attachments), as pure functions of one fresh Cinder read.
 * Each row has a stable id that the pass logs; the I/O around them (volume.ts, attachment.ts) performs at most the one
 * action a row names.
 *
 * Status classes: Cinder's `status` is a free string. A status beginning with `error` is terminal for a create
 * (the specified typed Errored); every status this table does not name yields, so an unfamiliar provider state is
 * never mistaken for convergence.
 */
import type { Volume } from '../../../openstack/blockstorage.ts';

/**
 * The tenant-safe message of an errored volume (fixed text, docs/spec/openstack-provider.md §Cinder Volume
 * create/delete; raw detail stays operator-only).
 */
export const VOLUME_ERRORED_MESSAGE = 'provider volume entered an error state';
export const VOLUME_ERRORED_REASON = 'Errored';

const isErrorStatus = (status: string): boolean => status.startsWith('error');

/** Statuses a settled, existing volume can be in: created, and perhaps attached since. */
const SETTLED: ReadonlySet<string> = new Set(['available', 'in-use']);

/** Cinder deletes a volume only in these statuses (cinder/volume/api.py `delete`, without force). */
const DELETABLE: ReadonlySet<string> = new Set([
  'available',
  'error',
  'error_restoring',
  'error_extending',
  'error_managing',
]);

type CreateRow =
  | { readonly row: 'C1'; readonly action: 'create' }
  | { readonly row: 'C2'; readonly action: 'done' }
  | { readonly row: 'C3'; readonly action: 'errored' }
  | { readonly row: 'C4'; readonly action: 'yield' };

/** C1 absent → create; C2 available or in-use → done; C3 `error…` → terminal; C4 anything else → yield. */
export function decideCreate(found: Pick<Volume, 'status'> | undefined): CreateRow {
  if (found === undefined) return { row: 'C1', action: 'create' };
  if (SETTLED.has(found.status)) return { row: 'C2', action: 'done' };
  if (isErrorStatus(found.status)) return { row: 'C3', action: 'errored' };
  return { row: 'C4', action: 'yield' };
}

type DeleteRow =
  | { readonly row: 'D1'; readonly action: 'done' }
  | { readonly row: 'D2'; readonly action: 'yield' }
  | { readonly row: 'D3'; readonly action: 'conflict' }
  | { readonly row: 'D4'; readonly action: 'delete' }
  | { readonly row: 'D5'; readonly action: 'inconsistent' }
  | { readonly row: 'D6'; readonly action: 'yield' };

/**
 * D1 absent → done; D2 `deleting` → yield until a later read confirms absence; D3 attached → conflict (a server
 * still holds it: retried with backoff until its detach); D4 deletable → delete, then yield; D5 `error_deleting`
 * → consistency error (Cinder refuses a plain delete; an operator must look); D6 anything else → yield.
 */
export function decideDelete(found: Pick<Volume, 'status' | 'attachments'> | undefined): DeleteRow {
  if (found === undefined) return { row: 'D1', action: 'done' };
  if (found.status === 'deleting') return { row: 'D2', action: 'yield' };
  if (found.attachments.length > 0 || found.status === 'in-use') return { row: 'D3', action: 'conflict' };
  if (DELETABLE.has(found.status)) return { row: 'D4', action: 'delete' };
  if (found.status === 'error_deleting') return { row: 'D5', action: 'inconsistent' };
  return { row: 'D6', action: 'yield' };
}

/** The Nova statuses attach_volume accepts (nova/compute/api.py `check_instance_state` on attach), with no task. */
const ATTACHABLE: ReadonlySet<string> = new Set([
  'ACTIVE',
  'PAUSED',
  'SHUTOFF',
  'VERIFY_RESIZE',
  'SOFT_DELETED',
  'SHELVED',
  'SHELVED_OFFLOADED',
]);

/** What attach reads of the Nova server: whether Nova would take an attachment now. */
interface AttachTarget {
  readonly status: string;
  readonly 'OS-EXT-STS:task_state'?: string | null | undefined;
}

const takesAttachment = (server: AttachTarget): boolean =>
  ATTACHABLE.has(server.status) && (server['OS-EXT-STS:task_state'] ?? null) === null;

type AttachRow =
  | { readonly row: 'A0'; readonly action: 'yield' }
  | { readonly row: 'A1'; readonly action: 'done'; readonly device: string | undefined }
  | { readonly row: 'A2'; readonly action: 'conflict' }
  | { readonly row: 'A3'; readonly action: 'errored' }
  | { readonly row: 'A4'; readonly action: 'attach' }
  | { readonly row: 'A5'; readonly action: 'yield' };

/**
 * Cinder's attachment rows are the observation (docs/spec/openstack-provider.md §Existing-volume server attachments):
 * A1 attached to this server → done with its device, no Nova read; A2 attached to any other server → conflict (no
 * multi-attach, even for a multiattach volume); with no attachment, A3 `error…` → terminal; A0 the server is in no
 * state Nova attaches in (building, or a task holds it) → yield, since Nova would answer 409 and the server settles
 * on its own; A4 available → Nova create; A5 anything else (attaching, reserved, detaching, creating …) → yield:
 * Nova refuses those with a 400, and the in-flight change settles on its own.
 */
export function decideAttach(
  volume: Pick<Volume, 'status' | 'attachments'>,
  serverID: string,
  server: AttachTarget = { status: 'ACTIVE' },
): AttachRow {
  const mine = volume.attachments.find((a) => a.server_id === serverID);
  if (mine !== undefined) return { row: 'A1', action: 'done', device: mine.device || undefined };
  if (volume.attachments.length > 0) return { row: 'A2', action: 'conflict' };
  if (isErrorStatus(volume.status)) return { row: 'A3', action: 'errored' };
  if (!takesAttachment(server)) return { row: 'A0', action: 'yield' };
  if (volume.status === 'available') return { row: 'A4', action: 'attach' };
  return { row: 'A5', action: 'yield' };
}

type DetachRow =
  | { readonly row: 'X1'; readonly action: 'done' }
  | { readonly row: 'X2'; readonly action: 'yield' }
  | { readonly row: 'X3'; readonly action: 'detach' };

/**
 * X1 no attachment to this server (none at all, or only to another server) → done: detached already holds; X2
 * attached here but already `detaching` → yield (a second Nova delete would be refused); X3 attached here → Nova
 * delete, then yield until Cinder no longer reports the attachment.
 */
export function decideDetach(volume: Pick<Volume, 'status' | 'attachments'>, serverID: string): DetachRow {
  if (!volume.attachments.some((a) => a.server_id === serverID)) return { row: 'X1', action: 'done' };
  if (volume.status === 'detaching') return { row: 'X2', action: 'yield' };
  return { row: 'X3', action: 'detach' };
}

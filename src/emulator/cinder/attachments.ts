/**
 * The attachments API (3.27+): a reservation without a connector leaves the volume `reserved`; deleting the last
 * record returns it to `available`. Cinder honours `limit` here but sends no links, and the emulator does too.
 */
import { mayAccessProject, type AuthContext } from '../auth.ts';
import { json } from '../http.ts';
import { objectAt, stringAt, type JsonObject } from '../json.ts';
import { badRequest, notFound, type CinderApi } from './api.ts';
import type { CAttachment } from './state.ts';
import { cinderTime, setStatus, volumeFor } from './volumes.ts';

const ATTACHMENTS_MINOR = 27;

function summary(a: CAttachment): JsonObject {
  return { id: a.id, volume_id: a.volumeId, instance: a.instance, status: a.status };
}

function detail(a: CAttachment): JsonObject {
  return {
    ...summary(a),
    attached_at: a.attachedAt === null ? '' : cinderTime(a.attachedAt),
    detached_at: '',
    attach_mode: a.status === 'reserved' ? 'null' : 'rw',
    connection_info: a.status === 'reserved' ? null : { driver_volume_type: 'fake' },
  };
}

/** Drops an attachment record; a volume left with none is available again. */
export function dropAttachment(api: CinderApi, a: CAttachment): void {
  api.state.attachments.delete(a.id);
  const volume = api.state.volumes.get(a.volumeId);
  if (volume && ![...api.state.attachments.values()].some((x) => x.volumeId === volume.id)) {
    setStatus(api, volume, 'available');
  }
}

export function registerAttachments(api: CinderApi): void {
  const { state } = api;
  const attachmentFor = (auth: AuthContext, id: string): CAttachment => {
    const a = state.attachments.get(id);
    if (!a || !mayAccessProject(auth, a.projectId)) throw notFound(`VolumeAttachment ${id} could not be found.`);
    return a;
  };
  const list =
    (view: (a: CAttachment) => JsonObject) =>
    (req: { query: URLSearchParams }, { auth }: { auth: AuthContext }) => {
      const volumeID = req.query.get('volume_id');
      const instanceID = req.query.get('instance_id');
      const limit = Number(req.query.get('limit') ?? 1000);
      const rows = [...state.attachments.values()].filter(
        (a) =>
          mayAccessProject(auth, a.projectId) &&
          (volumeID === null || a.volumeId === volumeID) &&
          (instanceID === null || a.instance === instanceID),
      );
      return json({ attachments: rows.slice(0, limit).map(view) });
    };
  api.route('GET', '/attachments', list(summary), ATTACHMENTS_MINOR);
  api.route('GET', '/attachments/detail', list(detail), ATTACHMENTS_MINOR);
  api.route(
    'GET',
    '/attachments/{attachment_id}',
    (req, { auth }) => json({ attachment: detail(attachmentFor(auth, req.params.attachment_id ?? '')) }),
    ATTACHMENTS_MINOR,
  );
  api.route(
    'POST',
    '/attachments',
    (req, { auth }) => {
      const body = objectAt(req.body, 'attachment');
      const volume = volumeFor(api, auth, stringAt(body, 'volume_uuid') ?? '');
      if (
        !['available', 'reserved', 'in-use'].includes(volume.status) ||
        (volume.status !== 'available' && !volume.multiattach)
      ) {
        throw badRequest(
          `Invalid volume: Volume ${volume.id} status must be available or downloading to reserve, but the current status is ${volume.status}.`,
        );
      }
      const a: CAttachment = {
        id: api.ctx.newID(),
        volumeId: volume.id,
        projectId: volume.projectId,
        instance: stringAt(body, 'instance_uuid') ?? null,
        status: 'reserved',
        device: null,
        attachedAt: null,
      };
      state.attachments.set(a.id, a);
      setStatus(api, volume, 'reserved');
      return json({ attachment: detail(a) });
    },
    ATTACHMENTS_MINOR,
  );
  api.route(
    'DELETE',
    '/attachments/{attachment_id}',
    (req, { auth }) => {
      const a = attachmentFor(auth, req.params.attachment_id ?? '');
      dropAttachment(api, a);
      return json({ attachments: [] });
    },
    ATTACHMENTS_MINOR,
  );
}

/** Volume attachments, through the volume lookup: a volume the caller cannot see is Nova's 404 VolumeNotFound. */
import { json, type EmuRequest } from '../http.ts';
import { booleanAt, objectAt, stringAt } from '../json.ts';
import { badRequest, conflict, notFound, serverFor, type NovaApi, type NovaCall } from './api.ts';
import { atLeast } from './microversion.ts';
import type { NAttachment, NServer } from './state.ts';

export function registerAttachments(api: NovaApi): void {
  const base = '/servers/{server_id}/os-volume_attachments';
  const view = (server: NServer, a: NAttachment, call: NovaCall) => ({
    device: a.device,
    serverId: server.id,
    volumeId: a.volumeId,
    ...(atLeast(call.mv, 89) ? {} : { id: a.volumeId }),
    ...(atLeast(call.mv, 70) ? { tag: a.tag } : {}),
    ...(atLeast(call.mv, 79) ? { delete_on_termination: a.deleteOnTermination } : {}),
    ...(atLeast(call.mv, 89) ? { attachment_id: a.attachmentId, bdm_uuid: a.bdmId } : {}),
  });
  const attachment = (req: EmuRequest, server: NServer): NAttachment => {
    const volumeID = req.params.volume_id ?? '';
    const found = server.attachments.find((a) => a.volumeId === volumeID);
    if (!found) throw notFound(`volume_id not found: ${volumeID}`);
    return found;
  };

  api.route('GET', base, (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    const offset = Number(req.query.get('offset') ?? 0);
    const limit = Number(req.query.get('limit') ?? 1000);
    const page = server.attachments.slice(offset, offset + limit);
    return json({ volumeAttachments: page.map((a) => view(server, a, call)) });
  });
  api.route('GET', `${base}/{volume_id}`, (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    return json({ volumeAttachment: view(server, attachment(req, server), call) });
  });
  api.route('POST', base, (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    const body = objectAt(req.body, 'volumeAttachment');
    const volumeID = stringAt(body, 'volumeId') ?? '';
    if (server.taskState !== null || !['active', 'stopped'].includes(server.vmState)) {
      throw conflict(`Cannot 'attach_volume' instance ${server.id} while it is in vm_state ${server.vmState}`);
    }
    const volume = api.lookups.volumes.find(call.auth, volumeID);
    if (!volume) throw notFound(`Volume ${volumeID} could not be found.`);
    if (server.attachments.some((a) => a.volumeId === volumeID))
      throw badRequest(`Invalid volume: volume ${volumeID} already attached`);
    if (volume.status !== 'available') throw badRequest(`Invalid volume: volume ${volumeID} status must be available`);
    const used = new Set(server.attachments.map((a) => a.device));
    let letter = 'b';
    while (used.has(`/dev/vd${letter}`)) letter = String.fromCharCode(letter.charCodeAt(0) + 1);
    const a: NAttachment = {
      volumeId: volumeID,
      attachmentId: api.ctx.newID(),
      bdmId: api.ctx.newID(),
      device: `/dev/vd${letter}`,
      tag: stringAt(body, 'tag') ?? null,
      deleteOnTermination: booleanAt(body, 'delete_on_termination') ?? false,
    };
    server.attachments.push(a);
    api.lookups.volumes.attach(volumeID, server.id, a.attachmentId, a.device);
    // Real Nova answers the attach before the block device mapping exists: no attachment_id or bdm_uuid yet.
    const { attachment_id: _attachment, bdm_uuid: _bdm, ...accepted } = view(server, a, call);
    return json({ volumeAttachment: accepted });
  });
  api.route('DELETE', `${base}/{volume_id}`, (req, call) => {
    const server = serverFor(api, call, req.params.server_id ?? '');
    const a = attachment(req, server);
    server.attachments.splice(server.attachments.indexOf(a), 1);
    api.lookups.volumes.detach(a.volumeId, server.id);
    return json(undefined, 202);
  });
}

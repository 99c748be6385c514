/**
 * Volumes: created `creating` and `available` after the `cinder.create` delay (or `error` when the type names a
 * backend the emulator lacks, or a control asked for it), deleted through `deleting`; name, status and metadata
 * filters; `volumes_links` paging newest first; and the admin `os-reset_status` action.
 */
import { isAdmin, mayAccessProject, type AuthContext } from '../auth.ts';
import { novaFault } from '../faults.ts';
import { json } from '../http.ts';
import { isObject, isoMicros, numberAt, objectAt, stringAt, stringMapAt, type JsonObject } from '../json.ts';
import { BACKEND, badRequest, forbidden, notFound, page, PREFIX, type CinderApi } from './api.ts';
import type { CVolume } from './state.ts';

/** Cinder's timestamps: microseconds, no zone. */
export const cinderTime = (ms: number): string => isoMicros(ms).replace(/Z$/, '');

export function volumeFor(api: CinderApi, auth: AuthContext, id: string): CVolume {
  const volume = api.state.volumes.get(id);
  if (!volume || !mayAccessProject(auth, volume.projectId)) throw notFound(`Volume ${id} could not be found.`);
  return volume;
}

function volumeView(api: CinderApi, v: CVolume, auth: AuthContext): JsonObject {
  const type = api.state.types.get(v.typeId);
  const origin = api.ctx.origin();
  const view: JsonObject = {
    id: v.id,
    name: v.name,
    description: v.description,
    status: v.status,
    size: v.size,
    availability_zone: v.availabilityZone,
    created_at: cinderTime(v.createdAt),
    updated_at: v.updatedAt === null ? null : cinderTime(v.updatedAt),
    volume_type: type?.name ?? null,
    metadata: { ...v.metadata },
    bootable: 'false',
    encrypted: false,
    multiattach: v.multiattach,
    attachments: [...api.state.attachments.values()]
      // Cinder lists a volume's attachments while it is attached, detaching included (begin_detaching moves only
      // the volume's status); an attach still under way is not listed yet.
      .filter(
        (a) => a.volumeId === v.id && (a.status === 'attached' || a.status === 'detaching') && a.instance !== null,
      )
      .map((a) => ({
        id: v.id,
        attachment_id: a.id,
        volume_id: v.id,
        server_id: a.instance,
        host_name: null,
        device: a.device,
        attached_at: a.attachedAt === null ? null : cinderTime(a.attachedAt),
      })),
    links: [
      { rel: 'self', href: `${origin}${PREFIX}/${v.projectId}/volumes/${v.id}` },
      { rel: 'bookmark', href: `${origin}/volume/${v.projectId}/volumes/${v.id}` },
    ],
    user_id: v.userId,
    source_volid: null,
    snapshot_id: null,
    consistencygroup_id: null,
    replication_status: null,
  };
  if (isAdmin(auth)) {
    view['os-vol-tenant-attr:tenant_id'] = v.projectId;
    view['os-vol-host-attr:host'] = v.status === 'error' ? null : `devcloud@${BACKEND}#${BACKEND}`;
  }
  return view;
}

/** Cinder reads `metadata` as a dict literal: JSON, or Python's single-quoted form. */
function metadataFilter(text: string | null): Record<string, string> | undefined {
  if (text === null) return undefined;
  try {
    const parsed: unknown = JSON.parse(text.replaceAll("'", '"'));
    if (!isObject(parsed)) throw new Error('not a dict');
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    throw badRequest(`Invalid filter metadata: ${text}`);
  }
}

export function setStatus(api: CinderApi, volume: CVolume, status: string): void {
  volume.status = status;
  volume.updatedAt = api.ctx.clock.now();
  volume.op++;
}

export function registerVolumes(api: CinderApi): void {
  const { state } = api;
  const list =
    (detail: boolean) => (req: Parameters<Parameters<CinderApi['route']>[2]>[0], call: { auth: AuthContext }) => {
      const { auth } = call;
      const all = isAdmin(auth) && /^(1|true)$/i.test(req.query.get('all_tenants') ?? '');
      const name = req.query.get('name');
      const status = req.query.get('status');
      const metadata = metadataFilter(req.query.get('metadata'));
      const rows = [...state.volumes.values()]
        .filter((v) => (all ? true : v.projectId === auth.projectId))
        .filter((v) => name === null || v.name === name)
        .filter((v) => status === null || v.status === status)
        .filter((v) => metadata === undefined || Object.entries(metadata).every(([k, x]) => v.metadata[k] === x))
        // Cinder's default order: newest first.
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
        .map((v) => {
          const full = volumeView(api, v, auth);
          return { id: v.id, body: detail ? full : { id: v.id, name: v.name, links: full.links } };
        });
      return page(api.ctx, req, rows, 'volumes', 'volumes_links');
    };
  api.route('GET', '/volumes', list(false));
  api.route('GET', '/volumes/detail', list(true));
  api.route('GET', '/volumes/{volume_id}', (req, { auth }) =>
    json({ volume: volumeView(api, volumeFor(api, auth, req.params.volume_id ?? ''), auth) }),
  );
  api.route('POST', '/volumes', (req, { auth }) => {
    const body = objectAt(req.body, 'volume');
    const size = numberAt(body, 'size');
    if (!body || size === undefined || !Number.isInteger(size) || size < 1) {
      throw badRequest("Invalid input for field/attribute size. Value: None. None is not of type 'integer', 'string'");
    }
    const typeRef = stringAt(body, 'volume_type') ?? '__DEFAULT__';
    const type = state.typeByRef(typeRef);
    if (!type) throw notFound(`Volume type with name ${typeRef} could not be found.`);
    const projectID = auth.projectId ?? '';
    quotaCheck(api, projectID, size);
    const now = api.ctx.clock.now();
    const volume: CVolume = {
      id: api.ctx.newID(),
      projectId: projectID,
      userId: auth.userId,
      name: stringAt(body, 'name') ?? null,
      description: stringAt(body, 'description') ?? null,
      size,
      typeId: type.id,
      availabilityZone: stringAt(body, 'availability_zone') ?? 'nova',
      status: 'creating',
      metadata: stringMapAt(body, 'metadata') ?? {},
      createdAt: now,
      updatedAt: null,
      multiattach: false,
      op: 0,
    };
    if (volume.availabilityZone !== 'nova')
      throw badRequest(`Invalid input received: Availability zone '${volume.availabilityZone}' is invalid.`);
    state.volumes.set(volume.id, volume);
    // The scheduler finds no backend for a type that names one the emulator lacks, as on a real cloud.
    const backend = type.extraSpecs.volume_backend_name;
    const fails = state.failNextCreates > 0 || (backend !== undefined && backend !== BACKEND);
    if (state.failNextCreates > 0) state.failNextCreates--;
    api.later(volume, 'cinder.create', { status: fails ? 'error' : 'available' });
    return json({ volume: volumeView(api, volume, auth) }, 202);
  });
  api.route('PUT', '/volumes/{volume_id}', (req, { auth }) => {
    const volume = volumeFor(api, auth, req.params.volume_id ?? '');
    const body = objectAt(req.body, 'volume') ?? {};
    if ('name' in body) volume.name = stringAt(body, 'name') ?? null;
    if ('description' in body) volume.description = stringAt(body, 'description') ?? null;
    volume.metadata = stringMapAt(body, 'metadata') ?? volume.metadata;
    volume.updatedAt = api.ctx.clock.now();
    return json({ volume: volumeView(api, volume, auth) });
  });
  api.route('DELETE', '/volumes/{volume_id}', (req, { auth }) => {
    const volume = volumeFor(api, auth, req.params.volume_id ?? '');
    const attached = [...state.attachments.values()].some((a) => a.volumeId === volume.id);
    if (
      attached ||
      !['available', 'error', 'error_restoring', 'error_extending', 'error_managing'].includes(volume.status)
    ) {
      throw badRequest(
        'Invalid volume: Volume status must be available or error or error_restoring or error_extending or error_managing and must not be migrating, attached, belong to a group, have snapshots, awaiting a transfer, or be disassociated from snapshots after volume transfer.',
      );
    }
    setStatus(api, volume, 'deleting');
    api.later(volume, 'cinder.delete', {});
    return { status: 202 };
  });
  api.route('POST', '/volumes/{volume_id}/action', (req, { auth }) => {
    const volume = volumeFor(api, auth, req.params.volume_id ?? '');
    const reset = objectAt(req.body, 'os-reset_status');
    if (reset) {
      if (!isAdmin(auth)) throw forbidden('volume_extension:volume_admin_actions:reset_status');
      const status = stringAt(reset, 'status');
      if (status !== undefined) setStatus(api, volume, status);
      if (stringAt(reset, 'attach_status') === 'detached') {
        for (const a of [...state.attachments.values()]) if (a.volumeId === volume.id) state.attachments.delete(a.id);
      }
      return { status: 202 };
    }
    const extend = objectAt(req.body, 'os-extend');
    const newSize = numberAt(extend, 'new_size');
    if (newSize !== undefined) {
      if (volume.status !== 'available') throw badRequest('Invalid volume: Volume status must be available to extend.');
      if (newSize <= volume.size)
        throw badRequest('Invalid input received: New size for extend must be greater than current size.');
      volume.size = newSize;
      volume.updatedAt = api.ctx.clock.now();
      return { status: 202 };
    }
    throw badRequest('There is no such action: ' + Object.keys(isObject(req.body) ? req.body : {}).join(','));
  });
}

/** Cinder's 413 when a create would pass the project's volume count or gigabytes. */
function quotaCheck(api: CinderApi, projectID: string, size: number): void {
  const set = api.state.quotaSet(projectID);
  const mine = [...api.state.volumes.values()].filter((v) => v.projectId === projectID);
  const volumes = set.volumes ?? -1;
  const gigabytes = set.gigabytes ?? -1;
  if (volumes >= 0 && mine.length + 1 > volumes) {
    throw novaFault(
      413,
      `VolumeLimitExceeded: Maximum number of volumes allowed (${String(volumes)}) exceeded for quota 'volumes'.`,
    );
  }
  const used = mine.reduce((n, v) => n + v.size, 0);
  if (gigabytes >= 0 && used + size > gigabytes) {
    throw novaFault(
      413,
      `VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds allowed gigabytes quota. Requested ${String(size)}G, quota is ${String(gigabytes)}G and ${String(used)}G has been consumed.`,
    );
  }
}

/**
 * Cinder v3: volumes (the Region Volume lifecycle and server attachments), Cinder's own attachment records (to
 * remove a stale one), volume types (VolumeClass inventory), quota sets (unlimited at identity creation) and
 * availability zones. The catalog URL already holds `/v3/{project_id}`, so paths start below it.
 */
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { ServiceClient } from './session.ts';
import { toQuery, type QueryKeys } from './request.ts';
import { projectQuota, resource } from './resource.ts';

export type BlockStorageClient = ServiceClient<'block-storage'>;

/**
 * The attachments API arrived in 3.27. The session pins no volume microversion (volumes are read at the base
 * version), so only the attachment calls ask for it.
 */
export const ATTACHMENTS_MICROVERSION = '3.27';
const attachmentsHeaders = { 'OpenStack-API-Version': `volume ${ATTACHMENTS_MICROVERSION}` } as const;

// Volumes

/** A volume's attachment as the volume itself reports it (`volume.attachments[]`). */
export interface VolumeAttachment {
  /** The Cinder attachment record's id (what the attachments API deletes). */
  readonly attachment_id: string;
  /** The Nova server the volume is attached to. */
  readonly server_id: string;
  readonly device: string;
  readonly host_name: string | null;
  readonly volume_id: string;
  readonly attached_at?: string;
}

export interface Volume {
  readonly id: string;
  readonly name: string | null;
  readonly description?: string | null;
  /**
   * Cinder's lifecycle state: `creating`, `available`, `in-use`, `attaching`, `detaching`, `deleting`, `error`,
   * `error_deleting`, … Left a string on purpose: docs/spec/openstack-provider.md §Cinder Volume create/delete
   * classifies by prefix (`error…`) and yields on any state it does not recognise.
   */
  readonly status: string;
  /** GiB. */
  readonly size: number;
  readonly volume_type: string | null;
  readonly availability_zone: string | null;
  /** Cinder sends this as the string `"true"` or `"false"`. */
  readonly bootable: string;
  readonly multiattach: boolean;
  readonly metadata: Readonly<Record<string, string>>;
  readonly attachments: readonly VolumeAttachment[];
  readonly created_at: string;
  readonly updated_at: string | null;
}

/** The create body (wire names: Cinder spells the image reference `imageRef`). */
export interface VolumeCreate {
  /** GiB. */
  readonly size: number;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** A volume type name or id; the Region VolumeClassID. */
  readonly volume_type?: string | undefined;
  readonly availability_zone?: string | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  readonly imageRef?: string | undefined;
}

interface VolumeFilter {
  /** Cinder's name filter; treated as fuzzy, so lookups post-filter (see findVolumeByName). */
  readonly name?: string | undefined;
  readonly status?: string | undefined;
  /** Volumes carrying all of these metadata pairs. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

const volumeKeys: QueryKeys<VolumeFilter> = {
  name: 'name',
  status: 'status',
  // Cinder reads this parameter as a literal dict, `{"k": "v"}`, which JSON satisfies.
  metadata: {
    name: 'metadata',
    encode: (metadata) => (Object.keys(metadata).length === 0 ? undefined : JSON.stringify(metadata)),
  },
};

/**
 * Volumes are listed in detail, in the client's own project: `all_tenants` is never sent, so an admin credential
 * still only sees the project it is scoped to. They are found by their name, `volume-{id}`
 * (docs/spec/openstack-provider.md §Deterministic names and metadata).
 */
const volumes = resource<BlockStorageClient, Volume, VolumeFilter, VolumeCreate>({
  path: '/volumes',
  listPath: '/volumes/detail',
  envelope: 'volume',
  keys: volumeKeys,
  style: pageStyleFor('block-storage', 'volumes'),
});
export const { create: createVolume, get: getVolume, list: listVolumes, findByName: findVolumeByName } = volumes;

interface DeleteVolumeOptions {
  /** Delete the volume's snapshots with it. */
  readonly cascade?: boolean | undefined;
}

/** Accepted asynchronously (202): the volume goes through `deleting` before it disappears. */
export async function deleteVolume(
  cinder: BlockStorageClient,
  volumeID: string,
  options: DeleteVolumeOptions = {},
): Promise<void> {
  await cinder.request({
    method: 'DELETE',
    path: '/volumes/{volume_id}',
    params: { volume_id: volumeID },
    query: { cascade: options.cascade === true ? true : undefined },
  });
}

// Attachments as Cinder records them (microversion 3.27)

/** A Cinder attachment record; `instance` is the Nova server id, null while only reserved. */
export interface Attachment {
  readonly id: string;
  readonly volume_id: string;
  readonly instance: string | null;
  /** `attached`, `attaching`, `detached`, `reserved`, `error_attaching`, `error_detaching`, `deleted`. */
  readonly status: string;
}

interface AttachmentFilter {
  readonly volumeID?: string | undefined;
  /** The Nova server id. */
  readonly instanceID?: string | undefined;
}

const attachmentKeys: QueryKeys<AttachmentFilter> = { volumeID: 'volume_id', instanceID: 'instance_id' };

/**
 * Cinder's attachment records. The summary list is used rather than the detailed one: the detail carries
 * `connection_info`, which can hold backend credentials.
 *
 * Cinder honours `limit` on this list but sends no next link (seen on Cinder 21 / Zed), so a page size would
 * silently cut the list short: it is never sent, and the service's own cap (`osapi_max_limit`, 1000) applies.
 */
export function listAttachments(
  cinder: BlockStorageClient,
  filter: AttachmentFilter = {},
  options?: ListOptions,
): Promise<Attachment[]> {
  return listAll<Attachment>(
    cinder,
    {
      method: 'GET',
      path: '/attachments',
      query: toQuery(filter, attachmentKeys),
      headers: attachmentsHeaders,
    },
    pageStyleFor('block-storage', 'attachments'),
    options && { ...options, pageSize: undefined },
  );
}

/** Removes an attachment record Nova no longer knows about, so the volume can return to `available`. */
export async function deleteAttachment(cinder: BlockStorageClient, attachmentID: string): Promise<void> {
  await cinder.request({
    method: 'DELETE',
    path: '/attachments/{attachment_id}',
    params: { attachment_id: attachmentID },
    headers: attachmentsHeaders,
  });
}

// Volume types

export interface VolumeType {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly is_public: boolean;
  /** Only the specs the caller's policy lets it see; admins see all. */
  readonly extra_specs?: Readonly<Record<string, string>>;
}

interface VolumeTypeFilter {
  /** true: public types only (Cinder's default); false: private types only. */
  readonly isPublic?: boolean | undefined;
}

const volumeTypeKeys: QueryKeys<VolumeTypeFilter> = { isPublic: 'is_public' };

interface VolumeTypeCreate {
  readonly name: string;
  readonly 'os-volume-type-access:is_public': boolean;
}

/** The volume types VolumeClass inventory is selected from; an admin creates them public unless said otherwise. */
const volumeTypes = resource<BlockStorageClient, VolumeType, VolumeTypeFilter, VolumeTypeCreate>({
  path: '/types',
  envelope: 'volume_type',
  keys: volumeTypeKeys,
  // Cinder names this list's links in the singular, `volume_type_links` (seen on Cinder 21 / Zed).
  style: { kind: 'links', items: 'volume_types', links: 'volume_type_links' },
});
export const { list: listVolumeTypes, create: createVolumeType, get: getVolumeType } = volumeTypes;

// Quotas

/** A project's Cinder limits; -1 is unlimited. */
interface QuotaSet {
  /** The project id; present on reads, absent from an update's answer. */
  readonly id?: string;
  readonly volumes: number;
  readonly gigabytes: number;
  readonly snapshots: number;
  readonly backups: number;
  readonly backup_gigabytes: number;
  readonly per_volume_gigabytes?: number;
  readonly groups?: number;
  /** Per volume type: `volumes_{type}`, `gigabytes_{type}`, `snapshots_{type}`. */
  readonly [key: string]: number | string | undefined;
}

/** The limits to change; -1 is unlimited (what identity creation sets). */
export interface QuotaSetUpdate {
  readonly volumes?: number | undefined;
  readonly gigabytes?: number | undefined;
  readonly snapshots?: number | undefined;
  readonly backups?: number | undefined;
  readonly backup_gigabytes?: number | undefined;
  readonly per_volume_gigabytes?: number | undefined;
  readonly groups?: number | undefined;
  readonly [key: string]: number | undefined;
}

const quotas = projectQuota<BlockStorageClient, QuotaSet, QuotaSetUpdate>('/os-quota-sets', 'quota_set');
export const { get: getQuotaSet, update: updateQuotaSet, delete: deleteQuotaSet } = quotas;

// Availability zones

interface AvailabilityZone {
  readonly zoneName: string;
  readonly zoneState: { readonly available: boolean };
}

export function listAvailabilityZones(cinder: BlockStorageClient, options?: ListOptions): Promise<AvailabilityZone[]> {
  return listAll<AvailabilityZone>(
    cinder,
    { method: 'GET', path: '/os-availability-zone' },
    { kind: 'single', items: 'availabilityZoneInfo' },
    options,
  );
}

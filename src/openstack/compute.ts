/**
 * Nova (compute), at the microversion the session pins (2.90 by default, never above 2.92): servers and their
 * actions, flavors, keypairs, server groups, volume attachments and quota sets.
 *
 * Request bodies are wire-shaped (what a caller writes is what Nova receives, under Nova's own mixed naming);
 * list filters are camelCase option objects translated to Nova's query parameters.
 */
import { exactlyNamed } from './exact.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { ServiceClient } from './session.ts';
import { commaJoined, flag, requestEnveloped, type QueryKeys } from './request.ts';
import { projectQuota, resource } from './resource.ts';
import { compareVersions, parseVersion, type Version } from './microversion.ts';
import { ConfigError } from './errors.ts';

export type ComputeClient = ServiceClient<'compute'>;

// ---------------------------------------------------------------------------------------------------------------
// Servers: results

/** Nova's server statuses (the API projection of vm_state and task_state). */
type ServerStatus =
  | 'ACTIVE'
  | 'BUILD'
  | 'DELETED'
  | 'ERROR'
  | 'HARD_REBOOT'
  | 'MIGRATING'
  | 'PASSWORD'
  | 'PAUSED'
  | 'REBOOT'
  | 'REBUILD'
  | 'RESCUE'
  | 'RESIZE'
  | 'REVERT_RESIZE'
  | 'SHELVED'
  | 'SHELVED_OFFLOADED'
  | 'SHUTOFF'
  | 'SOFT_DELETED'
  | 'SUSPENDED'
  | 'UNKNOWN'
  | 'VERIFY_RESIZE';

/** `OS-EXT-STS:power_state` is an integer; these are Nova's values (nova/compute/power_state.py). */
export const PowerState = {
  NoState: 0,
  Running: 1,
  Paused: 3,
  Shutdown: 4,
  Crashed: 6,
  Suspended: 7,
} as const;

interface Link {
  readonly href: string;
  readonly rel: string;
}

/**
 * The failure Nova recorded on a server in ERROR. Nova leaves a stale fault on a recovered server, so the monitor
 * keys "errored" off `status === 'ERROR'`, never off this field's presence. A list response may omit it
 * entirely, so the monitor fetches it by id once, on the transition into ERROR.
 */
export interface ServerFault {
  readonly code: number;
  readonly message: string;
  readonly created: string;
  /** A stack trace, shown to admins only; operator detail that never reaches tenants. */
  readonly details?: string;
}

export interface ServerAddress {
  readonly addr: string;
  readonly version: 4 | 6;
  readonly 'OS-EXT-IPS:type'?: 'fixed' | 'floating';
  /** The port's MAC: the monitor reads status.macAddress from here, with no extra port call. */
  readonly 'OS-EXT-IPS-MAC:mac_addr'?: string;
}

/** The flavor embedded in a server from 2.47: a snapshot taken at boot, with no id. */
interface ServerFlavor {
  readonly original_name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly ephemeral: number;
  readonly swap: number;
  /** Shown only where policy allows (os_compute_api:servers:show:flavor-extra-specs). */
  readonly extra_specs?: Readonly<Record<string, string>>;
}

interface ServerImageRef {
  readonly id: string;
  readonly links?: readonly Link[];
}

export interface Server {
  readonly id: string;
  readonly name: string;
  readonly status: ServerStatus;
  readonly tenant_id: string;
  readonly user_id: string;
  /**
   * The running task, `null` at rest. Its exposure is policy-gated, and a hidden field would read as "at rest":
   * it is optional here so a caller has to decide what absence means (the rebuild rows treat it as unknown).
   */
  readonly 'OS-EXT-STS:task_state'?: string | null;
  readonly 'OS-EXT-STS:vm_state'?: string;
  readonly 'OS-EXT-STS:power_state'?: number;
  /** When the server first booted; `null` before. The image-rebuild gate reads it fresh on every pass. */
  readonly 'OS-SRV-USG:launched_at'?: string | null;
  readonly 'OS-SRV-USG:terminated_at'?: string | null;
  /** Admin-only: absent for ordinary project credentials. */
  readonly 'OS-EXT-SRV-ATTR:hypervisor_hostname'?: string | null;
  /** Admin-only. */
  readonly 'OS-EXT-SRV-ATTR:host'?: string | null;
  /** The guest hostname; from 2.90 shown to the server's owner and settable at create. */
  readonly 'OS-EXT-SRV-ATTR:hostname'?: string;
  readonly 'OS-EXT-AZ:availability_zone'?: string;
  /** The image the server boots from, or `""` when it boots from a volume. */
  readonly image: ServerImageRef | '';
  readonly flavor: ServerFlavor;
  /** Network name → addresses on it. */
  readonly addresses: Readonly<Record<string, readonly ServerAddress[]>>;
  readonly metadata: Readonly<Record<string, string>>;
  readonly key_name: string | null;
  readonly created: string;
  readonly updated: string;
  readonly tags: readonly string[];
  /** Present (possibly stale, see ServerFault) once Nova recorded a failure. */
  readonly fault?: ServerFault;
  readonly locked: boolean;
  readonly locked_reason?: string | null;
  /** Shown only where policy allows, and only in some states. */
  readonly host_status?: 'UP' | 'DOWN' | 'MAINTENANCE' | 'UNKNOWN' | '' | null;
  readonly description?: string | null;
  /** Absent when the server has no ports. */
  readonly security_groups?: readonly { readonly name: string }[];
  readonly 'os-extended-volumes:volumes_attached': readonly {
    readonly id: string;
    readonly delete_on_termination: boolean;
  }[];
  readonly links?: readonly Link[];
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: create

/** One NIC: an existing port (what the provider uses: one port per server), or a network to make a port on. */
interface ServerNetwork {
  readonly uuid?: string | undefined;
  readonly port?: string | undefined;
  readonly fixed_ip?: string | undefined;
  readonly tag?: string | undefined;
}

interface BlockDeviceMapping {
  readonly source_type: 'volume' | 'image' | 'snapshot' | 'blank';
  readonly destination_type?: 'local' | 'volume' | undefined;
  readonly uuid?: string | undefined;
  readonly boot_index?: number | null | undefined;
  /** GiB. */
  readonly volume_size?: number | undefined;
  readonly delete_on_termination?: boolean | undefined;
  readonly device_name?: string | undefined;
  readonly device_type?: string | undefined;
  readonly disk_bus?: string | undefined;
  readonly guest_format?: string | undefined;
  readonly volume_type?: string | null | undefined;
  readonly tag?: string | undefined;
}

/** The `server` object of a create request. */
export interface ServerCreate {
  readonly name: string;
  readonly flavorRef: string;
  /** Empty (or absent) when booting from a volume in block_device_mapping_v2. */
  readonly imageRef?: string | undefined;
  /** Required by Nova from 2.37: NICs, or `none` / `auto`. */
  readonly networks: readonly ServerNetwork[] | 'none' | 'auto';
  /** Sent only in the identityKeypair SSH mode; the ca and none modes omit it. */
  readonly key_name?: string | undefined;
  /** The raw user data; createServer base64-encodes it, as Nova requires. */
  readonly user_data?: Uint8Array | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  /** Names or ids; applied to ports Nova creates, not to a given port. */
  readonly security_groups?: readonly { readonly name: string }[] | undefined;
  readonly availability_zone?: string | undefined;
  readonly block_device_mapping_v2?: readonly BlockDeviceMapping[] | undefined;
  /** The guest hostname (2.90): 2–63 characters. */
  readonly hostname?: string | undefined;
  /** Pins the server to a compute host (2.74, admin by default). */
  readonly host?: string | undefined;
  /** Pins the server to a hypervisor node (2.74): pinned servers set it from infrastructureRef. */
  readonly hypervisor_hostname?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly config_drive?: boolean | undefined;
  readonly description?: string | undefined;
}

/** Nova's `os:scheduler_hints`, a sibling of `server` in the create body; filters may define their own hints. */
interface SchedulerHints {
  /** A server group id: how the identity's server group takes effect. */
  readonly group?: string | undefined;
  readonly different_host?: string | readonly string[] | undefined;
  readonly same_host?: string | readonly string[] | undefined;
  readonly build_near_host_ip?: string | undefined;
  readonly cidr?: string | undefined;
  readonly [hint: string]: string | readonly string[] | undefined;
}

interface CreatedServer {
  readonly id: string;
  readonly links: readonly Link[];
  /** Absent when the cloud disables admin passwords (enable_instance_password = false). */
  readonly adminPass?: string;
  readonly security_groups?: readonly { readonly name: string }[];
  readonly 'OS-DCF:diskConfig'?: 'AUTO' | 'MANUAL';
}

export async function createServer(
  compute: ComputeClient,
  server: ServerCreate,
  schedulerHints?: SchedulerHints,
): Promise<CreatedServer> {
  const { user_data, ...rest } = server;
  return requestEnveloped<CreatedServer>(compute, 'server', {
    method: 'POST',
    path: '/servers',
    body: {
      server: {
        ...rest,
        ...(user_data === undefined ? {} : { user_data: Buffer.from(user_data).toString('base64') }),
      },
      ...(schedulerHints === undefined ? {} : { 'os:scheduler_hints': schedulerHints }),
    },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: read, list, find, delete

interface ServerListFilter {
  /** A regular expression Nova matches (case-insensitively on MySQL) against names; findServerByName anchors it. */
  readonly name?: string | undefined;
  readonly status?: ServerStatus | undefined;
  /** Servers carrying all of these tags. */
  readonly tags?: readonly string[] | undefined;
  /** Servers carrying none of these tags. */
  readonly notTags?: readonly string[] | undefined;
  /** An ISO 8601 time: servers changed since then, deleted ones included. */
  readonly changesSince?: string | undefined;
  readonly image?: string | undefined;
  readonly flavor?: string | undefined;
  /** Admin: servers of every project instead of the token's. Off unless asked for. */
  readonly allTenants?: boolean | undefined;
  /** Admin, with allTenants: one project's servers. */
  readonly projectID?: string | undefined;
}

const serverListKeys: QueryKeys<ServerListFilter> = {
  name: 'name',
  status: 'status',
  tags: commaJoined('tags'),
  notTags: commaJoined('not-tags'),
  changesSince: 'changes-since',
  image: 'image',
  flavor: 'flavor',
  // Sent only when asked for: by default even an admin credential lists just its own project's servers.
  allTenants: flag('all_tenants', 'True'),
  projectID: 'project_id',
};

/** Servers are listed with details (`/servers/detail`); Nova pages with `servers_links`. */
const servers = resource<ComputeClient, Server, ServerListFilter>({
  path: '/servers',
  listPath: '/servers/detail',
  envelope: 'server',
  keys: serverListKeys,
  style: pageStyleFor('compute', 'servers'),
});
export const { get: getServer, list: listServers, delete: deleteServer } = servers;

/**
 * The server named exactly `name` in the token's project, or undefined. Nova's name filter is a regular
 * expression, so the name is escaped and anchored, and the result still post-filtered (MySQL matches
 * case-insensitively). The listed server may lack `fault`; read it with getServer when it matters.
 */
export async function findServerByName(compute: ComputeClient, name: string): Promise<Server | undefined> {
  return exactlyNamed(await serversNamed(compute, name), name, 'compute server');
}

/** Every server named exactly `name` in the token's project (Nova allows several); see findServerByName. */
export async function serversNamed(compute: ComputeClient, name: string): Promise<Server[]> {
  const servers = await listServers(compute, { name: `^${escapeRegExp(name)}$` });
  return servers.filter((s) => s.name === name);
}

/** Renames a server (`PUT /servers/{id}`); nothing else about it changes. */
export async function renameServer(compute: ComputeClient, serverID: string, name: string): Promise<void> {
  await compute.request({
    method: 'PUT',
    path: '/servers/{server_id}',
    params: { server_id: serverID },
    body: { server: { name } },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Servers: actions

/**
 * A rebuild onto a new image. It deliberately has no key_name or user_data: omitting them makes Nova keep the
 * stored keypair and create-time user data (the SSH-CA cloud-init), so a rebuilt guest stays create-equivalent.
 */
export interface ServerRebuild {
  readonly imageRef: string;
  readonly name?: string | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

/**
 * Submits a rebuild; resolves once Nova accepted it (202). Nothing from the response is returned: its body can still
 * describe the pre-rebuild server as ACTIVE, and docs/spec/openstack-provider.md §Image rebuild forbids deriving state
 * from it. A 400 whose body says "Cannot find image for rebuild" and a 409 (a task holds the server) arrive as typed
 * errors.
 */
export async function rebuildServer(compute: ComputeClient, serverID: string, rebuild: ServerRebuild): Promise<void> {
  const { imageRef, name, metadata } = rebuild;
  await serverAction(compute, serverID, { rebuild: { imageRef, name, metadata } });
}

type RebootType = 'SOFT' | 'HARD';

export async function rebootServer(compute: ComputeClient, serverID: string, type: RebootType): Promise<void> {
  await serverAction(compute, serverID, { reboot: { type } });
}

export async function startServer(compute: ComputeClient, serverID: string): Promise<void> {
  await serverAction(compute, serverID, { 'os-start': null });
}

export async function stopServer(compute: ComputeClient, serverID: string): Promise<void> {
  await serverAction(compute, serverID, { 'os-stop': null });
}

interface ServerImageCreate {
  readonly name: string;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

/** Snapshots a server into Glance; returns the new image's id, which Nova puts in the body from 2.45. */
export async function createServerImage(
  compute: ComputeClient,
  serverID: string,
  image: ServerImageCreate,
): Promise<string> {
  const body = await serverAction<{ image_id: string }>(compute, serverID, { createImage: image });
  return body.image_id;
}

/** The guest's console log; `length` keeps only its last lines (all of it when absent). */
export async function getConsoleOutput(compute: ComputeClient, serverID: string, length?: number): Promise<string> {
  const body = await serverAction<{ output: string }>(compute, serverID, {
    'os-getConsoleOutput': length === undefined ? {} : { length },
  });
  return body.output;
}

type ConsoleProtocol = 'vnc' | 'spice' | 'serial' | 'mks';
type ConsoleType = 'novnc' | 'xvpvnc' | 'spice-html5' | 'serial' | 'webmks';

interface RemoteConsole {
  readonly protocol: ConsoleProtocol;
  readonly type: ConsoleType;
  /** Carries the console token: hand it to the user, never log it. */
  readonly url: string;
}

/** A console session URL; noVNC over VNC unless asked otherwise. */
export async function createRemoteConsole(
  compute: ComputeClient,
  serverID: string,
  kind: { readonly protocol: ConsoleProtocol; readonly type: ConsoleType } = { protocol: 'vnc', type: 'novnc' },
): Promise<RemoteConsole> {
  return requestEnveloped<RemoteConsole>(compute, 'remote_console', {
    method: 'POST',
    path: '/servers/{server_id}/remote-consoles',
    params: { server_id: serverID },
    body: { remote_console: kind },
  });
}

async function serverAction<T = unknown>(compute: ComputeClient, serverID: string, action: object): Promise<T> {
  const { body } = await compute.request<T>({
    method: 'POST',
    path: '/servers/{server_id}/action',
    params: { server_id: serverID },
    body: action,
  });
  return body;
}

// ---------------------------------------------------------------------------------------------------------------
// Flavors

export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly vcpus: number;
  /** MiB. */
  readonly ram: number;
  /** GiB. */
  readonly disk: number;
  /** MiB; an integer from 2.75 (`""` for none before). */
  readonly swap: number;
  readonly 'OS-FLV-EXT-DATA:ephemeral': number;
  readonly 'os-flavor-access:is_public': boolean;
  readonly description: string | null;
  /** Embedded from 2.61 where policy allows; getFlavorExtraSpecs reads them otherwise. */
  readonly extra_specs?: Readonly<Record<string, string>>;
  readonly links?: readonly Link[];
}

interface FlavorListFilter {
  /** `true`: public flavors; `false`: private ones; `'all'`: both (admin). Nova's default when absent. */
  readonly isPublic?: boolean | 'all' | undefined;
}

const flavorListKeys: QueryKeys<FlavorListFilter> = {
  isPublic: { name: 'is_public', encode: (isPublic) => (isPublic === 'all' ? 'None' : String(isPublic)) },
};

interface ServerGroupFilter {
  /** Admin: the groups of every project. */
  readonly allProjects?: boolean | undefined;
}

const serverGroupKeys: QueryKeys<ServerGroupFilter> = { allProjects: flag('all_projects', 'True') };

/** What an admin gives Nova for a new flavor: name, vCPUs, RAM (MiB), disk (GiB), and whether every project sees it. */
interface FlavorCreate {
  readonly name: string;
  readonly vcpus: number;
  readonly ram: number;
  readonly disk: number;
  readonly 'os-flavor-access:is_public': boolean;
}

/** Flavors are listed with details; Nova pages with `flavors_links`. An admin creates them (Nova picks the id). */
const flavors = resource<ComputeClient, Flavor, FlavorListFilter, FlavorCreate>({
  path: '/flavors',
  listPath: '/flavors/detail',
  envelope: 'flavor',
  keys: flavorListKeys,
  style: pageStyleFor('compute', 'flavors'),
});
export const { list: listFlavors, get: getFlavor, create: createFlavor } = flavors;

/** A flavor's extra specs (`resources:CUSTOM_*`, `trait:*`, …), which the placement preflight reads. */
export function getFlavorExtraSpecs(
  compute: ComputeClient,
  flavorID: string,
): Promise<Readonly<Record<string, string>>> {
  return requestEnveloped<Record<string, string>>(compute, 'extra_specs', {
    method: 'GET',
    path: '/flavors/{flavor_id}/os-extra_specs',
    params: { flavor_id: flavorID },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Keypairs (owned by the token's user, named uniquely per user, so a get by name is the lookup)

export interface Keypair {
  readonly name: string;
  readonly public_key: string;
  readonly fingerprint: string;
  readonly type: 'ssh' | 'x509';
  /** On get and create only, not in lists. */
  readonly user_id?: string;
  readonly created_at?: string;
}

/** The token user's keypairs; Nova pages with `keypairs_links` and wraps each item as `{keypair: {...}}`. */
export async function listKeypairs(compute: ComputeClient, options?: ListOptions): Promise<Keypair[]> {
  const wrapped = await listAll<{ keypair: Keypair }>(
    compute,
    { method: 'GET', path: '/os-keypairs' },
    pageStyleFor('compute', 'keypairs'),
    options,
  );
  return wrapped.map((item) => item.keypair);
}

export function getKeypair(compute: ComputeClient, name: string): Promise<Keypair> {
  return requestEnveloped<Keypair>(compute, 'keypair', {
    method: 'GET',
    path: '/os-keypairs/{keypair_name}',
    params: { keypair_name: name },
  });
}

/** Imports a public key; from 2.92 Nova no longer generates keys, so the key is always the caller's. */
interface KeypairCreate {
  readonly name: string;
  readonly public_key: string;
  readonly type?: 'ssh' | 'x509' | undefined;
}

export function createKeypair(compute: ComputeClient, keypair: KeypairCreate): Promise<Keypair> {
  return requestEnveloped<Keypair>(compute, 'keypair', {
    method: 'POST',
    path: '/os-keypairs',
    body: { keypair },
  });
}

export async function deleteKeypair(compute: ComputeClient, name: string): Promise<void> {
  await compute.request({ method: 'DELETE', path: '/os-keypairs/{keypair_name}', params: { keypair_name: name } });
}

// ---------------------------------------------------------------------------------------------------------------
// Server groups

export type ServerGroupPolicy = 'affinity' | 'anti-affinity' | 'soft-affinity' | 'soft-anti-affinity';

export interface ServerGroup {
  readonly id: string;
  readonly name: string;
  /** One policy (2.64 replaced the `policies` list). */
  readonly policy: ServerGroupPolicy;
  /** Only `max_server_per_host`, only for anti-affinity. */
  readonly rules: { readonly max_server_per_host?: number };
  /** Member server ids. */
  readonly members: readonly string[];
  readonly project_id: string;
  readonly user_id: string;
}

interface ServerGroupCreate {
  readonly name: string;
  readonly policy: ServerGroupPolicy;
  readonly rules?: { readonly max_server_per_host?: number | undefined } | undefined;
}

/** Nova pages by limit and offset with no links, capping each page at its `[api] max_limit` (1000 by default). */
const NOVA_OFFSET_PAGE_SIZE = 1000;

/**
 * The project's server groups, every offset page of them. Nova has no name filter here, so finding the identity's
 * group by its deterministic name lists them all.
 */
const serverGroups = resource<ComputeClient, ServerGroup, ServerGroupFilter, ServerGroupCreate>({
  path: '/os-server-groups',
  envelope: 'server_group',
  keys: serverGroupKeys,
  style: { kind: 'offset', items: 'server_groups', pageSize: NOVA_OFFSET_PAGE_SIZE },
  kind: 'compute server group',
});
export const { list: listServerGroups, get: getServerGroup, create: createServerGroup } = serverGroups;
export const { delete: deleteServerGroup, findByName: findServerGroupByName } = serverGroups;

// ---------------------------------------------------------------------------------------------------------------
// Volume attachments

/** At 2.89+ Nova drops the attachment's `id` (it was the volume id) and adds the Cinder and BDM ids. */
export interface VolumeAttachment {
  readonly volumeId: string;
  readonly serverId: string;
  /** The guest device, e.g. `/dev/vdb`: the only attachment detail that crosses the provider boundary. */
  readonly device: string | null;
  readonly tag: string | null;
  readonly delete_on_termination: boolean;
  readonly attachment_id: string;
  readonly bdm_uuid: string;
}

interface VolumeAttachmentCreate {
  readonly volumeId: string;
  /** A hint; most hypervisors choose the device themselves. */
  readonly device?: string | undefined;
  readonly tag?: string | undefined;
  readonly delete_on_termination?: boolean | undefined;
}

/** A server's attachments; paged by offset with no links, like server groups. */
export function listVolumeAttachments(
  compute: ComputeClient,
  serverID: string,
  options?: ListOptions,
): Promise<VolumeAttachment[]> {
  return listAll<VolumeAttachment>(
    compute,
    { method: 'GET', path: '/servers/{server_id}/os-volume_attachments', params: { server_id: serverID } },
    { kind: 'offset', items: 'volumeAttachments', pageSize: NOVA_OFFSET_PAGE_SIZE },
    { limit: options?.limit, pageSize: options?.pageSize, signal: options?.signal },
  );
}

/**
 * One attachment, named by the volume's id; docs/spec/openstack-provider.md §Existing-volume server attachments reads
 * it after a 409 on attach to tell a race from a conflict.
 */
export function getVolumeAttachment(
  compute: ComputeClient,
  serverID: string,
  volumeID: string,
): Promise<VolumeAttachment> {
  return requestEnveloped<VolumeAttachment>(compute, 'volumeAttachment', {
    method: 'GET',
    path: '/servers/{server_id}/os-volume_attachments/{volume_id}',
    params: { server_id: serverID, volume_id: volumeID },
  });
}

/**
 * What Nova answers to an attach. The block device mapping is still being made, so even at 2.89+ it has no
 * `attachment_id` or `bdm_uuid` (read them with getVolumeAttachment), and `device` is only Nova's guess.
 */
interface VolumeAttachmentAccepted {
  readonly volumeId: string;
  readonly serverId: string;
  readonly device: string | null;
  /** 2.70+. */
  readonly tag?: string | null;
  /** 2.79+. */
  readonly delete_on_termination?: boolean;
}

/** Starts an attach; the attachment is complete when Cinder reports the volume in-use. */
export function attachVolume(
  compute: ComputeClient,
  serverID: string,
  attachment: VolumeAttachmentCreate,
): Promise<VolumeAttachmentAccepted> {
  return requestEnveloped<VolumeAttachmentAccepted>(compute, 'volumeAttachment', {
    method: 'POST',
    path: '/servers/{server_id}/os-volume_attachments',
    params: { server_id: serverID },
    body: { volumeAttachment: attachment },
  });
}

/** Starts a detach (202); the volume is detached when Cinder reports it available. */
export async function detachVolume(compute: ComputeClient, serverID: string, volumeID: string): Promise<void> {
  await compute.request({
    method: 'DELETE',
    path: '/servers/{server_id}/os-volume_attachments/{volume_id}',
    params: { server_id: serverID, volume_id: volumeID },
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Quota sets

/** The quota value meaning "no limit"; identity creation sets every Nova quota to it. */
export const UNLIMITED = -1;

/**
 * The quotas Nova still has at 2.57+: network quotas left with 2.36 and file-injection ones with 2.57, and
 * sending either is refused, so they are not representable here.
 */
export interface QuotaLimits {
  readonly instances: number;
  readonly cores: number;
  /** MiB. */
  readonly ram: number;
  readonly key_pairs: number;
  readonly metadata_items: number;
  readonly server_groups: number;
  readonly server_group_members: number;
}

/** docs/spec/upstream-region.md §Trust / scoping, quotas: every Nova limit the region sets, unlimited. */
export const unlimitedComputeQuota: QuotaLimits = {
  instances: UNLIMITED,
  cores: UNLIMITED,
  ram: UNLIMITED,
  key_pairs: UNLIMITED,
  metadata_items: UNLIMITED,
  server_groups: UNLIMITED,
  server_group_members: UNLIMITED,
};

interface QuotaSet extends QuotaLimits {
  readonly id: string;
}

/** Nova answers a delete 202; an update answers every limit. */
const quotas = projectQuota<ComputeClient, QuotaSet, Partial<QuotaLimits>, QuotaLimits>('/os-quota-sets', 'quota_set');
export const { get: getQuotaSet, update: updateQuotaSet, delete: deleteQuotaSet } = quotas;

// ---------------------------------------------------------------------------------------------------------------

/** Escapes the characters a regular expression gives meaning to, for MySQL (ICU), PostgreSQL and Python's re alike. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The microversions a Nova API offers: its version document's `min_version` and `version` (the maximum). */
interface ComputeVersionRange {
  readonly min: Version;
  readonly max: Version;
}

/** Reads Nova's version document at the compute endpoint (`GET /v2.1/`). */
async function getComputeVersionRange(compute: ComputeClient, signal?: AbortSignal): Promise<ComputeVersionRange> {
  const { body } = await compute.request<{ version?: { version?: unknown; min_version?: unknown } } | undefined>({
    method: 'GET',
    path: '/',
    signal,
  });
  const text = (v: unknown) => (typeof v === 'string' ? parseVersion(v) : undefined);
  const max = text(body?.version?.version);
  const min = text(body?.version?.min_version);
  if (!max || !min) throw new ConfigError('compute', "Nova's version document names no microversion range");
  return { min, max };
}

/**
 * Fails when the cloud's Nova does not offer the microversion openregion pins (docs/spec/openstack-provider.md
 * §Policy-gated fields: the client pins 2.90): every request would otherwise be refused with a 406.
 */
export async function requireComputeMicroversion(
  compute: ComputeClient,
  wanted: string,
  signal?: AbortSignal,
): Promise<ComputeVersionRange> {
  const required = parseVersion(wanted);
  if (!required) throw new Error(`requireComputeMicroversion: ${JSON.stringify(wanted)} is not a version like 2.90`);
  const range = await getComputeVersionRange(compute, signal);
  if (compareVersions(range.max, required) < 0 || compareVersions(range.min, required) > 0) {
    const show = (v: Version) => `${String(v.major)}.${String(v.minor)}`;
    throw new ConfigError(
      'compute',
      `the cloud's Nova API offers microversions ${show(range.min)} to ${show(range.max)}; openregion needs ${wanted}`,
    );
  }
  return range;
}

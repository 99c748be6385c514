/**
 * Every deterministic name and metadata key the OpenStack provider writes (docs/architecture.md §OpenStack is the
 * source of truth: re-found by these names). docs/spec/openstack-provider.md §Caveats calls this "a convention-heavy
 * contract": renaming anything here breaks the linkage to resources already in clouds, so each rule cites where it
 * comes from (docs/spec/openstack-provider.md for the specification, docs/spec/upstream-region.md for how upstream
 * spells it).
 *
 * Lookups by these names must post-filter exactly (`openstack/exact.ts`). Each family is a fixed prefix and an id, so
 * no two families' names collide (names.test.ts parses every one back).
 */

/** Returns the rest of `name` after `prefix`, or undefined when it is not one of ours (or names no id). */
function after(prefix: string, name: string): string | undefined {
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : undefined;
}

// --- Keystone and Nova identity scaffolding ---------------------------------------------------------------------

const IDENTITY_PREFIX = 'unikorn-identity-';

/**
 * Keystone project, Keystone user, application credential and Nova server group of one identity share this name
 * (docs/spec/upstream-region.md §Deterministic names: `unikorn-identity-{identityID}`); they live in different
 * namespaces.
 */
export const identityName = (identityID: string): string => `${IDENTITY_PREFIX}${identityID}`;

/**
 * The Nova keypair in each identity project (docs/spec/upstream-region.md §Trust / scoping:
 * `unikorn-openstack-provider`).
 */
export const IDENTITY_KEYPAIR_NAME = 'unikorn-openstack-provider';

/**
 * Keystone project tags written at identity creation (docs/spec/upstream-region.md §Trust / scoping: `organization=…`,
 * `project=…`).
 */
export const organizationTag = (organizationID: string): string => `organization=${organizationID}`;
export const projectTag = (projectID: string): string => `project=${projectID}`;

// --- Neutron ------------------------------------------------------------------------------------------------------

const NETWORK_PREFIX = 'network-';

/**
 * Neutron network, subnet and router of one region Network share `network-{networkID}` (docs/spec/upstream-region.md
 * §Deterministic names); Nova's `addresses` is keyed by it, which is how the monitor finds a server's MAC.
 */
export const networkName = (networkID: string): string => `${NETWORK_PREFIX}${networkID}`;
export const subnetName = networkName;
export const routerName = networkName;

const SECURITY_GROUP_PREFIX = 'securitygroup-';

/** docs/spec/upstream-region.md §Deterministic names: `securitygroup-{sgID}`. */
export const securityGroupName = (securityGroupID: string): string => `${SECURITY_GROUP_PREFIX}${securityGroupID}`;

/**
 * Tags on a project's `default` security group that Neutron kept at its identity's teardown (only an admin may delete
 * a default group, docs/adr/0019-deletes-that-finish.md), written by the identity's own user before its project goes:
 * the marker `region gc` lists by, and the identity it was left behind by. Neutron tags are at most 60 characters on
 * older clouds; both fit. docs/adr/0038-leaks-snapshot-images-and-default-groups.md.
 */
export const LEFT_BEHIND_TAG = 'openregion:left-behind';
const LEFT_BEHIND_IDENTITY_PREFIX = 'openregion:identity=';
export const leftBehindIdentityTag = (identityID: string): string => `${LEFT_BEHIND_IDENTITY_PREFIX}${identityID}`;
export const parseLeftBehindIdentityTag = (tag: string): string | undefined => after(LEFT_BEHIND_IDENTITY_PREFIX, tag);

const PORT_PREFIX = 'server-';

/**
 * A server's Neutron port, `server-{serverID}` (docs/spec/upstream-region.md §Deterministic names); its floating IP is
 * found by port id, not by name.
 */
export const serverPortName = (serverID: string): string => `${PORT_PREFIX}${serverID}`;

// --- Nova ---------------------------------------------------------------------------------------------------------

/**
 * A Nova server is named by its `unikorn-cloud.org/name` label, the user's display name (ServerInput.name), and
 * found by exact match within the identity project (docs/spec/upstream-region.md §Deterministic names).
 */

// --- Octavia ------------------------------------------------------------------------------------------------------

const LB_PREFIX = 'lb-';

/** docs/spec/openstack-provider.md §Octavia Load Balancers: `lb-{loadBalancer}`. */
export const loadBalancerName = (loadBalancerID: string): string => `${LB_PREFIX}${loadBalancerID}`;

export type LoadBalancerChild = 'listener' | 'pool' | 'monitor';
const CHILDREN: readonly LoadBalancerChild[] = ['listener', 'pool', 'monitor'];

/** Every listener, pool and monitor of a load balancer starts with this: orphan pruning lists by it. */
export const loadBalancerChildPrefix = (loadBalancerID: string): string => `${loadBalancerName(loadBalancerID)}-`;

/**
 * docs/spec/openstack-provider.md §Octavia Load Balancers: `lb-{loadBalancer}-{listener}-listener`, `…-pool`,
 * `…-monitor`.
 */
export const loadBalancerChildName = (loadBalancerID: string, listener: string, child: LoadBalancerChild): string =>
  `${loadBalancerChildPrefix(loadBalancerID)}${listener}-${child}`;
export const listenerName = (lb: string, listener: string): string => loadBalancerChildName(lb, listener, 'listener');
export const poolName = (lb: string, listener: string): string => loadBalancerChildName(lb, listener, 'pool');
export const monitorName = (lb: string, listener: string): string => loadBalancerChildName(lb, listener, 'monitor');

/**
 * The listener a child resource of `loadBalancerID` belongs to, for pruning children the spec no longer implies.
 * The suffixes are not suffixes of one another, so the split is unambiguous even for listener names with dashes.
 */
export function parseLoadBalancerChildName(
  loadBalancerID: string,
  name: string,
): { readonly listener: string; readonly child: LoadBalancerChild } | undefined {
  const rest = after(loadBalancerChildPrefix(loadBalancerID), name);
  if (rest === undefined) return undefined;
  for (const child of CHILDREN) {
    const listener = rest.endsWith(`-${child}`) ? rest.slice(0, -child.length - 1) : '';
    if (listener !== '') return { listener, child };
  }
  return undefined;
}

// --- Cinder -------------------------------------------------------------------------------------------------------

const VOLUME_PREFIX = 'volume-';

/**
 * docs/spec/openstack-provider.md §Deterministic names and metadata: Cinder volumes use `volume-{Region Volume UUID}`
 * inside the identity project.
 */
export const volumeName = (volumeID: string): string => `${VOLUME_PREFIX}${volumeID}`;

/** docs/spec/upstream-region.md §Deterministic names: the description every provider-made Cinder volume carries. */
export const VOLUME_DESCRIPTION = 'unikorn managed block storage volume';

// --- Kubernetes ---------------------------------------------------------------------------------------------------

const VLAN_ALLOCATION_PREFIX = 'openstack.';

/** The VLANAllocation resource of a region (docs/spec/upstream-region.md §CRDs): `openstack.<regionName>`. */
export const vlanAllocationName = (regionName: string): string => `${VLAN_ALLOCATION_PREFIX}${regionName}`;

// --- Nova server and Cinder volume metadata -----------------------------------------------------------------------

/**
 * docs/spec/upstream-region.md §Server metadata (Nova): frozen camelCase keys older in-guest consumers read. Servers
 * only.
 */
const LegacyServerMetadata = {
  serverID: 'serverID',
  organizationID: 'organizationID',
  projectID: 'projectID',
  regionID: 'regionID',
} as const;

/**
 * docs/spec/upstream-region.md §Server metadata (Nova): the namespaced keys, `{service}:{local_name}`, the upgrade path
 * for new consumers.
 */
export const SystemMetadata = {
  serverID: 'region:server_id',
  volumeID: 'region:volume_id',
  organizationID: 'identity:organization_id',
  projectID: 'identity:project_id',
  regionID: 'region:region_id',
  networkID: 'region:network_id',
  identityID: 'region:identity_id',
} as const;

// docs/spec/upstream-region.md §Server metadata (Nova): a user tag key `{service}.{domain}/{local-name}` becomes
// `{service}:{local_name}`.
const TAG_KEY = /^([a-z0-9][a-z0-9-]*)\.[^/]+\/([a-z0-9][a-z0-9-]*)$/;

/** The metadata key a user tag is written under, or undefined: a tag not in the namespaced form is not written. */
export function tagMetadataKey(tagName: string): string | undefined {
  const m = TAG_KEY.exec(tagName);
  return m?.[1] === undefined || m[2] === undefined ? undefined : `${m[1]}:${m[2].replaceAll('-', '_')}`;
}

interface MetadataTag {
  readonly name: string;
  readonly value: string;
}

function withTags(tags: readonly MetadataTag[], system: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of tags) {
    const key = tagMetadataKey(tag.name);
    if (key !== undefined) out[key] = tag.value;
  }
  // System keys last, so no user tag can override the linkage (docs/spec/openstack-provider.md §Cinder Volume
  // create/delete: "written last").
  return Object.assign(out, system);
}

/**
 * Nova metadata of a server: translated tags, then the namespaced keys, then the legacy ones
 * (docs/spec/upstream-region.md §Server metadata (Nova)).
 */
export function serverMetadata(
  ids: {
    readonly serverID: string;
    readonly organizationID: string;
    readonly projectID: string;
    readonly regionID: string;
  },
  tags: readonly MetadataTag[],
): Record<string, string> {
  return withTags(tags, {
    [SystemMetadata.serverID]: ids.serverID,
    [SystemMetadata.organizationID]: ids.organizationID,
    [SystemMetadata.projectID]: ids.projectID,
    [SystemMetadata.regionID]: ids.regionID,
    [LegacyServerMetadata.serverID]: ids.serverID,
    [LegacyServerMetadata.organizationID]: ids.organizationID,
    [LegacyServerMetadata.projectID]: ids.projectID,
    [LegacyServerMetadata.regionID]: ids.regionID,
  });
}

/**
 * Cinder metadata of a volume: translated tags, then the namespaced keys; no legacy keys
 * (docs/spec/openstack-provider.md §Cinder Volume create/delete).
 */
export function volumeMetadata(
  ids: {
    readonly volumeID: string;
    readonly organizationID: string;
    readonly projectID: string;
    readonly regionID: string;
    readonly networkID: string;
    readonly identityID: string;
  },
  tags: readonly MetadataTag[],
): Record<string, string> {
  return withTags(tags, {
    [SystemMetadata.volumeID]: ids.volumeID,
    [SystemMetadata.organizationID]: ids.organizationID,
    [SystemMetadata.projectID]: ids.projectID,
    [SystemMetadata.regionID]: ids.regionID,
    [SystemMetadata.networkID]: ids.networkID,
    [SystemMetadata.identityID]: ids.identityID,
  });
}

// --- Glance image properties --------------------------------------------------------------------------------------

/** docs/spec/upstream-region.md §Image properties (Glance): the keys read from and written to images. */
export const ImageProperty = {
  osKernel: 'unikorn:os:kernel',
  osFamily: 'unikorn:os:family',
  osDistro: 'unikorn:os:distro',
  osVersion: 'unikorn:os:version',
  osVariant: 'unikorn:os:variant',
  osCodename: 'unikorn:os:codename',
  virtualization: 'unikorn:virtualization',
  gpuVendor: 'unikorn:gpu_vendor',
  /** Comma-separated. */
  gpuModels: 'unikorn:gpu_models',
  gpuDriverVersion: 'unikorn:gpu_driver_version',
  organizationID: 'unikorn:organization:id',
  /** Set on snapshots. */
  identityID: 'unikorn:identity_id',
  /** Base64 ASN.1 ECDSA signature over SHA-256 of the image id. */
  digest: 'unikorn:digest',
  /** Read as the package `kubernetes` (legacy). */
  legacyKubernetesVersion: 'unikorn:kubernetes_version',
  /** Glance's standard property; x86_64 when absent. */
  architecture: 'architecture',
} as const;

const PACKAGE_PREFIX = 'unikorn:package:';
const TAG_PREFIX = 'unikorn:tag:';

export const imagePackageProperty = (pkg: string): string => `${PACKAGE_PREFIX}${pkg}`;
export const parseImagePackageProperty = (key: string): string | undefined => after(PACKAGE_PREFIX, key);
export const imageTagProperty = (tag: string): string => `${TAG_PREFIX}${tag}`;
export const parseImageTagProperty = (key: string): string | undefined => after(TAG_PREFIX, key);

/**
 * docs/spec/upstream-region.md §Image properties (Glance): hardware properties written on image create; the machine
 * type follows the architecture.
 */
export function imageCreateProperties(architecture: 'x86_64' | 'aarch64'): Record<string, string> {
  return {
    hw_disk_bus: 'scsi',
    hw_firmware_type: 'uefi',
    hw_scsi_model: 'virtio-scsi',
    hw_machine_type: architecture === 'aarch64' ? 'virt' : 'q35',
  };
}

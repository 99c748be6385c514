/**
 * Provider-neutral inventory types (upstream `pkg/providers/types/types.go`): what any provider reports about
 * flavors, volume classes, images and external networks. Quantities are plain numbers in the unit their name says;
 * times are RFC 3339 strings. Nothing here names an OpenStack id format or field.
 */

export type Architecture = 'x86_64' | 'aarch64';
type GPUVendor = 'NVIDIA' | 'AMD';

export interface GPU {
  readonly vendor: GPUVendor;
  readonly model: string;
  readonly memoryBytes?: number;
  readonly physicalCount: number;
  /** What a flavor's GPU count means to tenants (upstream `Flavor.GPUCount()`). */
  readonly logicalCount: number;
}

export interface Flavor {
  readonly id: string;
  readonly name: string;
  readonly architecture: Architecture;
  readonly cpus: number;
  readonly cpuFamily?: string;
  readonly memoryBytes?: number;
  readonly diskBytes?: number;
  readonly gpu?: GPU;
  readonly baremetal: boolean;
  /** Only usable by servers pinned to a host (`infrastructureRef`). */
  readonly pinnedOnly: boolean;
}

type VolumeMedia = 'hdd' | 'ssd' | 'nvme';

export interface VolumeClass {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly media?: VolumeMedia;
  /** Caps, not reservations. */
  readonly performance?: { readonly maxIOPS?: number; readonly maxThroughputMiBps?: number };
  readonly encrypted: boolean;
  readonly minCapacityGiB?: number;
  readonly maxCapacityGiB?: number;
  /** Flavor ids a volume of this class may attach to; undefined means any flavor. */
  readonly supportedFlavorIDs?: readonly string[];
}

export type ImageVirtualization = 'virtualized' | 'baremetal' | 'any';
export type ImageStatus = 'pending' | 'creating' | 'ready' | 'failed';

export interface ImageGPU {
  readonly vendor: GPUVendor;
  readonly driver: string;
  readonly models: readonly string[];
}

interface ImageOS {
  readonly kernel: 'linux';
  readonly family: string;
  readonly distro: string;
  readonly variant?: string;
  readonly codename?: string;
  readonly version: string;
}

export interface Image {
  readonly id: string;
  readonly name: string;
  readonly tags: Readonly<Record<string, string>>;
  /** Undefined for a public image. */
  readonly organizationID?: string;
  readonly created: string;
  readonly modified: string;
  readonly architecture: Architecture;
  readonly sizeGiB: number;
  readonly virtualization: ImageVirtualization;
  readonly gpu?: ImageGPU;
  readonly os: ImageOS;
  /** Package name to semantic version, e.g. `kubernetes` → `v1.31.2`. */
  readonly packages?: Readonly<Record<string, string>>;
  readonly status: ImageStatus;
  /** Set on snapshots: the identity whose server the image was taken from. */
  readonly identityID?: string;
}

/** A consistent read of the image inventory; `epoch` moves whenever the provider's view changes. */
export interface ImageList {
  readonly epoch: number;
  readonly items: readonly Image[];
}

export interface ExternalNetwork {
  readonly id: string;
  readonly name: string;
}

export interface ServerCreateOptions {
  /** Replaces the spec's user data, e.g. with the SSH-CA cloud-init part merged in. */
  readonly userData?: Uint8Array;
}

export interface ServerVolumeAttachment {
  /** The guest device name, when the provider reports one; the only attachment detail that crosses over. */
  readonly device?: string;
}

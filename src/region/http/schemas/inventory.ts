/**
 * Region inventory and project-owned storage: images (`/api/v2/regions/{regionID}/images`), flavors and external
 * networks (upstream serves these on its v1 paths, which openregion keeps), volume classes, SSH certificate
 * authorities and volumes. Volumes and volume classes have no upstream path; openregion serves them in the v2 style.
 */
import Type from 'typebox';
import {
  ID,
  ProjectScopedResourceReadMetadata,
  ResourceWriteMetadata,
  StaticResourceMetadata,
  TenancyID,
} from './common.ts';

/** Upstream's semver: v1.2.3, no pre-release or build part. */
const SEMVER_PATTERN = '^v\\d+\\.\\d+\\.\\d+$';

const Architecture = Type.Enum(['x86_64', 'aarch64']);
const GpuVendor = Type.Enum(['NVIDIA', 'AMD']);

const ImageOS = Type.Object({
  kernel: Type.Enum(['linux']),
  family: Type.String({ description: 'The family, which typically names the package format, e.g. debian.' }),
  distro: Type.String({ description: 'The distribution, e.g. ubuntu.' }),
  variant: Type.Optional(Type.String({ description: 'A free form variant, e.g. server.' })),
  codename: Type.Optional(Type.String({ description: 'A free form code name, e.g. noble.' })),
  version: Type.String({ description: 'The version, e.g. 24.04.' }),
});

const ImageGPU = Type.Object({
  vendor: GpuVendor,
  driver: Type.String({ description: 'The driver version, vendor specific.' }),
  models: Type.Optional(Type.Array(Type.String(), { description: 'The GPU models the image supports.' })),
});

const Virtualization = Type.Enum(['virtualized', 'baremetal', 'any']);
const SoftwareVersions = Type.Record(Type.String(), Type.String({ pattern: SEMVER_PATTERN }), {
  description: 'Preinstalled packages and their versions, e.g. kubernetes: v1.31.2.',
});

export const ImageV2 = Type.Object({
  metadata: StaticResourceMetadata,
  spec: Type.Object({
    architecture: Architecture,
    sizeGiB: Type.Integer(),
    virtualization: Virtualization,
    os: ImageOS,
    softwareVersions: Type.Optional(Type.Record(Type.String(), Type.String())),
    gpu: Type.Optional(ImageGPU),
  }),
  status: Type.Object({ state: Type.Enum(['pending', 'creating', 'ready', 'failed']) }),
});
export type ImageV2 = Type.Static<typeof ImageV2>;

const ImageState = Type.Enum(['pending', 'creating', 'ready', 'failed']);

/** Upstream's v1 image upload: an organization's own raw image, imported from a URL. */
export const ImageCreate = Type.Object({
  metadata: ResourceWriteMetadata,
  spec: Type.Object({
    uri: Type.String({
      format: 'uri',
      maxLength: 2048,
      description: 'Where the raw image is downloaded from (http or https).',
    }),
    architecture: Architecture,
    virtualization: Virtualization,
    os: ImageOS,
    softwareVersions: Type.Optional(SoftwareVersions),
    gpu: Type.Optional(ImageGPU),
  }),
});
export type ImageCreate = Type.Static<typeof ImageCreate>;

export const ImagesQuery = Type.Object({
  organizationID: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  scope: Type.Optional(Type.Enum(['owned', 'available'], { description: 'owned: only the organizations images.' })),
  status: Type.Optional(Type.Union([ImageState, Type.Array(ImageState)])),
});

export const Flavor = Type.Object({
  metadata: StaticResourceMetadata,
  spec: Type.Object({
    baremetal: Type.Optional(Type.Boolean()),
    cpus: Type.Integer(),
    cpuFamily: Type.Optional(Type.String()),
    memory: Type.Integer({ description: 'GiB.' }),
    disk: Type.Integer({ description: "GB, as Nova states a flavor's disk (binary: GiB)." }),
    architecture: Architecture,
    gpu: Type.Optional(
      Type.Object({
        vendor: GpuVendor,
        model: Type.String(),
        memory: Type.Integer({ description: 'GiB.' }),
        physicalCount: Type.Integer(),
        logicalCount: Type.Integer(),
      }),
    ),
    pinnedOnly: Type.Optional(Type.Boolean()),
  }),
});
export type Flavor = Type.Static<typeof Flavor>;

export const ExternalNetwork = Type.Object({ id: Type.String(), name: Type.String() });

export const VolumeClassV2 = Type.Object({
  metadata: StaticResourceMetadata,
  spec: Type.Object({
    media: Type.Optional(Type.Enum(['hdd', 'ssd', 'nvme'])),
    encrypted: Type.Boolean(),
    performance: Type.Optional(
      Type.Object({ maxIOPS: Type.Optional(Type.Integer()), maxThroughputMiBps: Type.Optional(Type.Integer()) }),
    ),
    minCapacityGiB: Type.Optional(Type.Integer()),
    maxCapacityGiB: Type.Optional(Type.Integer()),
    supportedFlavorIds: Type.Optional(Type.Array(Type.String())),
  }),
});
export type VolumeClassV2 = Type.Static<typeof VolumeClassV2>;

export const OrganizationQuery = Type.Object({
  organizationID: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

const SSHCertificateAuthorityV2Spec = Type.Object(
  {
    publicKey: Type.String({
      maxLength: 16_384,
      pattern: '^(ssh-[a-z0-9-]+|ecdsa-sha2-nistp(256|384|521)|sk-[a-z0-9-@.]+) [A-Za-z0-9+/]+={0,3}( [^\\n]*)?$',
      description: 'A single-line OpenSSH CA public key.',
    }),
  },
  { additionalProperties: false },
);

export const SSHCertificateAuthorityV2Create = Type.Object({
  metadata: ResourceWriteMetadata,
  spec: Type.Object(
    {
      publicKey: SSHCertificateAuthorityV2Spec.properties.publicKey,
      organizationId: TenancyID('The organization it belongs to.'),
      projectId: TenancyID('The project it belongs to.'),
    },
    { additionalProperties: false },
  ),
});
export type SSHCertificateAuthorityV2Create = Type.Static<typeof SSHCertificateAuthorityV2Create>;

export const SSHCertificateAuthorityV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: SSHCertificateAuthorityV2Spec,
});
export type SSHCertificateAuthorityV2Read = Type.Static<typeof SSHCertificateAuthorityV2Read>;

const volumeSpec = {
  volumeClassId: ID('The volume class; immutable.'),
  sizeGiB: Type.Integer({ minimum: 1, maximum: 65_536, description: 'The size; within the class bounds.' }),
};

export const VolumeV2Spec = Type.Object(volumeSpec, { additionalProperties: false });
export type VolumeV2Spec = Type.Static<typeof VolumeV2Spec>;

export const VolumeV2Create = Type.Object({
  metadata: ResourceWriteMetadata,
  spec: Type.Object(
    { ...volumeSpec, networkId: ID('The network whose identity owns the volume.') },
    { additionalProperties: false },
  ),
});
export type VolumeV2Create = Type.Static<typeof VolumeV2Create>;

export const VolumeV2Update = Type.Object({ metadata: ResourceWriteMetadata, spec: VolumeV2Spec });
export type VolumeV2Update = Type.Static<typeof VolumeV2Update>;

export const VolumeV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: VolumeV2Spec,
  status: Type.Object({
    regionId: Type.String(),
    networkId: Type.String(),
    sizeGiB: Type.Optional(Type.Integer()),
    serverId: Type.Optional(
      Type.String({ description: 'The server the volume is attached to (or being attached to or detached from).' }),
    ),
  }),
});
export type VolumeV2Read = Type.Static<typeof VolumeV2Read>;

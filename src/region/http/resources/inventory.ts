/** Region inventory reads, pure: the provider-neutral Image, Flavor and VolumeClass in the v2 shapes. */
import { flavorDiskGiB } from '../../provider/disk.ts';
import type { Flavor, Image, VolumeClass } from '../../provider/types.ts';
import type { Flavor as FlavorRead, ImageCreate, ImageV2, VolumeClassV2 } from '../schemas/inventory.ts';
import { defined } from '../../../util/defined.ts';

const GIB = 2 ** 30;

/** Upstream's image-origin tags: where an image came from, and the organization that owns it. */
export const imageTags = {
  source: 'images.unikorn-cloud.org:source',
  organizationID: 'images.unikorn-cloud.org:organization-id',
} as const;
const IMAGE_SOURCE_IMPORT = 'import';

/**
 * The Image an upload registers: owned by the organization (so it is visible to it alone, and exempt from the
 * region's public-image signature check), tagged with its origin; the provider assigns id, times and state.
 */
export function imageFor(request: ImageCreate, organizationID: string): Image {
  const { metadata, spec } = request;
  const userTags = Object.fromEntries((metadata.tags ?? []).map((t) => [t.name, t.value]));
  return {
    id: '',
    name: metadata.name,
    // The origin tags are the service's: a user tag of the same name does not override them.
    tags: { ...userTags, [imageTags.source]: IMAGE_SOURCE_IMPORT, [imageTags.organizationID]: organizationID },
    organizationID,
    created: '',
    modified: '',
    architecture: spec.architecture,
    sizeGiB: 0,
    virtualization: spec.virtualization,
    ...(spec.gpu === undefined
      ? {}
      : { gpu: { vendor: spec.gpu.vendor, driver: spec.gpu.driver, models: [...(spec.gpu.models ?? [])] } }),
    os: { ...spec.os },
    ...(spec.softwareVersions === undefined ? {} : { packages: { ...spec.softwareVersions } }),
    status: 'pending',
  };
}

/** Upstream's flavor order: fewest GPUs, then fewest CPUs, then least memory. */
export function byFlavorSize(a: Flavor, b: Flavor): number {
  return (
    (a.gpu?.logicalCount ?? 0) - (b.gpu?.logicalCount ?? 0) ||
    a.cpus - b.cpus ||
    (a.memoryBytes ?? 0) - (b.memoryBytes ?? 0)
  );
}

export function imageRead(image: Image): ImageV2 {
  const tags = Object.entries(image.tags).map(([name, value]) => ({ name, value }));
  return {
    metadata: {
      id: image.id,
      name: image.name,
      ...(tags.length === 0 ? {} : { tags }),
      creationTime: image.created,
      modifiedTime: image.modified,
    },
    spec: {
      architecture: image.architecture,
      sizeGiB: image.sizeGiB,
      virtualization: image.virtualization,
      os: { ...image.os },
      ...(image.packages === undefined ? {} : { softwareVersions: { ...image.packages } }),
      ...(image.gpu === undefined
        ? {}
        : { gpu: { vendor: image.gpu.vendor, driver: image.gpu.driver, models: [...image.gpu.models] } }),
    },
    status: { state: image.status },
  };
}

/** Memory and GPU memory in GiB, disk as Nova states it (GiB; upstream's document calls it GB). */
export function flavorRead(flavor: Flavor, created: string): FlavorRead {
  return {
    metadata: { id: flavor.id, name: flavor.name, creationTime: created },
    spec: {
      ...(flavor.baremetal ? { baremetal: true } : {}),
      cpus: flavor.cpus,
      ...defined({ cpuFamily: flavor.cpuFamily }),
      memory: Math.round((flavor.memoryBytes ?? 0) / GIB),
      disk: flavorDiskGiB(flavor),
      architecture: flavor.architecture,
      ...(flavor.gpu === undefined
        ? {}
        : {
            gpu: {
              vendor: flavor.gpu.vendor,
              model: flavor.gpu.model,
              memory: Math.round((flavor.gpu.memoryBytes ?? 0) / GIB),
              physicalCount: flavor.gpu.physicalCount,
              logicalCount: flavor.gpu.logicalCount,
            },
          }),
      ...(flavor.pinnedOnly ? { pinnedOnly: true } : {}),
    },
  };
}

export function volumeClassRead(volumeClass: VolumeClass, created: string): VolumeClassV2 {
  const c = volumeClass;
  return {
    metadata: {
      id: c.id,
      name: c.name,
      ...defined({ description: c.description }),
      creationTime: created,
    },
    spec: {
      ...defined({ media: c.media }),
      encrypted: c.encrypted,
      ...(c.performance === undefined ? {} : { performance: { ...c.performance } }),
      ...defined({ minCapacityGiB: c.minCapacityGiB, maxCapacityGiB: c.maxCapacityGiB }),
      ...(c.supportedFlavorIDs === undefined ? {} : { supportedFlavorIds: [...c.supportedFlavorIDs] }),
    },
  };
}

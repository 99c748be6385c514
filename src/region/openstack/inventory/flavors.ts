/**
 * Flavor export (docs/spec/openstack-provider.md §Flavor export): Nova discovers the inventory (public flavors only),
 * and the Region's `compute.flavors` narrows and enriches it. `selector.ids`, when non-empty, is an allowlist; each
 * `metadata` entry overrides the CPU count and memory and adds what Nova cannot say: baremetal, pinned-only, CPU
 * family, GPU and architecture. Architecture resolves from the entry's `cpu.architecture`, then the Region's
 * `defaultArchitecture`, then x86_64 (for objects that bypassed CRD defaulting).
 */
import type { Flavor as NovaFlavor } from '../../../openstack/compute.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import type { Architecture, Flavor, GPU } from '../../provider/types.ts';
import { quantityBytes } from '../../../kube/quantity.ts';
import { flavorDiskBytes } from '../../provider/disk.ts';
import { defined } from '../../../util/defined.ts';

type FlavorMetadata = NonNullable<NonNullable<NonNullable<RegionOpenstack['compute']>['flavors']>['metadata']>[number];

const MiB = 2 ** 20;

const LEGACY_ARCHITECTURE: Architecture = 'x86_64';

export function regionArchitecture(config: Pick<RegionOpenstack, 'defaultArchitecture'>): Architecture {
  return config.defaultArchitecture ?? LEGACY_ARCHITECTURE;
}

/** The Region's view of Nova's flavors, in Nova's order; private flavors never appear. */
export function exportFlavors(flavors: readonly NovaFlavor[], config: RegionOpenstack): Flavor[] {
  const ids = config.compute?.flavors?.selector?.ids ?? [];
  const metadata = new Map((config.compute?.flavors?.metadata ?? []).map((m) => [m.id, m]));
  return flavors
    .filter((f) => f['os-flavor-access:is_public'])
    .filter((f) => ids.length === 0 || ids.includes(f.id))
    .map((f) => exportFlavor(f, metadata.get(f.id), regionArchitecture(config)));
}

function exportFlavor(flavor: NovaFlavor, meta: FlavorMetadata | undefined, fallback: Architecture): Flavor {
  const memoryBytes = meta?.memory === undefined ? flavor.ram * MiB : quantityBytes(meta.memory);
  const gpu = meta?.gpu === undefined ? undefined : gpuOf(meta.gpu);
  return {
    id: flavor.id,
    name: flavor.name,
    architecture: meta?.cpu?.architecture ?? fallback,
    cpus: meta?.cpu?.count ?? flavor.vcpus,
    ...defined({ cpuFamily: meta?.cpu?.family, memoryBytes }),
    ...(flavor.disk > 0 ? { diskBytes: flavorDiskBytes(flavor.disk) } : {}),
    ...defined({ gpu }),
    baremetal: meta?.baremetal ?? false,
    pinnedOnly: meta?.pinnedOnly ?? false,
  };
}

function gpuOf(gpu: NonNullable<FlavorMetadata['gpu']>): GPU {
  const memoryBytes = gpu.memory === undefined ? undefined : quantityBytes(gpu.memory);
  return {
    vendor: gpu.vendor,
    model: gpu.model,
    ...defined({ memoryBytes }),
    physicalCount: gpu.physicalCount,
    logicalCount: gpu.logicalCount,
  };
}

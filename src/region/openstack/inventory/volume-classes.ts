/**
 * VolumeClass export (docs/spec/openstack-provider.md §VolumeClass configuration):
 * `blockStorage.volumeClasses.selector.ids` is a strict, fail-closed allowlist of Cinder volume type ids — missing
 * configuration, a missing selector or empty ids export nothing. Selected public types are enriched from the Region's
 * `metadata` entry: capacity bounds (operator-authored positive whole GiB, max ≥ min; never discovered from Cinder), a
 * supportedFlavors selector resolved to the exported Flavor ids (omitted or empty ids: unrestricted), media,
 * performance caps and encryption.
 *
 * A class whose bounds break those rules is left out (fail closed) and named in `rejected` for the operator log:
 * exporting it would advertise limits the operator did not mean.
 */
import type { VolumeType } from '../../../openstack/blockstorage.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import type { Flavor, VolumeClass } from '../../provider/types.ts';
import { defined } from '../../../util/defined.ts';

type ClassMetadata = NonNullable<
  NonNullable<NonNullable<RegionOpenstack['blockStorage']>['volumeClasses']>['metadata']
>[number];

interface VolumeClassExport {
  readonly classes: VolumeClass[];
  /** Selected type ids left out, each with why (operator-only). */
  readonly rejected: readonly { readonly id: string; readonly why: string }[];
}

export function exportVolumeClasses(
  types: readonly VolumeType[],
  config: RegionOpenstack,
  flavors: readonly Pick<Flavor, 'id'>[],
): VolumeClassExport {
  const volumeClasses = config.blockStorage?.volumeClasses;
  const ids = volumeClasses?.selector?.ids ?? [];
  const metadata = new Map((volumeClasses?.metadata ?? []).map((m) => [m.id, m]));
  const classes: VolumeClass[] = [];
  const rejected: { id: string; why: string }[] = [];
  for (const type of types) {
    if (!type.is_public || !ids.includes(type.id)) continue;
    const meta = metadata.get(type.id);
    const why = boundsProblem(meta);
    if (why !== undefined) rejected.push({ id: type.id, why });
    else classes.push(volumeClassOf(type, meta, flavors));
  }
  return { classes, rejected };
}

/** Why the bounds are not positive whole GiB with max ≥ min, or undefined when they are fine (or absent). */
export function boundsProblem(meta: Pick<ClassMetadata, 'minCapacityGiB' | 'maxCapacityGiB'> | undefined) {
  const { minCapacityGiB: min, maxCapacityGiB: max } = meta ?? {};
  for (const [name, value] of [
    ['minCapacityGiB', min],
    ['maxCapacityGiB', max],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) return `${name} is not a positive whole GiB`;
  }
  return min !== undefined && max !== undefined && max < min ? 'maxCapacityGiB is below minCapacityGiB' : undefined;
}

function volumeClassOf(
  type: VolumeType,
  meta: ClassMetadata | undefined,
  flavors: readonly Pick<Flavor, 'id'>[],
): VolumeClass {
  const performance = meta?.performance;
  const supported = meta?.supportedFlavors?.selector?.ids ?? [];
  return {
    id: type.id,
    name: type.name,
    ...(type.description ? { description: type.description } : {}),
    ...defined({ media: meta?.media }),
    ...(performance === undefined
      ? {}
      : {
          performance: {
            ...defined({ maxIOPS: performance.maxIOPS }),
            ...(performance.maxThroughputMiBps === undefined
              ? {}
              : { maxThroughputMiBps: performance.maxThroughputMiBps }),
          },
        }),
    encrypted: meta?.encrypted ?? false,
    ...defined({ minCapacityGiB: meta?.minCapacityGiB, maxCapacityGiB: meta?.maxCapacityGiB }),
    // Resolved against the exported flavors: an id the region does not offer is no flavor a volume can meet.
    ...(supported.length === 0
      ? {}
      : { supportedFlavorIDs: flavors.map((f) => f.id).filter((id) => supported.includes(id)) }),
  };
}

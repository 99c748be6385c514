/**
 * Volumes, pure (openregion's v2-style shape; upstream has no volume path yet): the class must be one the region
 * exports, the size within its capacity bounds (operator-authored whole GiB, either optional:
 * docs/spec/openstack-provider.md §VolumeClass configuration); the class is immutable and a volume never shrinks.
 */
import type { Network, Volume } from '../../apis/index.ts';
import type { VolumeClass } from '../../provider/types.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import type { VolumeV2Read, VolumeV2Spec } from '../schemas/inventory.ts';
import { readMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { defined } from '../../../util/defined.ts';

export function capacityViolations(spec: VolumeV2Spec, volumeClass: VolumeClass | undefined): FieldViolation[] {
  if (volumeClass === undefined) return [violation('/spec/volumeClassId', 'exists', 'no such volume class')];
  const errors: FieldViolation[] = [];
  if (volumeClass.minCapacityGiB !== undefined && spec.sizeGiB < volumeClass.minCapacityGiB) {
    errors.push(
      violation(
        '/spec/sizeGiB',
        'minCapacity',
        `the volume class needs at least ${String(volumeClass.minCapacityGiB)} GiB`,
      ),
    );
  }
  if (volumeClass.maxCapacityGiB !== undefined && spec.sizeGiB > volumeClass.maxCapacityGiB) {
    errors.push(
      violation(
        '/spec/sizeGiB',
        'maxCapacity',
        `the volume class allows at most ${String(volumeClass.maxCapacityGiB)} GiB`,
      ),
    );
  }
  return errors;
}

/** Whole GiB from a stored quantity (`10Gi`), undefined when it is not one. */
function gibOf(quantity: string | number | undefined): number | undefined {
  if (typeof quantity === 'number') return Math.ceil(quantity / 2 ** 30);
  const match = /^(\d+)Gi$/.exec(quantity ?? '');
  return match === null ? undefined : Number(match[1]);
}

export function volumeUpdateViolations(
  spec: VolumeV2Spec,
  current: Volume,
  volumeClass: VolumeClass | undefined,
): FieldViolation[] {
  if (spec.volumeClassId !== current.spec.volumeClassID) {
    return [violation('/spec/volumeClassId', 'immutable', 'the volume class cannot be changed')];
  }
  const errors = capacityViolations(spec, volumeClass);
  const before = gibOf(current.spec.size);
  if (before !== undefined && spec.sizeGiB < before) {
    errors.push(violation('/spec/sizeGiB', 'noShrink', 'a volume cannot shrink'));
  }
  return errors;
}

export function volumeFor(
  id: string,
  metadata: ResourceWriteMetadata,
  spec: VolumeV2Spec,
  network: Network,
  principal: Principal,
): Volume {
  const tenancy = { ...tenancyOf(network), networkID: network.metadata.name };
  return resource('Volume', newMetadata(id, metadata, tenancy, principal, network), {
    networkID: network.metadata.name,
    volumeClassID: spec.volumeClassId,
    size: `${String(spec.sizeGiB)}Gi`,
    ...defined({ tags: metadata.tags }),
  }) as Volume;
}

export function volumeRead(volume: Volume): VolumeV2Read {
  const tenancy = tenancyOf(volume);
  const provisioned = gibOf(volume.status?.size);
  return {
    metadata: readMetadataOf(volume),
    spec: { volumeClassId: volume.spec.volumeClassID, sizeGiB: gibOf(volume.spec.size) ?? 0 },
    status: {
      regionId: tenancy.regionID,
      networkId: volume.spec.networkID ?? tenancy.networkID,
      ...defined({ sizeGiB: provisioned }),
      ...(volume.spec.claimRef === undefined ? {} : { serverId: volume.spec.claimRef.id }),
    },
  };
}

/**
 * The one disk-size rule, in Nova's unit. Nova's flavor disk (`root_gb`) is binary GiB: the root disk is made
 * `root_gb × 2³⁰` bytes, and Nova refuses an image larger than that (FlavorDiskSmallerThanImage). An image's size is
 * in GiB too (its `min_disk`, or its virtual size rounded up), so the two compare in one unit.
 */
import type { Flavor, Image } from './types.ts';

const GiB = 2 ** 30;

/** A flavor's disk in bytes, from Nova's `disk` field (GiB). */
export function flavorDiskBytes(novaDiskGiB: number): number {
  return novaDiskGiB * GiB;
}

/** A flavor's disk as Nova states it (GiB); 0 when the flavor has none (the image's size decides). */
export function flavorDiskGiB(flavor: Pick<Flavor, 'diskBytes'>): number {
  return Math.round((flavor.diskBytes ?? 0) / GiB);
}

/** Whether the image fits the flavor's root disk; a flavor with no disk (0) takes the image's size, as Nova does. */
export function imageFitsFlavorDisk(image: Pick<Image, 'sizeGiB'>, flavor: Pick<Flavor, 'diskBytes'>): boolean {
  const disk = flavorDiskGiB(flavor);
  return disk === 0 || image.sizeGiB <= disk;
}

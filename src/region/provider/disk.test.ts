/** The disk rule in Nova's unit: GiB on both sides, and a flavor without a disk takes any image. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flavorDiskBytes, flavorDiskGiB, imageFitsFlavorDisk } from './disk.ts';

describe('flavor disk', () => {
  it("is Nova's root_gb in binary GiB, read back as the same number", () => {
    assert.equal(flavorDiskBytes(1), 2 ** 30);
    assert.equal(flavorDiskGiB({ diskBytes: flavorDiskBytes(20) }), 20);
    assert.equal(flavorDiskGiB({}), 0);
  });

  it('an image fits up to exactly the flavor disk; a diskless flavor takes any image', () => {
    const oneGiB = { diskBytes: flavorDiskBytes(1) };
    assert.equal(imageFitsFlavorDisk({ sizeGiB: 1 }, oneGiB), true);
    assert.equal(imageFitsFlavorDisk({ sizeGiB: 2 }, oneGiB), false);
    assert.equal(imageFitsFlavorDisk({ sizeGiB: 500 }, {}), true);
    assert.equal(imageFitsFlavorDisk({ sizeGiB: 500 }, { diskBytes: 0 }), true);
  });
});

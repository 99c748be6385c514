/** Flavor export: public only, the ids allowlist, overrides, and the architecture fallbacks in order. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Flavor as NovaFlavor } from '../../../openstack/compute.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { exportFlavors } from './flavors.ts';

const nova = (id: string, isPublic = true): NovaFlavor => ({
  id,
  name: `flavor-${id}`,
  vcpus: 2,
  ram: 4096,
  disk: 20,
  swap: 0,
  'OS-FLV-EXT-DATA:ephemeral': 0,
  'os-flavor-access:is_public': isPublic,
  description: null,
});
const base: RegionOpenstack = { endpoint: 'e', serviceAccountSecret: { namespace: 'n', name: 's' } };

describe('flavor export', () => {
  it("exports public flavors only, with memory in bytes and disk in Nova's GiB", () => {
    assert.deepEqual(exportFlavors([nova('a'), nova('private', false)], base), [
      {
        id: 'a',
        name: 'flavor-a',
        architecture: 'x86_64',
        cpus: 2,
        memoryBytes: 4096 * 2 ** 20,
        diskBytes: 20 * 2 ** 30,
        baremetal: false,
        pinnedOnly: false,
      },
    ]);
  });

  it('a non-empty ids selector is an allowlist; an empty one selects everything public', () => {
    const flavors = [nova('a'), nova('b'), nova('c', false)];
    const only = (ids: string[]) => ({ ...base, compute: { flavors: { selector: { ids } } } });
    assert.deepEqual(
      exportFlavors(flavors, only(['b', 'c'])).map((f) => f.id),
      ['b'],
    );
    assert.deepEqual(
      exportFlavors(flavors, only([])).map((f) => f.id),
      ['a', 'b'],
    );
  });

  it('metadata overrides CPU count and memory, and adds baremetal, pinned-only, family and GPU', () => {
    const config: RegionOpenstack = {
      ...base,
      compute: {
        flavors: {
          metadata: [
            {
              id: 'gpu',
              baremetal: true,
              pinnedOnly: true,
              cpu: { count: 96, family: 'EPYC' },
              memory: '1Ti',
              gpu: { vendor: 'AMD', model: 'MI300X', memory: '192Gi', physicalCount: 8, logicalCount: 64 },
            },
          ],
        },
      },
    };
    const [flavor] = exportFlavors([nova('gpu')], config);
    assert.deepEqual(flavor, {
      id: 'gpu',
      name: 'flavor-gpu',
      architecture: 'x86_64',
      cpus: 96,
      cpuFamily: 'EPYC',
      memoryBytes: 2 ** 40,
      diskBytes: 20 * 2 ** 30,
      gpu: { vendor: 'AMD', model: 'MI300X', memoryBytes: 192 * 2 ** 30, physicalCount: 8, logicalCount: 64 },
      baremetal: true,
      pinnedOnly: true,
    });
  });

  it('architecture: the flavor’s cpu.architecture, then defaultArchitecture, then x86_64', () => {
    const config: RegionOpenstack = {
      ...base,
      defaultArchitecture: 'aarch64',
      compute: { flavors: { metadata: [{ id: 'x', cpu: { architecture: 'x86_64' } }] } },
    };
    const arch = (c: RegionOpenstack) => exportFlavors([nova('x'), nova('y')], c).map((f) => f.architecture);
    assert.deepEqual(arch(config), ['x86_64', 'aarch64']);
    assert.deepEqual(arch(base), ['x86_64', 'x86_64']);
  });
});

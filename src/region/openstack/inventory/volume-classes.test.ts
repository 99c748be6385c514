/** VolumeClass export: the fail-closed allowlist, enrichment, validated capacity bounds, supported flavors. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VolumeType } from '../../../openstack/blockstorage.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { boundsProblem, exportVolumeClasses } from './volume-classes.ts';

const type = (id: string, isPublic = true): VolumeType => ({
  id,
  name: `type-${id}`,
  description: id === 'fast' ? 'NVMe' : null,
  is_public: isPublic,
});
const types = [type('fast'), type('slow'), type('hidden', false)];
const base: RegionOpenstack = { endpoint: 'e', serviceAccountSecret: { namespace: 'n', name: 's' } };
const withClasses = (volumeClasses: NonNullable<NonNullable<RegionOpenstack['blockStorage']>['volumeClasses']>) => ({
  ...base,
  blockStorage: { volumeClasses },
});
const flavors = [{ id: 'f1' }, { id: 'f2' }];
const ids = (config: RegionOpenstack) => exportVolumeClasses(types, config, flavors).classes.map((c) => c.id);

describe('volume class export', () => {
  it('fails closed: no configuration, no selector or empty ids export nothing', () => {
    assert.deepEqual(ids(base), []);
    assert.deepEqual(ids({ ...base, blockStorage: {} }), []);
    assert.deepEqual(ids(withClasses({})), []);
    assert.deepEqual(ids(withClasses({ selector: {} })), []);
    assert.deepEqual(ids(withClasses({ selector: { ids: [] } })), []);
  });

  it('exports exactly the selected public types, unenriched by default', () => {
    assert.deepEqual(ids(withClasses({ selector: { ids: ['slow', 'hidden', 'absent'] } })), ['slow']);
    assert.deepEqual(exportVolumeClasses(types, withClasses({ selector: { ids: ['fast'] } }), flavors).classes, [
      { id: 'fast', name: 'type-fast', description: 'NVMe', encrypted: false },
    ]);
  });

  it('enriches with media, performance caps, encryption, bounds and the resolved flavor allowlist', () => {
    const config = withClasses({
      selector: { ids: ['fast', 'slow'] },
      metadata: [
        {
          id: 'fast',
          media: 'nvme',
          performance: { maxIOPS: 50_000, maxThroughputMiBps: 800 },
          encrypted: true,
          minCapacityGiB: 10,
          maxCapacityGiB: 1000,
          supportedFlavors: { selector: { ids: ['f2', 'not-exported'] } },
        },
        { id: 'slow', supportedFlavors: { selector: { ids: [] } } },
      ],
    });
    assert.deepEqual(exportVolumeClasses(types, config, flavors).classes, [
      {
        id: 'fast',
        name: 'type-fast',
        description: 'NVMe',
        media: 'nvme',
        performance: { maxIOPS: 50_000, maxThroughputMiBps: 800 },
        encrypted: true,
        minCapacityGiB: 10,
        maxCapacityGiB: 1000,
        supportedFlavorIDs: ['f2'],
      },
      { id: 'slow', name: 'type-slow', encrypted: false },
    ]);
  });

  it('capacity bounds: positive whole GiB, either optional, max ≥ min; a broken class is left out and named', () => {
    assert.equal(boundsProblem(undefined), undefined);
    assert.equal(boundsProblem({ minCapacityGiB: 5 }), undefined);
    assert.equal(boundsProblem({ maxCapacityGiB: 5 }), undefined);
    assert.equal(boundsProblem({ minCapacityGiB: 5, maxCapacityGiB: 5 }), undefined);
    assert.match(boundsProblem({ minCapacityGiB: 6, maxCapacityGiB: 5 }) ?? '', /below/);
    assert.match(boundsProblem({ minCapacityGiB: 0 }) ?? '', /positive whole/);
    assert.match(boundsProblem({ maxCapacityGiB: 1.5 }) ?? '', /positive whole/);
    const config = withClasses({
      selector: { ids: ['fast', 'slow'] },
      metadata: [{ id: 'fast', minCapacityGiB: 100, maxCapacityGiB: 10 }],
    });
    const exported = exportVolumeClasses(types, config, flavors);
    assert.deepEqual(
      exported.classes.map((c) => c.id),
      ['slow'],
    );
    assert.deepEqual(exported.rejected, [{ id: 'fast', why: 'maxCapacityGiB is below minCapacityGiB' }]);
  });
});

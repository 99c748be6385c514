/**
 * Inventory caches live with the registry's client set: repeated lookups reuse them, and a change to the Region's
 * OpenStack configuration (which rebuilds the client set) replaces them and stops the old image refresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { regionType } from '../../apis/region.ts';
import { regionFixture, type RegionFixture } from '../testing/region.ts';
import { InventoryCaches } from './caches.ts';
import type { Scheduler } from './refresh-ahead.ts';

let fx: RegionFixture;
before(async () => {
  fx = await regionFixture();
});
after(() => fx.close());

describe('inventory caches and the client set', () => {
  it('are the same across lookups, and new (the old refresh stopped) once the configuration changes', async () => {
    const timers: { cancelled: boolean }[] = [];
    const scheduler: Scheduler = {
      every: () => {
        const timer = { cancelled: false };
        timers.push(timer);
        return {
          cancel: () => {
            timer.cancelled = true;
          },
        };
      },
    };
    const caches = new InventoryCaches({ clock: fx.clock, imageCache: true, scheduler });
    const registry = await fx.registry();
    const name = fx.region.metadata.name;
    const first = caches.for(await registry.lookup(name));
    assert.equal(caches.for(await registry.lookup(name)), first, 'same client set, same caches');
    await first.images?.ready();
    assert.deepEqual(timers, [{ cancelled: false }]);

    const region = await fx.store.get(regionType, fx.namespace, name);
    const openstack = region.spec.openstack ?? assert.fail('an OpenStack region');
    await fx.store.update(regionType, {
      ...region,
      spec: { ...region.spec, openstack: { ...openstack, defaultArchitecture: 'aarch64' } },
    });
    const second = caches.for(await registry.lookup(name));
    assert.notEqual(second, first, 'a rebuilt client set gets new caches');
    assert.deepEqual(timers, [{ cancelled: true }], 'the old image refresh is stopped');
    assert.equal(caches.for(await registry.lookup(name)), second);
  });
});

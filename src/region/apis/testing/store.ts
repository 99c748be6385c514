/**
 * The one region test store: an embedded store (in memory) serving the region kinds' CRDs, each built from its one
 * TypeBox schema. Every region fixture opens its store here (controllers' fakes, the API fixture, the provider's
 * region fixture, the VLAN allocator's), so a new kind or CRD rule reaches them all at once.
 */
import { after } from 'node:test';
import { customResourceDefinition } from '../../../kube/crd.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../../kube/embedded/store.ts';
import { builtin, type ResourceType } from '../../../kube/resource-type.ts';
import type { Clock } from '../../../util/clock.ts';
import { regionKinds } from '../index.ts';

interface RegionStoreOptions {
  /** The kinds to serve; every region kind when absent. */
  readonly only?: readonly ResourceType[] | undefined;
  /** Kinds not to serve (a controller's missing CRD, say). */
  readonly without?: readonly ResourceType[] | undefined;
  /** The store's garbage collector, as `up` runs it; off unless asked for. */
  readonly garbageCollection?: boolean | undefined;
}

export async function openRegionStore(clock: Clock, options: RegionStoreOptions = {}): Promise<EmbeddedStore> {
  const { only, without = [], garbageCollection = false } = options;
  const store = openEmbeddedStore(':memory:', { clock, garbageCollection });
  for (const kind of regionKinds) {
    if ((only !== undefined && !only.includes(kind.type)) || without.includes(kind.type)) continue;
    await store.create(builtin.customResourceDefinition, customResourceDefinition(kind));
  }
  return store;
}

/**
 * A test file's region stores, each closed when the file's tests end: `const openStore = regionStoresClosedAfter();`
 * at the top, then `const store = await openStore(clock)` in each test.
 */
export function regionStoresClosedAfter(): (clock: Clock, options?: RegionStoreOptions) => Promise<EmbeddedStore> {
  const stores: EmbeddedStore[] = [];
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
  });
  return async (clock, options) => {
    const store = await openRegionStore(clock, options);
    stores.push(store);
    return store;
  };
}

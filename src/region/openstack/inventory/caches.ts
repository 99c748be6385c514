/**
 * The inventory caches of each region, held with its client set (docs/spec/openstack-provider.md §VolumeClass
 * configuration: "the block-storage service client is cached with the other OpenStack service clients so Cinder
 * volume-type inventory cache survives repeated provider calls"). The registry rebuilds a region's client set exactly
 * when its configuration or credentials change (registry.ts), so a bundle lives as long as the client set it was made
 * for: a new set gets new caches, and the old ones' timers are stopped.
 *
 * Flavors, volume types and external networks are refresh-ahead caches like the image cache (ADR 0020): readers get
 * the last listing at once, and a timer re-lists every inventory period, so a flavor an operator adds shows without a
 * restart or a Region edit.
 *
 * One InventoryCaches is made at wiring time and handed to every inventory provider call.
 */
import type { Logger } from 'pino';
import type { VolumeType } from '../../../openstack/blockstorage.ts';
import { listVolumeTypes } from '../../../openstack/blockstorage.ts';
import type { Flavor as NovaFlavor } from '../../../openstack/compute.ts';
import { listFlavors } from '../../../openstack/compute.ts';
import { listNetworks, type Network } from '../../../openstack/network.ts';
import type { Clock } from '../../../util/clock.ts';
import type { Image } from '../../provider/types.ts';
import type { ManagedRegionClientSet } from '../client-set.ts';
import type { RegionContext } from '../registry.ts';
import { regionArchitecture } from './flavors.ts';
import { signingKeyOf } from './image-signature.ts';
import { byCreated, loadImages } from './images.ts';
import { RefreshAheadCache, timerScheduler, type Scheduler } from './refresh-ahead.ts';

/** docs/spec/upstream-region.md §Image cache: images are refreshed every minute. */
const IMAGE_REFRESH_MS = 60 * 1000;
/** Flavors, volume types and external networks: re-listed every five minutes (ADR 0020). */
export const INVENTORY_REFRESH_MS = 5 * 60 * 1000;

interface InventoryCacheOptions {
  readonly clock: Clock;
  /** Upstream's WarmImageCache: only the API server runs the image cache; elsewhere images are unavailable. */
  readonly imageCache: boolean;
  readonly scheduler?: Scheduler | undefined;
  readonly imageRefreshMs?: number | undefined;
  /** How often flavors, volume types and external networks are re-listed. */
  readonly inventoryRefreshMs?: number | undefined;
  readonly log?: Logger | undefined;
}

interface RegionInventoryCaches {
  readonly flavors: RefreshAheadCache<NovaFlavor>;
  readonly volumeTypes: RefreshAheadCache<VolumeType>;
  /** Every `router:external` network the region credential sees; the Region's selector narrows it on read. */
  readonly externalNetworks: RefreshAheadCache<Network>;
  readonly images: RefreshAheadCache<Image> | undefined;
}

const stopAll = (caches: RegionInventoryCaches) => {
  for (const cache of [caches.flavors, caches.volumeTypes, caches.externalNetworks, caches.images]) cache?.stop();
};
/** Nova lists flavors by id unless asked otherwise; every inventory list keeps that order. */
const byID = (a: { readonly id: string }, b: { readonly id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

interface Held {
  readonly clients: ManagedRegionClientSet;
  readonly caches: RegionInventoryCaches;
}

export class InventoryCaches {
  readonly #options: InventoryCacheOptions;
  readonly #held = new Map<string, Held>();

  constructor(options: InventoryCacheOptions) {
    this.#options = options;
  }

  /** The caches of this context's client set: the ones in hand while the set is, new ones when it was rebuilt. */
  for(region: RegionContext): RegionInventoryCaches {
    const name = region.region.metadata.name;
    const held = this.#held.get(name);
    if (held?.clients === region.clients) return held.caches;
    if (held !== undefined) stopAll(held.caches);
    const caches = this.#build(region);
    this.#held.set(name, { clients: region.clients, caches });
    return caches;
  }

  /**
   * Drops images the region no longer holds (an identity's snapshots, deleted at its teardown) from the region's image
   * cache at once rather than at its next refresh. Only caches already made are touched: a process without one has
   * nothing to forget.
   */
  forgetImages(region: RegionContext, imageIDs: readonly string[]): void {
    const held = this.#held.get(region.region.metadata.name);
    if (held?.clients !== region.clients) return;
    for (const id of imageIDs) held.caches.images?.forget(id);
  }

  /** Stops every refresh (process shutdown). */
  stop(): void {
    for (const { caches } of this.#held.values()) stopAll(caches);
  }

  #build(region: RegionContext): RegionInventoryCaches {
    const { clock, log } = this.#options;
    const scheduler = this.#options.scheduler ?? timerScheduler;
    const client = region.clients.region();
    const readOptions = {
      defaultArchitecture: regionArchitecture(region.config),
      signingKey: signingKeyOf(region.config.image?.selector?.signingKey),
    };
    if (readOptions.signingKey?.kind === 'invalid') {
      log?.error({ why: readOptions.signingKey.why }, 'image signing key does not parse: public images are hidden');
    }
    const images = this.#options.imageCache
      ? new RefreshAheadCache<Image>({
          load: async () => {
            const loaded = await loadImages(client.client('image'), readOptions);
            if (loaded.rejected.length > 0) log?.warn({ rejected: loaded.rejected }, 'images left out');
            return loaded.images;
          },
          key: (image) => image.id,
          compare: byCreated,
          scheduler,
          clock,
          periodMs: this.#options.imageRefreshMs ?? IMAGE_REFRESH_MS,
          onRefreshError: (error) => log?.warn({ err: error }, 'image cache refresh failed'),
        })
      : undefined;
    const inventory = <T extends { readonly id: string }>(what: string, load: () => Promise<readonly T[]>) =>
      new RefreshAheadCache<T>({
        load,
        key: (item) => item.id,
        compare: byID,
        scheduler,
        clock,
        periodMs: this.#options.inventoryRefreshMs ?? INVENTORY_REFRESH_MS,
        onRefreshError: (error) => log?.warn({ err: error }, `${what} refresh failed`),
      });
    return {
      flavors: inventory('flavor', () => listFlavors(client.client('compute'), { isPublic: true })),
      volumeTypes: inventory('volume type', () => listVolumeTypes(client.client('block-storage'), { isPublic: true })),
      externalNetworks: inventory('external network', () =>
        listNetworks(client.client('network'), { routerExternal: true }),
      ),
      images,
    };
  }
}

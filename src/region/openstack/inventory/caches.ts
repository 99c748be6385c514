/**
 * The inventory caches of each region, held with its client set (docs/spec/openstack-provider.md §VolumeClass
 * configuration: "the block-storage service client is cached with the other OpenStack service clients so Cinder
 * volume-type inventory cache survives repeated provider calls and is refreshed only when Region configuration or
 * credentials change"). The registry rebuilds a region's client set exactly when its configuration or credentials
 * change (registry.ts), so a bundle lives as long as the client set it was made for: a new set gets new caches, and the
 * old image cache's timer is stopped.
 *
 * One InventoryCaches is made at wiring time and handed to every inventory provider call.
 */
import type { Logger } from 'pino';
import type { VolumeType } from '../../../openstack/blockstorage.ts';
import { listVolumeTypes } from '../../../openstack/blockstorage.ts';
import type { Flavor as NovaFlavor } from '../../../openstack/compute.ts';
import { listFlavors } from '../../../openstack/compute.ts';
import type { Clock } from '../../../util/clock.ts';
import type { Image } from '../../provider/types.ts';
import type { ManagedRegionClientSet } from '../client-set.ts';
import type { RegionContext } from '../registry.ts';
import { regionArchitecture } from './flavors.ts';
import { signingKeyOf } from './image-signature.ts';
import { byCreated, loadImages } from './images.ts';
import { RefreshAheadCache, timerScheduler, type Scheduler } from './refresh-ahead.ts';
import { TtlCache } from './ttl-cache.ts';

/**
 * docs/spec/upstream-region.md §Image cache: flavors and volume types are kept an hour; images are refreshed every
 * minute.
 */
const INVENTORY_TTL_MS = 60 * 60 * 1000;
const IMAGE_REFRESH_MS = 60 * 1000;

interface InventoryCacheOptions {
  readonly clock: Clock;
  /** Upstream's WarmImageCache: only the API server runs the image cache; elsewhere images are unavailable. */
  readonly imageCache: boolean;
  readonly scheduler?: Scheduler | undefined;
  readonly imageRefreshMs?: number | undefined;
  readonly ttlMs?: number | undefined;
  readonly log?: Logger | undefined;
}

interface RegionInventoryCaches {
  readonly flavors: TtlCache<NovaFlavor[]>;
  readonly volumeTypes: TtlCache<VolumeType[]>;
  readonly images: RefreshAheadCache<Image> | undefined;
}

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
    held?.caches.images?.stop();
    const caches = this.#build(region);
    this.#held.set(name, { clients: region.clients, caches });
    return caches;
  }

  /** Stops every image refresh (process shutdown). */
  stop(): void {
    for (const { caches } of this.#held.values()) caches.images?.stop();
  }

  #build(region: RegionContext): RegionInventoryCaches {
    const { clock, log } = this.#options;
    const ttl = this.#options.ttlMs ?? INVENTORY_TTL_MS;
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
          scheduler: this.#options.scheduler ?? timerScheduler,
          clock,
          periodMs: this.#options.imageRefreshMs ?? IMAGE_REFRESH_MS,
          onRefreshError: (error) => log?.warn({ err: error }, 'image cache refresh failed'),
        })
      : undefined;
    return {
      flavors: new TtlCache(clock, ttl, () => listFlavors(client.client('compute'), { isPublic: true })),
      volumeTypes: new TtlCache(clock, ttl, () => listVolumeTypes(client.client('block-storage'), { isPublic: true })),
      images,
    };
  }
}

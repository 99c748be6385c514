/**
 * The region's inventory as the contract's CommonProvider, ImageRead and ImageWrite: flavors and VolumeClasses
 * from Nova and Cinder (region credentials, the region's own project) combined with the Region's configuration,
 * and images through the refresh-ahead cache. Every cache is the client set's (caches.ts), so repeated calls reuse
 * them and a configuration or credentials change starts afresh.
 */
import type { Logger } from 'pino';
import { classify } from '../../provider/classify.ts';
import type { CallContext, InventoryProvider } from '../../provider/contract.ts';
import { ProviderError, ResourceKind, TransientError } from '../../provider/errors.ts';
import type { Flavor, VolumeClass } from '../../provider/types.ts';
import type { RegionContext } from '../registry.ts';
import type { InventoryCaches } from './caches.ts';
import { exportFlavors } from './flavors.ts';
import { ImageInventory } from './images.ts';
import { exportVolumeClasses } from './volume-classes.ts';

interface InventoryDeps {
  readonly caches: InventoryCaches;
  readonly log?: Logger | undefined;
}

export function inventoryProviderFor(region: RegionContext, deps: InventoryDeps): InventoryProvider {
  const caches = deps.caches.for(region);
  const images = new ImageInventory({
    glance: () => region.clients.region().client('image'),
    owner: (projectID) => region.clients.privileged(projectID).client('image'),
    regionProjectID: region.clients.credentials.projectID,
    cache: caches.images,
  });
  const flavors = async (ctx: CallContext): Promise<Flavor[]> => {
    ctx.signal.throwIfAborted();
    return exportFlavors(
      await reading('list flavors', ResourceKind.Flavor, async () => (await caches.flavors.list()).items),
      region.config,
    );
  };
  const volumeClasses = async (ctx: CallContext): Promise<VolumeClass[]> => {
    // Fail closed before any call: no selected ids, no classes.
    if ((region.config.blockStorage?.volumeClasses?.selector?.ids ?? []).length === 0) return [];
    const types = await reading(
      'list volume types',
      ResourceKind.VolumeClass,
      async () => (await caches.volumeTypes.list()).items,
    );
    // Flavors are read only when some class names supported flavors: otherwise Nova has no say in the answer.
    const metadata = region.config.blockStorage?.volumeClasses?.metadata ?? [];
    const needsFlavors = metadata.some((m) => (m.supportedFlavors?.selector?.ids ?? []).length > 0);
    const exported = exportVolumeClasses(types, region.config, needsFlavors ? await flavors(ctx) : []);
    if (exported.rejected.length > 0) deps.log?.warn({ rejected: exported.rejected }, 'volume classes left out');
    return exported.classes;
  };
  return {
    region: () => Promise.resolve(region.region),
    flavors,
    volumeClasses,
    queryImages: () => images.queryImages(),
    getImage: (ctx, organizationID, imageID) => images.getImage(ctx, organizationID, imageID),
    createImage: (ctx, image, uri) => images.createImage(ctx, image, uri),
    deleteImage: (ctx, imageID) => images.deleteImage(ctx, imageID),
    recordSnapshot: (image) => {
      images.recordSnapshot(image);
    },
  };
}

async function reading<T>(operation: string, resource: ResourceKind, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const result = classify(error, { resource, operation });
    throw result instanceof ProviderError
      ? result
      : new TransientError(`${operation}: rejected`, { resource, cause: error });
  }
}

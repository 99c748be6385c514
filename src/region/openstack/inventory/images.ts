/**
 * The region's images (docs/spec/openstack-provider.md §Image handling), all through the refresh-ahead cache: query and
 * get read its snapshot; create registers a public image and asks Glance to import it by web-download, then inserts a
 * write-through entry; delete removes it from Glance and leaves a `failed` tombstone until the next refresh; a snapshot
 * the server side took is recorded the same way as a create. With the cache disabled all of these are unavailable
 * (ResourceNotFoundError), as upstream has it (docs/spec/openstack-provider.md §Caveats), not an accident.
 */
import * as glance from '../../../openstack/image.ts';
import { NotFoundError } from '../../../openstack/errors.ts';
import type { CallContext, ImageQuery, ImageRead, ImageWrite } from '../../provider/contract.ts';
import {
  ProviderError,
  ResourceConflictError,
  ResourceKind,
  ResourceNotFoundError,
  TransientError,
} from '../../provider/errors.ts';
import { classify } from '../../provider/classify.ts';
import type { Image, ImageList, ImageStatus } from '../../provider/types.ts';
import type { PrivilegedClient, RegionClient } from '../principals.ts';
import { imageWriteProperties, readImage, type ImageReadOptions } from './image-convert.ts';
import type { RefreshAheadCache } from './refresh-ahead.ts';

/** Glance's `api_limit_max`: the fewest pages for a full listing. */
const IMAGE_PAGE_SIZE = 1000;

interface ImageLoad {
  readonly images: Image[];
  /** Images left out, with why (operator-only). */
  readonly rejected: readonly { readonly id: string; readonly why: string }[];
}

/** Every public image that passes the schema and signature checks, oldest first. */
export async function loadImages(client: glance.ImageClient, options: ImageReadOptions): Promise<ImageLoad> {
  const listed = await glance.listImages(client, { visibility: 'public' }, { pageSize: IMAGE_PAGE_SIZE });
  const images: Image[] = [];
  const rejected: { id: string; why: string }[] = [];
  for (const item of listed) {
    const reading = readImage(item, options);
    if (reading.ok) images.push(reading.image);
    else rejected.push({ id: item.id, why: reading.why });
  }
  return { images: images.sort(byCreated), rejected };
}

export const byCreated = (a: Image, b: Image): number =>
  a.created < b.created ? -1 : a.created > b.created ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

interface ImageInventoryDeps {
  /** The region's own client: images are region inventory. */
  readonly glance: () => RegionClient<'image'>;
  /**
   * The privileged client (region credentials) in the project owning an image: a server snapshot belongs to its
   * identity's project, and Glance lets only the owner (or an admin) delete an image.
   */
  readonly owner?: ((projectID: string) => PrivilegedClient<'image'>) | undefined;
  /** The project the region client is scoped to: images it owns are deleted with the region client. */
  readonly regionProjectID?: string | undefined;
  /** Undefined when the image cache is disabled. */
  readonly cache: RefreshAheadCache<Image> | undefined;
}

export class ImageInventory implements ImageRead, ImageWrite {
  readonly #deps: ImageInventoryDeps;

  constructor(deps: ImageInventoryDeps) {
    this.#deps = deps;
  }

  queryImages(): ImageQuery {
    return query(async () => this.#cache().list(), {});
  }

  async getImage(_ctx: CallContext, organizationID: string, imageID: string): Promise<Image> {
    const { items } = await this.#cache().list();
    const found = items.find((i) => i.id === imageID);
    if (found === undefined || (found.organizationID !== undefined && found.organizationID !== organizationID)) {
      throw new ResourceNotFoundError(`image ${imageID} is not visible to organization ${organizationID}`, image);
    }
    return found;
  }

  async createImage(ctx: CallContext, wanted: Image, uri: string): Promise<Image> {
    const cache = this.#cache();
    const client = this.#deps.glance();
    ctx.signal.throwIfAborted();
    const created = await failing('create image', () =>
      glance.createImage(client, {
        name: wanted.name,
        visibility: 'public',
        container_format: 'bare',
        disk_format: 'raw',
        properties: imageWriteProperties(wanted),
      }),
    );
    ctx.signal.throwIfAborted();
    await failing('import image', () => glance.importImageFromUrl(client, created.id, uri));
    const entry: Image = {
      ...wanted,
      id: created.id,
      created: created.created_at,
      modified: created.updated_at,
      status: 'pending',
    };
    cache.insertIfAbsent(entry);
    return entry;
  }

  async deleteImage(ctx: CallContext, imageID: string): Promise<void> {
    const cache = this.#cache();
    ctx.signal.throwIfAborted();
    await failing('delete image', async () => {
      const client = this.#deps.glance();
      let held: glance.Image;
      try {
        held = await glance.getImage(client, imageID);
      } catch (error) {
        if (error instanceof NotFoundError) return;
        throw error;
      }
      // Glance refuses a protected image (403) until someone unprotects it: the tenant's to resolve, not a retry.
      if (held.protected) throw new ResourceConflictError(`delete image ${imageID}: Glance holds it protected`, image);
      const { owner, regionProjectID } = this.#deps;
      const foreign = held.owner !== null && held.owner !== regionProjectID && owner !== undefined;
      try {
        await glance.deleteImage(foreign ? owner(held.owner ?? '') : client, imageID);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    });
    const held = cache.snapshot().items.find((i) => i.id === imageID);
    if (held !== undefined) cache.upsert({ ...held, status: 'failed' });
  }

  /** The snapshot hook: an image the server side had Nova take (and published) joins the inventory at once. */
  recordSnapshot(taken: Image): void {
    this.#cache().insertIfAbsent(taken);
  }

  #cache(): RefreshAheadCache<Image> {
    const { cache } = this.#deps;
    if (cache === undefined) throw new ResourceNotFoundError('the image cache is disabled in this process', image);
    return cache;
  }
}

const image = { resource: ResourceKind.Image };

interface Filters {
  readonly available?: readonly string[];
  readonly owned?: readonly string[];
  readonly statuses?: readonly ImageStatus[];
}

function query(source: () => Promise<ImageList>, filters: Filters): ImageQuery {
  return {
    availableToOrganization: (...ids) => query(source, { ...filters, available: ids }),
    ownedByOrganization: (...ids) => query(source, { ...filters, owned: ids }),
    statusIn: (...statuses) => query(source, { ...filters, statuses }),
    list: async (ctx) => {
      ctx.signal.throwIfAborted();
      const { epoch, items } = await source();
      return { epoch, items: items.filter((i) => matches(i, filters)) };
    },
  };
}

function matches(item: Image, { available, owned, statuses }: Filters): boolean {
  const org = item.organizationID;
  if (available !== undefined && org !== undefined && !available.includes(org)) return false;
  if (owned !== undefined && (org === undefined || !owned.includes(org))) return false;
  return statuses === undefined || statuses.includes(item.status);
}

/** Glance's failure as the catalogue's: a refusal Glance will repeat is no transient, but has no other class here. */
async function failing<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const result = classify(error, { resource: ResourceKind.Image, operation });
    if (result instanceof ProviderError) throw result;
    throw new TransientError(`${operation}: rejected`, { ...image, cause: error });
  }
}

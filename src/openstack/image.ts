/**
 * Glance v2: images listed, read, created, patched, imported from a URL and deleted, plus the image schema. The
 * region service keeps its image metadata in custom properties (`unikorn:os:kernel`, `unikorn:virtualization`,
 * `unikorn:gpu_models`, `unikorn:digest`, …), which Glance stores as strings at the top level of the image.
 *
 * Request bodies are wire-shaped (snake_case, as Glance reads them); list filters are camelCase option objects.
 * Image data upload is not here: images arrive through the `web-download` import.
 */
import { exactlyNamed } from './exact.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import { toQuery, type QueryKeys } from './request.ts';
import type { ServiceClient } from './session.ts';

export type ImageClient = ServiceClient<'image'>;

export type ImageStatus =
  'queued' | 'saving' | 'uploading' | 'importing' | 'active' | 'deactivated' | 'killed' | 'deleted' | 'pending_delete';

type ImageVisibility = 'public' | 'private' | 'shared' | 'community';

/** What a top-level image field can hold: core fields are typed below, custom properties are always strings. */
type ImagePropertyValue = string | number | boolean | null | readonly string[];

export interface Image {
  readonly id: string;
  readonly name: string | null;
  readonly status: ImageStatus;
  readonly visibility: ImageVisibility;
  readonly owner: string | null;
  readonly disk_format: string | null;
  readonly container_format: string | null;
  /** Bytes; null until data has arrived. */
  readonly size: number | null;
  readonly virtual_size?: number | null;
  readonly checksum: string | null;
  readonly os_hash_algo: string | null;
  readonly os_hash_value: string | null;
  /** GB. */
  readonly min_disk: number;
  /** MB. */
  readonly min_ram: number;
  readonly protected: boolean;
  readonly os_hidden: boolean;
  readonly tags: readonly string[];
  readonly created_at: string;
  readonly updated_at: string;
  /** Custom properties, e.g. `unikorn:os:distro`; read them as strings with `imageProperties`. */
  readonly [property: string]: ImagePropertyValue | undefined;
}

/** Fields Glance owns or shows at the top level that are not custom properties. */
const CORE_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'status',
  'visibility',
  'owner',
  'disk_format',
  'container_format',
  'size',
  'virtual_size',
  'checksum',
  'os_hash_algo',
  'os_hash_value',
  'min_disk',
  'min_ram',
  'protected',
  'os_hidden',
  'tags',
  'created_at',
  'updated_at',
  'direct_url',
  'locations',
  'stores',
  'self',
  'file',
  'schema',
]);

/** The image's custom properties (everything outside Glance's core fields), all strings as Glance stores them. */
export function imageProperties(image: Image): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(image)) {
    if (!CORE_FIELDS.has(key) && typeof value === 'string') out[key] = value;
  }
  return out;
}

interface ImageFilter {
  readonly name?: string | undefined;
  /** One status, or several as `in:saving,queued`. */
  readonly status?: string | undefined;
  /** Glance's default list leaves community images out; `all` includes them. */
  readonly visibility?: ImageVisibility | 'all' | undefined;
  readonly owner?: string | undefined;
  /** Images carrying every one of these tags (sent as repeated `tag`). */
  readonly tags?: readonly string[] | undefined;
  readonly memberStatus?: 'accepted' | 'pending' | 'rejected' | 'all' | undefined;
  /** Glance's default list leaves hidden images out. */
  readonly osHidden?: boolean | undefined;
  /** `key[:dir],…`, e.g. `created_at:asc`. */
  readonly sort?: string | undefined;
}

const imageKeys: QueryKeys<ImageFilter> = {
  name: 'name',
  status: 'status',
  visibility: 'visibility',
  owner: 'owner',
  tags: 'tag',
  memberStatus: 'member_status',
  osHidden: 'os_hidden',
  sort: 'sort',
};

export function listImages(image: ImageClient, filter: ImageFilter = {}, options?: ListOptions): Promise<Image[]> {
  return listAll<Image>(
    image,
    {
      method: 'GET',
      path: '/images',
      query: toQuery(filter, imageKeys),
    },
    pageStyleFor('image', 'images'),
    options,
  );
}

/**
 * The image named exactly `name` among those the filter lists, or undefined; two are a ConsistencyError. Glance
 * reads a name filter starting with `in:` as its list operator, so such a name is matched without the filter.
 */
export async function findImageByName(
  image: ImageClient,
  name: string,
  filter: Omit<ImageFilter, 'name'> = {},
  options?: ListOptions,
): Promise<Image | undefined> {
  const serverName = name.startsWith('in:') ? undefined : name;
  return exactlyNamed(await listImages(image, { ...filter, name: serverName }, options), name, 'glance image');
}

export async function getImage(image: ImageClient, imageID: string): Promise<Image> {
  const { body } = await image.request<Image>({
    method: 'GET',
    path: '/images/{image_id}',
    params: { image_id: imageID },
  });
  return body;
}

interface ImageCreate {
  readonly name: string;
  /** Optional: Glance generates one when absent. */
  readonly id?: string | undefined;
  readonly disk_format?: string | undefined;
  readonly container_format?: string | undefined;
  readonly visibility?: ImageVisibility | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly min_disk?: number | undefined;
  readonly min_ram?: number | undefined;
  readonly os_hidden?: boolean | undefined;
  readonly protected?: boolean | undefined;
  /** Custom properties, sent at the top level beside the core fields; Glance accepts only string values. */
  readonly properties?: Readonly<Record<string, string>> | undefined;
}

/** Creates the image record (status `queued`); the data follows through `importImageFromUrl`. */
export async function createImage(image: ImageClient, create: ImageCreate): Promise<Image> {
  const { properties = {}, ...core } = create;
  for (const key of Object.keys(properties)) {
    // A custom property named like a core field would be silently taken as that field, or refused by Glance.
    if (CORE_FIELDS.has(key)) throw new Error(`image property ${JSON.stringify(key)} is a core Glance field`);
  }
  const { body } = await image.request<Image>({ method: 'POST', path: '/images', body: { ...properties, ...core } });
  return body;
}

/**
 * One change in Glance's JSON-patch subset. With the v2.1 media type `add` sets a property whether or not it
 * exists, while `replace` and `remove` answer 409 when it does not.
 */
type ImagePatch =
  | { readonly op: 'add' | 'replace'; readonly property: string; readonly value: ImagePropertyValue }
  | { readonly op: 'remove'; readonly property: string };

export const IMAGE_PATCH_CONTENT_TYPE = 'application/openstack-images-v2.1-json-patch';

export async function updateImage(image: ImageClient, imageID: string, patch: readonly ImagePatch[]): Promise<Image> {
  const { body } = await image.request<Image>({
    method: 'PATCH',
    path: '/images/{image_id}',
    params: { image_id: imageID },
    // Glance answers 415 to a PATCH with any other media type.
    contentType: IMAGE_PATCH_CONTENT_TYPE,
    body: patch.map((change) => {
      const path = `/${jsonPointerToken(change.property)}`;
      return change.op === 'remove' ? { op: 'remove', path } : { op: change.op, path, value: change.value };
    }),
  });
  return body;
}

/**
 * Asks Glance to fetch the image data from `uri` (202): the import runs asynchronously, the image moving through
 * `importing` to `active`, so callers poll the image. The image must be `queued`, and the cloud must enable the
 * `web-download` import method.
 */
export async function importImageFromUrl(image: ImageClient, imageID: string, uri: string): Promise<void> {
  await image.request({
    method: 'POST',
    path: '/images/{image_id}/import',
    params: { image_id: imageID },
    body: { method: { name: 'web-download', uri } },
  });
}

/** Uploads the image data (204): a `queued` image moves through `saving` to `active`. */
export async function uploadImageData(image: ImageClient, imageID: string, data: string | Uint8Array): Promise<void> {
  await image.request({
    method: 'PUT',
    path: '/images/{image_id}/file',
    params: { image_id: imageID },
    contentType: 'application/octet-stream',
    body: data,
  });
}

/** Deletes the image (204); a `protected` image is refused with 403. */
export async function deleteImage(image: ImageClient, imageID: string): Promise<void> {
  await image.request({ method: 'DELETE', path: '/images/{image_id}', params: { image_id: imageID } });
}

interface ImageSchemaProperty {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly enum?: readonly (string | null)[];
  readonly readOnly?: boolean;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/** The JSON schema of an image as this cloud defines it: its core properties and what custom ones may hold. */
interface ImageSchema {
  readonly name: string;
  readonly properties: Readonly<Record<string, ImageSchemaProperty>>;
  readonly additionalProperties?: boolean | { readonly type: string };
  readonly required?: readonly string[];
}

export async function getImageSchema(image: ImageClient): Promise<ImageSchema> {
  const { body } = await image.request<ImageSchema>({ method: 'GET', path: '/schemas/image' });
  return body;
}

/** RFC 6901: `~` and `/` in a property name are escaped, so `a/b` patches the property `a/b`, not a path. */
function jsonPointerToken(property: string): string {
  return property.replace(/~/g, '~0').replace(/\//g, '~1');
}

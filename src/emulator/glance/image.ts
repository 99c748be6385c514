/** Glance's image record, its JSON view, the JSON-patch subset Glance takes and its list filters. */
import { isoSeconds, type JsonObject } from '../json.ts';

type ImageStatus = 'queued' | 'saving' | 'importing' | 'active' | 'deactivated' | 'killed';

export interface GImage {
  readonly id: string;
  name: string | null;
  status: ImageStatus;
  visibility: string;
  owner: string | null;
  diskFormat: string | null;
  containerFormat: string | null;
  size: number | null;
  virtualSize: number | null;
  checksum: string | null;
  hashAlgo: string | null;
  hashValue: string | null;
  minDisk: number;
  minRam: number;
  protected: boolean;
  osHidden: boolean;
  tags: string[];
  readonly createdAt: number;
  updatedAt: number;
  /** Custom properties, strings shown at the top level (Glance's own `os_glance_*` ones among them). */
  properties: Record<string, string>;
}

/** Core fields as the API names them, with whether a caller may write them (the rest are read-only). */
export const CORE_FIELDS: Readonly<Record<string, 'writable' | 'read-only'>> = {
  id: 'read-only',
  name: 'writable',
  status: 'read-only',
  visibility: 'writable',
  owner: 'writable',
  disk_format: 'writable',
  container_format: 'writable',
  size: 'read-only',
  virtual_size: 'read-only',
  checksum: 'read-only',
  os_hash_algo: 'read-only',
  os_hash_value: 'read-only',
  min_disk: 'writable',
  min_ram: 'writable',
  protected: 'writable',
  os_hidden: 'writable',
  tags: 'writable',
  created_at: 'read-only',
  updated_at: 'read-only',
  direct_url: 'read-only',
  locations: 'read-only',
  stores: 'read-only',
  self: 'read-only',
  file: 'read-only',
  schema: 'read-only',
};

export function imageView(image: GImage): JsonObject {
  return {
    ...image.properties,
    name: image.name,
    disk_format: image.diskFormat,
    container_format: image.containerFormat,
    visibility: image.visibility,
    size: image.size,
    virtual_size: image.virtualSize,
    status: image.status,
    checksum: image.checksum,
    protected: image.protected,
    min_ram: image.minRam,
    min_disk: image.minDisk,
    owner: image.owner,
    os_hidden: image.osHidden,
    os_hash_algo: image.hashAlgo,
    os_hash_value: image.hashValue,
    id: image.id,
    created_at: isoSeconds(image.createdAt),
    updated_at: isoSeconds(image.updatedAt),
    tags: [...image.tags],
    self: `/v2/images/${image.id}`,
    file: `/v2/images/${image.id}/file`,
    schema: '/v2/schemas/image',
    ...(image.status === 'active' || image.status === 'deactivated' ? { stores: 'file' } : {}),
  };
}

/** `in:a,b` is Glance's list operator for name and status; anything else is one value. */
export const operands = (value: string): string[] => (value.startsWith('in:') ? value.slice(3).split(',') : [value]);

/** Orders by `key:dir,…` (Glance's `sort`), then by id as Glance's own tie-breaker. */
export function sorter(sort: string): (a: GImage, b: GImage) => number {
  const keys = sort
    .split(',')
    .filter((k) => k.length > 0)
    .map((k) => {
      const [key = 'created_at', dir = 'desc'] = k.split(':');
      return { key, sign: dir === 'asc' ? 1 : -1 };
    });
  // One view per image per sort, not per comparison: a 1,000-image list made ~20,000 views otherwise.
  const views = new WeakMap<GImage, JsonObject>();
  const viewOf = (image: GImage): JsonObject => {
    let view = views.get(image);
    if (view === undefined) views.set(image, (view = imageView(image)));
    return view;
  };
  return (a, b) => {
    for (const { key, sign } of [...keys, { key: 'id', sign: -1 }]) {
      const x = sortValue(viewOf(a), key);
      const y = sortValue(viewOf(b), key);
      if (x === y) continue;
      if (x === null) return -sign;
      if (y === null) return sign;
      return (x < y ? -1 : 1) * sign;
    }
    return 0;
  };
}

function sortValue(view: JsonObject, key: string): string | number | null {
  const value = view[key];
  return typeof value === 'string' || typeof value === 'number' ? value : null;
}

/** RFC 6901 pointer tokens: `~1` is `/`, `~0` is `~`. */
export const unescapePointer = (path: string): string =>
  path.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * Glance v2: images queued → active on a data upload, web-download imports (the emulator has no web, see
 * `importOutcome`), deactivate/reactivate for admins, visibility and owner scoping, custom properties at the top
 * level, Glance's JSON-patch media type, list filters and `next` paging, the image schema, delete.
 */
import { createHash } from 'node:crypto';
import { hasRole, isAdmin, mayAccessProject, type AuthContext } from './auth.ts';
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { glanceFault } from './faults.ts';
import { CORE_FIELDS, imageView, operands, sorter, unescapePointer, type GImage } from './glance/image.ts';
import { IMAGE_SCHEMA } from './glance/schema.ts';
import { json, noContent, type EmuRequest } from './http.ts';
import { isObject, objectAt, stringAt, stringsOf, type JsonObject } from './json.ts';
import type { ImageFacts, ImageLookup, Lookups } from './lookups.ts';
import { refill } from './records.ts';
import type { Schedule } from './timeline.ts';

const V2 = '/image/v2';
const PATCH_TYPE = 'application/openstack-images-v2.1-json-patch';
/** Glance's `limit_param_default` and `api_limit_max`. */
const DEFAULT_LIMIT = 25;
const MAX_LIMIT = 1000;

type ImportFailure = 'failed' | 'killed';

export class Glance implements EmulatedService, ImageLookup {
  readonly name = 'glance';
  readonly images = new Map<string, GImage>();
  readonly #ctx: ServiceContext;
  #failNextImport: ImportFailure | undefined;
  /** A web-download import ends: the data stored and the image active, or the failure it was bound for. */
  readonly #imported: Schedule<{ readonly id: string; readonly uri: string; readonly failure: ImportFailure | null }>;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#imported = ctx.timeline.define('glance.import', ({ id, uri, failure }) => {
      const image = this.images.get(id);
      if (image?.status !== 'importing') return;
      image.properties.os_glance_importing_to_stores = '';
      if (failure === null) {
        this.#store(image, Buffer.from(`web-download ${uri}`));
      } else if (failure === 'killed') {
        image.status = 'killed';
      } else {
        // Glance puts a failed import back to queued and names the store that failed.
        image.status = 'queued';
        image.properties.os_glance_failed_import = 'file';
      }
      image.updatedAt = ctx.clock.now();
    });
    this.#routes();
    this.#controls();
  }

  reset(): void {
    this.images.clear();
    this.#failNextImport = undefined;
  }

  records(): unknown {
    return { images: this.images, failNextImport: this.#failNextImport ?? null };
  }

  restore(records: unknown): void {
    const { images, failNextImport } = records as { images: unknown; failNextImport: ImportFailure | null };
    refill(this, { images });
    this.#failNextImport = failNextImport ?? undefined;
  }

  dump(): unknown {
    return { images: [...this.images.values()].map(imageView) };
  }

  /** Control: the next web-download import that would succeed fails instead (back to queued) or is killed. */
  failNextImport(mode: ImportFailure): void {
    this.#failNextImport = mode;
  }

  /** Control: a foreign admin deactivates or reactivates an image. */
  setActive(imageID: string, active: boolean): void {
    const image = this.images.get(imageID);
    if (!image) throw new Error(`no image ${imageID}`);
    image.status = active ? 'active' : 'deactivated';
    image.updatedAt = this.#ctx.clock.now();
  }

  // ------------------------------------------------------------------------------------------ ImageLookup (Nova)
  find(auth: AuthContext, imageID: string): ImageFacts | undefined {
    const image = this.images.get(imageID);
    if (!image || !this.#visible(auth, image)) return undefined;
    return {
      id: image.id,
      name: image.name,
      status: image.status,
      owner: image.owner,
      visibility: image.visibility,
      minDisk: image.minDisk,
      minRam: image.minRam,
    };
  }

  snapshot(auth: AuthContext, name: string, properties: Readonly<Record<string, string>>): string {
    const image = this.#newImage(auth.projectId ?? null, {
      name,
      visibility: 'private',
      properties: { ...properties },
    });
    return image.id;
  }

  finishSnapshot(imageID: string): void {
    const image = this.images.get(imageID);
    if (image?.status === 'queued') this.#store(image, Buffer.from(`snapshot ${imageID}`));
  }

  // ------------------------------------------------------------------------------------------ internals
  #visible(auth: AuthContext, image: GImage): boolean {
    return image.visibility === 'public' || image.visibility === 'community' || mayAccessProject(auth, image.owner);
  }

  #get(auth: AuthContext, id: string): GImage {
    const image = this.images.get(id);
    if (!image || !this.#visible(auth, image)) throw glanceFault(404, `No image found with ID ${id}`);
    return image;
  }

  /** Owner or admin: what may change an image (others get 403 on a visible image). */
  #owned(auth: AuthContext, id: string): GImage {
    const image = this.#get(auth, id);
    if (!mayAccessProject(auth, image.owner)) throw glanceFault(403, 'You are not permitted to modify this image.');
    return image;
  }

  #newImage(owner: string | null, init: Partial<Pick<GImage, 'name' | 'visibility' | 'properties'>>): GImage {
    const now = this.#ctx.clock.now();
    const image: GImage = {
      id: this.#ctx.newID(),
      name: init.name ?? null,
      status: 'queued',
      visibility: init.visibility ?? 'shared',
      owner,
      diskFormat: null,
      containerFormat: null,
      size: null,
      virtualSize: null,
      checksum: null,
      hashAlgo: null,
      hashValue: null,
      minDisk: 0,
      minRam: 0,
      protected: false,
      osHidden: false,
      tags: [],
      createdAt: now,
      updatedAt: now,
      properties: init.properties ?? {},
    };
    this.images.set(image.id, image);
    return image;
  }

  #store(image: GImage, data: Buffer): void {
    image.size = data.length;
    image.virtualSize = data.length;
    image.checksum = createHash('md5').update(data).digest('hex');
    image.hashAlgo = 'sha512';
    image.hashValue = createHash('sha512').update(data).digest('hex');
    image.status = 'active';
    image.updatedAt = this.#ctx.clock.now();
  }

  /** Sets one field from a create body or a patch; Glance's 403 for read-only fields, 400 for bad values. */
  #set(auth: AuthContext, image: GImage, field: string, value: unknown): void {
    const bad = () => glanceFault(400, `Invalid value for ${field}`);
    const core = CORE_FIELDS[field];
    if (core === 'read-only' || field.startsWith('os_glance'))
      throw glanceFault(403, `Attribute '${field}' is read-only.`);
    if (core === undefined) {
      if (typeof value !== 'string')
        throw glanceFault(400, `Provided object does not match schema 'image': ${field} is not a string`);
      image.properties[field] = value;
      return;
    }
    switch (field) {
      case 'name':
        if (value !== null && typeof value !== 'string') throw bad();
        image.name = value;
        return;
      case 'visibility':
        if (typeof value !== 'string' || !['public', 'private', 'shared', 'community'].includes(value)) throw bad();
        // deploy/policies/glance.yaml: admin, or a manager of the image's own project (`is_project_manager_owner`).
        if (value === 'public' && !isAdmin(auth) && !(hasRole(auth, 'manager') && auth.projectId === image.owner))
          throw glanceFault(403, 'You are not authorized to complete publicize_image action.');
        image.visibility = value;
        return;
      case 'owner':
        if (!isAdmin(auth)) throw glanceFault(403, "Attribute 'owner' is read-only.");
        if (value !== null && typeof value !== 'string') throw bad();
        image.owner = value;
        return;
      case 'disk_format':
      case 'container_format':
        if (value !== null && typeof value !== 'string') throw bad();
        if (field === 'disk_format') image.diskFormat = value;
        else image.containerFormat = value;
        return;
      case 'min_disk':
      case 'min_ram':
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad();
        if (field === 'min_disk') image.minDisk = value;
        else image.minRam = value;
        return;
      case 'protected':
      case 'os_hidden':
        if (typeof value !== 'boolean') throw bad();
        if (field === 'protected') image.protected = value;
        else image.osHidden = value;
        return;
      case 'tags':
        if (!Array.isArray(value) || stringsOf(value).length !== value.length) throw bad();
        image.tags = [...new Set(stringsOf(value))];
        return;
    }
  }

  #routes(): void {
    const { router } = this.#ctx;
    const auth = (req: EmuRequest) => this.#ctx.authenticate(req, (m) => glanceFault(401, m));
    const id = (req: EmuRequest) => req.params.image_id ?? '';
    const version = { id: 'v2.15', status: 'CURRENT', links: [{ rel: 'self', href: `${this.#ctx.origin()}${V2}/` }] };
    router.add('GET', '/image', () => json({ versions: [version] }, 300));

    router.add('GET', `${V2}/schemas/image`, (req) => {
      auth(req);
      return json(IMAGE_SCHEMA);
    });
    router.add('GET', `${V2}/images`, (req) => this.#list(req, auth(req)));
    router.add('POST', `${V2}/images`, (req) => {
      const a = auth(req);
      if (!isObject(req.body)) throw glanceFault(400, 'Malformed request body.');
      const image = this.#newImage(a.projectId ?? null, {});
      try {
        for (const [field, value] of Object.entries(req.body)) {
          if (field === 'id') continue;
          this.#set(a, image, field, value);
        }
      } catch (error) {
        this.images.delete(image.id);
        throw error;
      }
      const wanted = stringAt(req.body, 'id');
      if (wanted !== undefined) {
        if (this.images.has(wanted)) {
          this.images.delete(image.id);
          throw glanceFault(409, `Image with identifier ${wanted} already exists!`);
        }
        this.images.delete(image.id);
        const moved = { ...image, id: wanted };
        this.images.set(wanted, moved);
        return json(imageView(moved), 201);
      }
      return json(imageView(image), 201);
    });
    router.add('GET', `${V2}/images/{image_id}`, (req) => json(imageView(this.#get(auth(req), id(req)))));
    router.add('PATCH', `${V2}/images/{image_id}`, (req) => {
      const a = auth(req);
      const type = req.headers['content-type'] ?? '';
      if (!type.startsWith(PATCH_TYPE)) {
        throw glanceFault(415, `Unsupported Content-Type: ${type}. Use ${PATCH_TYPE}`);
      }
      const image = this.#owned(a, id(req));
      if (!Array.isArray(req.body)) throw glanceFault(400, 'Request body must be a JSON array of operation objects.');
      // All or nothing, as Glance applies a patch in one transaction.
      const draft: GImage = { ...image, tags: [...image.tags], properties: { ...image.properties } };
      for (const change of req.body as unknown[]) this.#patch(a, draft, change);
      draft.updatedAt = this.#ctx.clock.now();
      this.images.set(draft.id, draft);
      return json(imageView(draft));
    });
    router.add('DELETE', `${V2}/images/{image_id}`, (req) => {
      const image = this.#owned(auth(req), id(req));
      if (image.protected) throw glanceFault(403, `Image ${image.id} is protected and cannot be deleted.`);
      this.images.delete(image.id);
      return noContent();
    });
    router.add('PUT', `${V2}/images/{image_id}/file`, (req) => {
      const image = this.#owned(auth(req), id(req));
      if (image.status !== 'queued')
        throw glanceFault(409, `Image status transition from ${image.status} to saving is not allowed`);
      this.#store(image, Buffer.from(req.rawBody, 'latin1'));
      return noContent();
    });
    router.add('POST', `${V2}/images/{image_id}/import`, (req) => this.#import(req, auth(req)));
    for (const [action, from, to] of [
      ['deactivate', 'active', 'deactivated'],
      ['reactivate', 'deactivated', 'active'],
    ] as const) {
      router.add('POST', `${V2}/images/{image_id}/actions/${action}`, (req) => {
        const a = auth(req);
        const image = this.#get(a, id(req));
        if (!isAdmin(a)) throw glanceFault(403, `You are not authorized to complete ${action} action.`);
        if (image.status !== from && image.status !== to) {
          throw glanceFault(400, `Not allowed to ${action} image in status '${image.status}'`);
        }
        image.status = to;
        image.updatedAt = this.#ctx.clock.now();
        return noContent();
      });
    }
  }

  #patch(auth: AuthContext, image: GImage, change: unknown): void {
    const op = stringAt(change, 'op');
    const path = stringAt(change, 'path');
    if (op === undefined || path === undefined || !path.startsWith('/'))
      throw glanceFault(400, 'Invalid JSON pointer for this resource.');
    const field = unescapePointer(path);
    const custom = CORE_FIELDS[field] === undefined;
    if (op === 'add' || op === 'replace') {
      if (!isObject(change) || !('value' in change))
        throw glanceFault(400, `Operation objects must contain exactly one member named "value".`);
      if (op === 'replace' && custom && !(field in image.properties)) {
        throw glanceFault(409, `Property ${field} does not exist.`);
      }
      this.#set(auth, image, field, change.value);
    } else if (op === 'remove') {
      if (!custom || field.startsWith('os_glance')) throw glanceFault(403, `Attribute '${field}' is read-only.`);
      if (!(field in image.properties)) throw glanceFault(409, `Property ${field} does not exist.`);
      image.properties = Object.fromEntries(Object.entries(image.properties).filter(([k]) => k !== field));
    } else {
      throw glanceFault(400, `Invalid operation: "${op}"`);
    }
  }

  #list(req: EmuRequest, auth: AuthContext) {
    const q = req.query;
    const names = q.get('name');
    const statuses = q.get('status');
    const visibility = q.get('visibility');
    const owner = q.get('owner');
    const tags = q.getAll('tag');
    const hidden = q.get('os_hidden')?.toLowerCase() === 'true';
    const sortKey = q.get('sort') ?? `${q.get('sort_key') ?? 'created_at'}:${q.get('sort_dir') ?? 'desc'}`;
    const limit = Math.min(Number(q.get('limit') ?? DEFAULT_LIMIT), MAX_LIMIT);
    if (!Number.isInteger(limit) || limit < 0) throw glanceFault(400, 'limit param must be an integer');
    const matches = [...this.images.values()]
      .filter((image) => {
        if (visibility === null || visibility === 'all') {
          if (image.visibility === 'community' && visibility === null) return false;
          if (!this.#visible(auth, image)) return false;
          if (
            !isAdmin(auth) &&
            image.visibility !== 'public' &&
            image.visibility !== 'community' &&
            image.owner !== auth.projectId
          ) {
            return false;
          }
        } else if (image.visibility !== visibility || !this.#visible(auth, image)) {
          return false;
        }
        // MariaDB's collation: the name filter is exact but case-insensitive.
        if (names !== null && !operands(names).some((n) => n.toLowerCase() === (image.name ?? '').toLowerCase()))
          return false;
        if (statuses !== null && !operands(statuses).includes(image.status)) return false;
        if (owner !== null && image.owner !== owner) return false;
        if (!tags.every((t) => image.tags.includes(t))) return false;
        return image.osHidden === hidden;
      })
      .sort(sorter(sortKey));
    const marker = q.get('marker');
    let start = 0;
    if (marker !== null) {
      const at = matches.findIndex((i) => i.id === marker);
      if (at < 0) throw glanceFault(400, `marker ${marker} not found`);
      start = at + 1;
    }
    const page = matches.slice(start, start + limit);
    const body: JsonObject = {
      images: page.map(imageView),
      first: `/v2/images${req.query.size ? `?${req.query.toString()}` : ''}`,
      schema: '/v2/schemas/images',
    };
    const last = page.at(-1);
    if (last && start + limit < matches.length) {
      const next = new URLSearchParams(req.query);
      next.set('marker', last.id);
      next.set('limit', String(limit));
      body.next = `/v2/images?${next.toString()}`;
    }
    return json(body);
  }

  #import(req: EmuRequest, auth: AuthContext) {
    const image = this.#owned(auth, req.params.image_id ?? '');
    const method = objectAt(req.body, 'method');
    const name = stringAt(method, 'name');
    if (name !== 'web-download')
      throw glanceFault(400, `Import method ${name ?? '(none)'} is not supported by this cloud.`);
    const uri = stringAt(method, 'uri') ?? '';
    if (image.status !== 'queued') {
      throw glanceFault(409, `Image status transition from ${image.status} to importing is not allowed`);
    }
    const outcome = importOutcome(uri);
    if (outcome === 'refused') throw glanceFault(400, `URI for web-download does not pass filtering: ${uri}`);
    image.status = 'importing';
    image.properties.os_glance_importing_to_stores = 'file';
    image.updatedAt = this.#ctx.clock.now();
    const failure = outcome === 'unreachable' ? 'failed' : this.#failNextImport;
    if (outcome === 'fetched') this.#failNextImport = undefined;
    this.#imported(this.#ctx.clock.now() + this.#ctx.delay('glance.import', 50), {
      id: image.id,
      uri,
      failure: failure ?? null,
    });
    return json(undefined, 202);
  }

  #controls(): void {
    const { control } = this.#ctx;
    control.add('POST', '/glance/imports/fail-next', (req) => {
      this.failNextImport(stringAt(req.body, 'mode') === 'killed' ? 'killed' : 'failed');
      return noContent();
    });
    for (const [action, active] of [
      ['deactivate', false],
      ['reactivate', true],
    ] as const) {
      control.add('POST', `/glance/images/{image_id}/${action}`, (req) => {
        this.setActive(req.params.image_id ?? '', active);
        return noContent();
      });
    }
  }
}

/**
 * What a web-download would do, decided from the URI alone since the emulator has no web access. As Debian's
 * Glance does, it refuses loopback, link-local and unresolvable hosts (`.invalid`, RFC 6761); documentation
 * addresses (RFC 5737) pass the filter and then fail to fetch; anything else is fetched.
 */
export function importOutcome(uri: string): 'refused' | 'unreachable' | 'fetched' {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'refused';
  }
  if (!['http:', 'https:', 'ftp:'].includes(url.protocol)) return 'refused';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.invalid') || host.endsWith('.localhost')) return 'refused';
  if (/^127\.|^169\.254\.|^0\./.test(host) || host === '::1' || host.startsWith('fe80:')) return 'refused';
  if (/^(192\.0\.2|198\.51\.100|203\.0\.113)\./.test(host)) return 'unreachable';
  return 'fetched';
}

export const glanceModule: ServiceModule<Glance> = {
  name: 'glance',
  prefix: '/image',
  catalog: [{ type: 'image', name: 'glance', path: '/image' }],
  fault: glanceFault,
  create: (ctx: ServiceContext, lookups: Lookups) => {
    const glance = new Glance(ctx);
    lookups.images = glance;
    return glance;
  },
};

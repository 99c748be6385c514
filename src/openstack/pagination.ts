/**
 * Lists follow the service's paging links to the end. OpenStack has five styles, each named by the service that
 * introduced it; every list function picks one.
 */
import type { ServiceType } from './catalog.ts';
import { TruncatedListError } from './errors.ts';
import type { RequestSpec, ServiceClient } from './session.ts';

export type PageStyle =
  /**
   * Nova, Neutron, Cinder, Octavia: `{"servers": [...], "servers_links": [{"rel": "next", "href": ...}]}`. `links`
   * names the links key where it is not `<items>_links` (Cinder's volume types send `volume_type_links`).
   */
  | { readonly kind: 'links'; readonly items: string; readonly links?: string }
  /** Glance (a path) and Ironic (a URL): `{"images": [...], "next": "/v2/images?marker=..."}`. */
  | { readonly kind: 'next'; readonly items: string }
  /**
   * Keystone: `{"projects": [...], "links": {"next": ...}}`. A list cut short by Keystone's `list_limit` says
   * `"truncated": true` and has no next link; it throws TruncatedListError rather than pass for the whole list.
   */
  | { readonly kind: 'keystone'; readonly items: string }
  /** Placement: one page, no links. */
  | { readonly kind: 'single'; readonly items: string }
  /**
   * Nova's os-server-groups and os-volume_attachments: `limit` and `offset`, no links. A page shorter than
   * `pageSize` is the last, so `pageSize` must not exceed the service's own maximum (Nova's `[api] max_limit`,
   * 1000 by default): a capped page would look like the last one.
   */
  | { readonly kind: 'offset'; readonly items: string; readonly pageSize: number };

export interface ListOptions {
  /** Stop after this many items in all. */
  readonly limit?: number | undefined;
  /**
   * Items per page, sent as the `limit` query parameter; the service's default when absent. The 'offset' style
   * takes it only up to its own `pageSize`.
   */
  readonly pageSize?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

export async function* paginate<T>(
  client: ServiceClient,
  spec: RequestSpec,
  style: PageStyle,
  options: ListOptions = {},
): AsyncGenerator<T> {
  const { limit, signal } = options;
  if (limit !== undefined && limit <= 0) return;
  if (style.kind === 'offset') {
    yield* paginateByOffset<T>(client, spec, style, options);
    return;
  }
  let next: RequestSpec = {
    ...spec,
    signal: signal ?? spec.signal,
    query: options.pageSize === undefined ? spec.query : { ...spec.query, limit: options.pageSize },
  };
  let yielded = 0;
  const seen = new Set<string>();
  for (;;) {
    const { body } = await client.request<Record<string, unknown>>(next);
    const items = (body[style.items] ?? []) as T[];
    // A truncated page is still right as far as it goes: only a caller that wants more than it holds must fail.
    if (
      style.kind === 'keystone' &&
      body.truncated === true &&
      (limit === undefined || yielded + items.length < limit)
    ) {
      throw new TruncatedListError(client.serviceType, spec.path);
    }
    for (const item of items) {
      yield item;
      if (limit !== undefined && ++yielded >= limit) return;
    }
    const href = items.length === 0 ? undefined : nextHref(body, style);
    if (href === undefined) return;
    const url = rebase(await client.baseUrl(signal), href);
    // A service that hands back the page it was asked for would loop forever.
    if (seen.has(url)) return;
    seen.add(url);
    next = { ...spec, url, query: undefined, signal: signal ?? spec.signal };
  }
}

async function* paginateByOffset<T>(
  client: ServiceClient,
  spec: RequestSpec,
  style: Extract<PageStyle, { kind: 'offset' }>,
  options: ListOptions,
): AsyncGenerator<T> {
  const { limit, signal } = options;
  // A caller may ask for smaller pages, never larger ones: the service would cap them and end the list early.
  // At least one, or a service answering `limit=0` with nothing would be asked for the same empty page forever.
  const pageSize = Math.max(1, Math.min(options.pageSize ?? style.pageSize, style.pageSize));
  let offset = 0;
  let yielded = 0;
  for (;;) {
    const { body } = await client.request<Record<string, unknown>>({
      ...spec,
      signal: signal ?? spec.signal,
      query: { ...spec.query, limit: pageSize, offset },
    });
    const items = (body[style.items] ?? []) as T[];
    for (const item of items) {
      yield item;
      if (limit !== undefined && ++yielded >= limit) return;
    }
    // Only a full page can have a successor; one that ignored `limit` and sent more would otherwise repeat forever.
    if (items.length !== pageSize) return;
    offset += items.length;
  }
}

export async function listAll<T>(
  client: ServiceClient,
  spec: RequestSpec,
  style: PageStyle,
  options?: ListOptions,
): Promise<T[]> {
  const out: T[] = [];
  for await (const item of paginate<T>(client, spec, style, options)) out.push(item);
  return out;
}

function nextHref(body: Record<string, unknown>, style: PageStyle): string | undefined {
  switch (style.kind) {
    case 'links': {
      const links = body[style.links ?? `${style.items}_links`];
      if (!Array.isArray(links)) return undefined;
      const next = (links as { rel?: unknown; href?: unknown }[]).find((l) => l.rel === 'next');
      return typeof next?.href === 'string' ? next.href : undefined;
    }
    case 'next':
      return typeof body.next === 'string' ? body.next : undefined;
    case 'keystone': {
      const links = body.links as { next?: unknown } | undefined;
      return typeof links?.next === 'string' ? links.next : undefined;
    }
    case 'single':
    case 'offset':
      return undefined;
  }
}

/**
 * Points a service's next link at the endpoint we are using. Services build links from their own idea of their
 * URL (another host, http behind a TLS proxy, a path without the proxy's prefix); only its path and query count.
 */
export function rebase(baseUrl: string, href: string): string {
  const base = new URL(baseUrl);
  const link = new URL(href, base.origin);
  const firstSegment = link.pathname.split('/').find((s) => s.length > 0);
  let prefix = '';
  if (firstSegment !== undefined) {
    const at = `${base.pathname}/`.indexOf(`/${firstSegment}/`);
    if (at > 0) prefix = base.pathname.slice(0, at);
  }
  return `${base.origin}${prefix}${link.pathname}${link.search}`;
}

/** Convenience for service modules: the style for a service's usual list shape. */
export function pageStyleFor(serviceType: ServiceType, items: string): PageStyle {
  switch (serviceType) {
    case 'identity':
      return { kind: 'keystone', items };
    case 'image':
    case 'baremetal':
      return { kind: 'next', items };
    case 'placement':
      return { kind: 'single', items };
    default:
      return { kind: 'links', items };
  }
}

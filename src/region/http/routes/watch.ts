/**
 * `GET /api/v2/watch`: the tenant's objects of the named collections, live, as Server-Sent Events
 * (docs/adr/0045-console-live-stream.md). First a `snapshot` event per collection (what its list route answers for the
 * same filters), then a `change` event per change the store's watch reports (ADDED, MODIFIED, DELETED, in the REST
 * read shape). Authorised exactly as the list routes: each object passes the token's scope (visibleTo) and the
 * query's filters, or is never written to the stream. The stream ends when the store's watch does (a kube-apiserver
 * closes watches every few minutes); the client reconnects and takes a fresh snapshot, so nothing is missed.
 */
import { PassThrough } from 'node:stream';
import Type from 'typebox';
import type { KubeObject } from '../../../kube/object.ts';
import { COLLECTIONS, TENANT_KINDS, type Collection } from '../kinds.ts';
import { listOf, principalOf } from '../principal.ts';
import { problems, violation } from '../problem.ts';
import { matches, visibleTo } from '../repository.ts';
import { StringOrList } from '../schemas/common.ts';
import { ERRORS, listFilters, ListQuery, type Api, type RouteDeps } from './kit.ts';

/** A comment line this often keeps proxies and the browser from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

const WatchQuery = Type.Object({
  ...ListQuery.properties,
  collection: StringOrList,
});

/** One Server-Sent Event: a name and one line of JSON (JSON.stringify writes no newline). */
const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** Resource versions are opaque, but both backends' are integers: a buffered change older than the list is dropped. */
function newer(rv: string | undefined, than: string | undefined): boolean {
  if (rv === undefined || than === undefined || !/^\d+$/.test(rv) || !/^\d+$/.test(than)) return true;
  return BigInt(rv) > BigInt(than);
}

/** Documentation only (as doc() treats responses): the stream is not JSON; its refusals are the shared ones. */
const STREAM_RESPONSE: unknown = {
  200: {
    description: 'A text/event-stream of snapshot and change events.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  },
  400: ERRORS[400],
  401: ERRORS[401],
  500: ERRORS[500],
};

export function watchRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  app.get(
    '/api/v2/watch',
    {
      schema: {
        tags: ['Watch'],
        summary: 'Watch the token’s objects of some collections, as Server-Sent Events',
        description:
          'A `snapshot` event per collection (`{collection, items}`, as its list route answers), then a `change` ' +
          'event per change (`{collection, type: ADDED|MODIFIED|DELETED, object}`). Only objects the token may ' +
          'read, passing the filters, are sent. The stream may end at any time: reconnect for a fresh snapshot.',
        querystring: WatchQuery,
        security: [{ bearer: [] }],
        response: STREAM_RESPONSE,
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const filters = listFilters(request.query);
      const asked = listOf(request.query.collection) ?? [];
      const unknown = asked.filter((c) => !(COLLECTIONS as string[]).includes(c));
      if (asked.length === 0 || unknown.length > 0) {
        throw problems.badRequest([
          violation('/collection', 'enum', `each collection is one of ${COLLECTIONS.join(', ')}`),
        ]);
      }
      const collections = [...new Set(asked)] as Collection[];
      const abort = new AbortController();
      const stream = new PassThrough();
      const end = () => {
        abort.abort();
        stream.end();
      };
      // The response closes when the client goes (or the stream ends): stop watching.
      reply.raw.on('close', end);
      const keepalive = setInterval(() => {
        stream.write(': keepalive\n\n');
      }, KEEPALIVE_MS);
      abort.signal.addEventListener(
        'abort',
        () => {
          clearInterval(keepalive);
        },
        { once: true },
      );
      const visible = (object: KubeObject) => visibleTo(principal, object) && matches(object, filters);

      const follow = async (collection: Collection) => {
        const kind = TENANT_KINDS[collection];
        // Watch from now before listing, so no change between the list and the watch is lost; a change the list
        // already holds is dropped by its resource version.
        const changes = repo.watch(kind.type, abort.signal)[Symbol.asyncIterator]();
        const first = changes.next();
        const items = await repo.list(kind.type, principal, filters);
        const seen = new Map(items.map((o) => [o.metadata.name, o.metadata.resourceVersion]));
        stream.write(sse('snapshot', { collection, items: items.map(kind.read) }));
        for (let next = await first; next.done !== true; next = await changes.next()) {
          const { type, object } = next.value;
          if (type === 'BOOKMARK' || !visible(object)) continue;
          if (!newer(object.metadata.resourceVersion, seen.get(object.metadata.name))) continue;
          seen.set(object.metadata.name, object.metadata.resourceVersion);
          stream.write(sse('change', { collection, type, object: kind.read(object) }));
        }
      };
      // Any watch ending (or failing) ends the stream: the client's reconnect starts every collection afresh.
      for (const collection of collections) {
        follow(collection)
          .catch((error: unknown) => {
            if (!abort.signal.aborted) deps.log?.warn({ err: error, collection }, 'a watch stream failed');
          })
          .finally(end);
      }
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  );
}

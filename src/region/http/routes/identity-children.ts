/**
 * The routes of a kind upstream's v1 API hangs off an identity (networks, security groups, servers): an
 * organization-wide list, create under `/projects/{project}/identities/{identity}/`, and get, replace and delete
 * there. v1 is a view: the objects are the ones v2 reads and the same controllers reconcile, so a v1 list shows
 * what v2 made too. An object is addressed through the identity it lives in; under any other it is not found.
 * Every refused request is 400, as upstream's v1 documents it (no 422).
 */
import type { TSchema, TString } from 'typebox';
import Type from 'typebox';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import type { Identity } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import type { LimitedKind } from '../decide-limit.ts';
import { Problem, problems } from '../problem.ts';
import { tenancyOf } from '../resources/meta.ts';
import { Uuid } from '../schemas/common.ts';
import { identityInPath, IdentityParams } from './identity.ts';
import {
  Accepted,
  doc,
  listFilters,
  OrganizationParams,
  scopedPrincipal,
  TagQuery,
  type Api,
  type RequestWithParams,
  type RouteBody,
  refuseUnlessWritable,
  writeUpdate,
  type RouteDeps,
  type Written,
} from './kit.ts';
import { defined } from '../../../util/defined.ts';

/** A kind's parts; the body reaches its functions typed from `write` (kit.ts RouteBody). */
interface IdentityChildKind<T extends KubeObject, WS extends TSchema, R> {
  readonly tag: string;
  /** The path segment: `networks`. */
  readonly collection: string;
  readonly param: string;
  readonly type: ResourceType<T>;
  /** For messages: `network not found`. */
  readonly what: string;
  readonly write: WS;
  readonly read: TSchema;
  /** False: create and update answer 501 (nothing would reconcile what they store). */
  readonly writable: boolean;
  readonly capability: string;
  /** The organization limit a create counts against (docs/adr/0041-organization-limits.md). */
  readonly limit: LimitedKind;
  /** The object to create, its rules checked (a broken one throws a 400 problem); nothing is written yet. */
  readonly create: (id: string, body: RouteBody<WS>, identity: Identity, principal: Principal) => Promise<T>;
  /** The body's metadata and the spec an update writes, its rules checked; absent: the kind has no update. */
  readonly update?: (body: RouteBody<WS>, current: T, principal: Principal) => Promise<Written>;
  readonly toRead: (object: T) => R;
  /** Upstream deletes a network in the foreground (what it owns first); the rest in the background. */
  readonly deletion?: 'Foreground';
}

export function identityChildRoutes<T extends KubeObject, WS extends TSchema, R>(
  app: Api,
  deps: RouteDeps,
  kind: IdentityChildKind<T, WS, R>,
): void {
  const repo = deps.repository;
  const base = '/api/v1/organizations/:organizationID/projects/:projectID/identities/:identityID';
  const collection = `${base}/${kind.collection}`;
  const item = `${collection}/:${kind.param}`;
  const itemID: Record<string, TString> = { [kind.param]: Uuid(`The ${kind.what}.`) };
  const ItemParams = Type.Object({ ...IdentityParams.properties, ...itemID });
  // The item's id param is named by the kind (a string), so its schema's type cannot name it: an index.
  const find = async (request: RequestWithParams<IdentityParams & Readonly<Record<string, string>>>) => {
    const { identity, principal } = await identityInPath(repo, request);
    const object = await repo.get(kind.type, principal, request.params[kind.param] ?? '', kind.what);
    if (tenancyOf(object).identityID !== identity.metadata.name) throw problems.notFound(kind.what);
    return { object, principal };
  };

  app.get(
    `/api/v1/organizations/:organizationID/${kind.collection}`,
    {
      schema: doc(
        kind.tag,
        `List the organization's ${kind.what}s`,
        { params: OrganizationParams, querystring: TagQuery },
        { 200: Type.Array(kind.read) },
      ),
    },
    async (request) => {
      const { organizationID } = request.params;
      const principal = scopedPrincipal(request, organizationID);
      const filters = listFilters({
        organizationID,
        ...defined({ tag: request.query.tag }),
      });
      return (await repo.list(kind.type, principal, filters)).map(kind.toRead);
    },
  );

  app.post(
    collection,
    {
      schema: doc(kind.tag, `Create a ${kind.what}`, { params: IdentityParams, body: kind.write }, { 201: kind.read }),
    },
    async (request, reply) => {
      const { identity, principal } = await identityInPath(repo, request);
      refuseUnlessWritable(kind);
      if (identity.metadata.deletionTimestamp !== undefined) {
        throw new Problem('bad-request', 'the identity is being deleted');
      }
      // At its limit, refused before the rules read the cloud; counted again to admit the write (limits.ts).
      const { organizationID } = tenancyOf(identity);
      await deps.limits.check(organizationID, [kind.limit]);
      const object = await kind.create(deps.newID(), request.body, identity, principal);
      const created = await deps.limits.admit(organizationID, [{ kind: kind.limit, name: object.metadata.name }], () =>
        repo.create(kind.type, object),
      );
      return reply.code(201).send(kind.toRead(created));
    },
  );

  app.get(
    item,
    { schema: doc(kind.tag, `Get a ${kind.what}`, { params: ItemParams }, { 200: kind.read }) },
    async (request) => kind.toRead((await find(request)).object),
  );

  const { update } = kind;
  if (update !== undefined) {
    app.put(
      item,
      {
        schema: doc(kind.tag, `Update a ${kind.what}`, { params: ItemParams, body: kind.write }, { 202: kind.read }),
      },
      async (request, reply) => {
        const { object: current, principal } = await find(request);
        refuseUnlessWritable(kind);
        const written = await update(request.body, current, principal);
        const updated = await writeUpdate(deps, kind.type, current, written, principal);
        return reply.code(202).send(kind.toRead(updated));
      },
    );
  }

  app.delete(
    item,
    { schema: doc(kind.tag, `Delete a ${kind.what}`, { params: ItemParams }, { 202: Accepted }) },
    async (request, reply) => {
      const { object } = await find(request);
      if (object.metadata.deletionTimestamp === undefined) {
        await repo.delete(kind.type, object.metadata.name, kind.deletion);
      }
      return reply.code(202).send();
    },
  );
}

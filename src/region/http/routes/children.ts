/**
 * The five routes of a resource that hangs off a network (security groups, servers, load balancers, volumes):
 * list (filterable by organization, project, region and network), create on a network the token can see, get,
 * replace and delete. Each kind supplies its pure parts; this file holds the HTTP flow, so the order is the same for
 * all: authenticate, find, check the rules, and only then write.
 */
import type { TSchema } from 'typebox';
import Type from 'typebox';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import { identityType, networkType, type Network } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import type { LimitedKind } from '../decide-limit.ts';
import { principalOf } from '../principal.ts';
import { problems, violation, type FieldViolation } from '../problem.ts';
import { listJson } from '../list-json.ts';
import { visibleTo } from '../repository.ts';
import { tenancyOf } from '../resources/meta.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import {
  Accepted,
  doc,
  IDParams,
  listFilters,
  ListQuery,
  refuseIf,
  type Api,
  type RequestWithParams,
  type RouteBody,
  refuseUnlessWritable,
  writeUpdate,
  type RouteDeps,
  type Written,
  type RouteParams,
} from './kit.ts';
import { defined } from '../../../util/defined.ts';

/** A kind's parts; its bodies reach its functions typed from `createBody` and `updateBody` (kit.ts RouteBody). */
interface ChildKind<T extends KubeObject, CS extends TSchema, US extends TSchema, R> {
  readonly tag: string;
  readonly path: string;
  readonly param: string;
  readonly type: ResourceType<T>;
  /** For messages: `security group not found`. */
  readonly what: string;
  readonly createBody: CS;
  readonly updateBody: US;
  readonly read: TSchema;
  /** False: create and update answer 501 (nothing would reconcile what they store). */
  readonly writable: boolean;
  readonly capability: string;
  /** The organization limit a create counts against (docs/adr/0041-organization-limits.md). */
  readonly limit: LimitedKind;
  readonly networkIDOf: (body: RouteBody<CS>) => string;
  /** Rules beyond the schema; the network is the one the body names, already in scope. */
  readonly validateCreate: (body: RouteBody<CS>, network: Network, principal: Principal) => Promise<FieldViolation[]>;
  readonly build: (id: string, body: RouteBody<CS>, network: Network, principal: Principal) => T;
  readonly validateUpdate: (body: RouteBody<US>, current: T, principal: Principal) => Promise<FieldViolation[]>;
  /** The body's metadata and the new spec: the body's, with what the update may not touch kept from `current`. */
  readonly updated: (body: RouteBody<US>, current: T) => Written;
  readonly toRead: (object: T) => R;
  /** Refuses a delete the object's state forbids (a volume a server holds), by throwing the problem. */
  readonly refuseDelete?: (current: T) => Promise<void>;
}

export function childRoutes<T extends KubeObject, CS extends TSchema, US extends TSchema, R>(
  app: Api,
  deps: RouteDeps,
  kind: ChildKind<T, CS, US, R>,
): void {
  const repo = deps.repository;
  const Params = IDParams(kind.param);
  const find = (request: RequestWithParams<RouteParams<typeof Params>>) =>
    repo.get(kind.type, principalOf(request), request.params[kind.param] ?? '', kind.what);
  const listAnswer = listJson(kind.toRead);

  app.get(
    kind.path,
    { schema: doc(kind.tag, `List ${kind.what}s`, { querystring: ListQuery }, { 200: Type.Array(kind.read) }) },
    async (request, reply) => {
      const items = await repo.list(kind.type, principalOf(request), listFilters(request.query));
      return reply.type('application/json; charset=utf-8').send(listAnswer(items));
    },
  );

  app.post(
    kind.path,
    { schema: doc(kind.tag, `Create a ${kind.what}`, { body: kind.createBody }, { 201: kind.read }) },
    async (request, reply) => {
      refuseUnlessWritable(kind);
      const principal = principalOf(request);
      const { body } = request;
      const network = await repo.find(networkType, kind.networkIDOf(body));
      if (network === undefined || !visibleTo(principal, network)) {
        throw problems.invalid([violation('/spec/networkId', 'exists', 'no such network')]);
      }
      // Nothing new on what is on its way out: its cascade would take the new object with it.
      if (network.metadata.deletionTimestamp !== undefined) {
        throw problems.conflict('the network is being deleted');
      }
      // The network, read live above, is the guard; its identity's deletion reaches it through the cascade, and a
      // create this informer read lets through then goes with it (ADR 0051).
      const identity = await repo.findCached(identityType, tenancyOf(network).identityID);
      if (identity?.metadata.deletionTimestamp !== undefined) {
        throw problems.conflict("the network's identity is being deleted");
      }
      // At its limit, refused before the rules read the cloud; counted again to admit the write (limits.ts).
      const { organizationID } = tenancyOf(network);
      await deps.limits.check(organizationID, [kind.limit]);
      refuseIf(await kind.validateCreate(body, network, principal));
      const object = kind.build(deps.newID(), body, network, principal);
      const created = await deps.limits.admit(organizationID, [{ kind: kind.limit, name: object.metadata.name }], () =>
        repo.create(kind.type, object),
      );
      return reply.code(201).send(kind.toRead(created));
    },
  );

  app.get(
    `${kind.path}/:${kind.param}`,
    { schema: doc(kind.tag, `Get a ${kind.what}`, { params: Params }, { 200: kind.read }) },
    async (request) => kind.toRead(await find(request)),
  );

  app.put(
    `${kind.path}/:${kind.param}`,
    { schema: doc(kind.tag, `Update a ${kind.what}`, { params: Params, body: kind.updateBody }, { 202: kind.read }) },
    async (request, reply) => {
      const current = await find(request);
      refuseUnlessWritable(kind);
      const principal = principalOf(request);
      const { body } = request;
      refuseIf(await kind.validateUpdate(body, current, principal));
      const updated = await writeUpdate(deps, kind.type, current, kind.updated(body, current), principal);
      return reply.code(202).send(kind.toRead(updated));
    },
  );

  app.delete(
    `${kind.path}/:${kind.param}`,
    { schema: doc(kind.tag, `Delete a ${kind.what}`, { params: Params }, { 202: Accepted }) },
    async (request, reply) => {
      const current = await find(request);
      await kind.refuseDelete?.(current);
      await repo.delete(kind.type, current.metadata.name);
      return reply.code(202).send();
    },
  );
}

/** Tags live in the spec; an update replaces them with the body's (none clears them). */
export function withTags<S extends object>(
  spec: S,
  metadata: ResourceWriteMetadata,
): S & { tags?: ResourceWriteMetadata['tags'] } {
  const { tags: _, ...rest } = spec as S & { tags?: unknown };
  return { ...(rest as S), ...defined({ tags: metadata.tags }) };
}

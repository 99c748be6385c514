/**
 * The five routes of a resource that hangs off a network (security groups, servers, load balancers, volumes):
 * list (filterable by organization, project, region and network), create on a network the token can see, get,
 * replace and delete. Each kind supplies its pure parts; this file holds the HTTP flow, so the order is the same for
 * all: authenticate, find, check the rules, and only then write.
 */
import type { FastifyRequest } from 'fastify';
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
import { tenancyOf, updatedMetadata } from '../resources/meta.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import { Accepted, doc, IDParams, listFilters, ListQuery, refuseIf, type Api, type RouteDeps } from './kit.ts';

interface WriteBody {
  readonly metadata: ResourceWriteMetadata;
  readonly spec: object;
}

interface ChildKind<T extends KubeObject, C extends WriteBody, U extends WriteBody, R> {
  readonly tag: string;
  readonly path: string;
  readonly param: string;
  readonly type: ResourceType<T>;
  /** For messages: `security group not found`. */
  readonly what: string;
  readonly createBody: TSchema;
  readonly updateBody: TSchema;
  readonly read: TSchema;
  /** False: create and update answer 501 (nothing would reconcile what they store). */
  readonly writable: boolean;
  readonly capability: string;
  /** The organization limit a create counts against (docs/adr/0041-organization-limits.md). */
  readonly limit: LimitedKind;
  readonly networkIDOf: (body: C) => string;
  /** Rules beyond the schema; the network is the one the body names, already in scope. */
  readonly validateCreate: (body: C, network: Network, principal: Principal) => Promise<FieldViolation[]>;
  readonly build: (id: string, body: C, network: Network, principal: Principal) => T;
  readonly validateUpdate: (body: U, current: T, principal: Principal) => Promise<FieldViolation[]>;
  /** The new spec: the body's, with what the update may not touch kept from `current`. */
  readonly updateSpec: (body: U, current: T) => object;
  readonly toRead: (object: T) => R;
  /** Refuses a delete the object's state forbids (a volume a server holds), by throwing the problem. */
  readonly refuseDelete?: (current: T) => Promise<void>;
}

export function childRoutes<T extends KubeObject, C extends WriteBody, U extends WriteBody, R>(
  app: Api,
  deps: RouteDeps,
  kind: ChildKind<T, C, U, R>,
): void {
  const repo = deps.repository;
  const Params = IDParams(kind.param);
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[kind.param] ?? '';
  const find = (request: FastifyRequest) => repo.get(kind.type, principalOf(request), idOf(request), kind.what);
  const listAnswer = listJson(kind.toRead);
  const refuseUnlessWritable = () => {
    if (!kind.writable) throw problems.notImplemented(kind.capability);
  };

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
      refuseUnlessWritable();
      const principal = principalOf(request);
      const body = request.body as C;
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
      // At its limit, refused before the rules read the cloud; counted again with the write (limits.ts).
      const { organizationID } = tenancyOf(network);
      await deps.limits.check(organizationID, [kind.limit]);
      refuseIf(await kind.validateCreate(body, network, principal));
      const object = kind.build(deps.newID(), body, network, principal);
      const created = await deps.limits.admit(organizationID, [kind.limit], () => repo.create(kind.type, object));
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
      refuseUnlessWritable();
      const principal = principalOf(request);
      const body = request.body as U;
      refuseIf(await kind.validateUpdate(body, current, principal));
      const updated = await repo.update(kind.type, {
        ...current,
        metadata: updatedMetadata(current.metadata, body.metadata, principal, deps.clock.now()),
        spec: kind.updateSpec(body, current),
      });
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
  return { ...(rest as S), ...(metadata.tags === undefined ? {} : { tags: metadata.tags }) };
}

/** What every route group shares: the fastify instance type, route documentation, list queries and ID params. */
import type {
  FastifyRequest,
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  FastifySchema,
  RouteGenericInterface,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type, { type TSchema } from 'typebox';
import type { ApiDeps } from '../context.ts';
import type { OrganizationLimiter } from '../limits.ts';
import { problems, type FieldViolation } from '../problem.ts';
import { canAccess, type Principal } from '../auth.ts';
import { listOf, principalOf } from '../principal.ts';
import { Repository, type ListFilters } from '../repository.ts';
import {
  ProblemDocument,
  strict,
  StringOrList,
  TagSelector,
  TenancyID,
  Uuid,
  type ResourceWriteMetadata,
} from '../schemas/common.ts';
import { updatedMetadata } from '../resources/meta.ts';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/**
 * What the TypeBox provider makes of a route's request whose schema holds these parts: for a concrete schema its
 * `Static<>` type. A kit generic over its kinds' schemas names the body and params by these, the very types fastify
 * gives its handlers, so the body reaches each kind's functions typed from the kind's schema, with no cast.
 */
type Resolved<Parts extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  Parts,
  TypeBoxTypeProvider
>;
/** A route's body, typed from its schema `S` (`Static<S>` once `S` is known). */
export type RouteBody<S extends TSchema> = Resolved<{ body: S }>['body'];
/** A route's path params, typed from its schema `S` (`Static<S>` once `S` is known). */
export type RouteParams<S extends TSchema> = Resolved<{ params: S }>['params'];
/** A request as a helper shared by several routes reads it: its params typed as the routes' schemas type them. */
export type RequestWithParams<P> = FastifyRequest & { readonly params: P };

export interface RouteDeps extends ApiDeps {
  readonly repository: Repository;
  /** Refuses a create past its organization's limit (docs/adr/0041-organization-limits.md). */
  readonly limits: OrganizationLimiter;
}

const problem = (description: string) => ({ ...ProblemDocument, description });

/** The error answers every route documents (openapi.ts publishes each once, by $ref). */
export const ERRORS = {
  400: problem('The request does not match its schema, or its body is not JSON.'),
  401: problem('No valid bearer token.'),
  403: problem(
    'The token does not hold the organization or project the path names, the action is forbidden, or a create would ' +
      "pass its organization's limit for the kind (the detail names it).",
  ),
  404: problem('Not found, or not visible to the token.'),
  409: problem('A conflicting change.'),
  413: problem('The body is too large.'),
  422: problem('The request breaks a validation rule; `errors` names each field and rule.'),
  500: problem('Internal error.'),
  501: problem('The capability is not available in this deployment.'),
};

/**
 * A documented route schema: tag, summary, the parts it validates (typed through the TypeBox provider) and its
 * responses. Responses are documentation only (typed `unknown` to fastify), so a handler may answer any status.
 */
export function doc<const S extends { body?: TSchema; params?: TSchema; querystring?: TSchema }>(
  tag: string,
  summary: string,
  parts: S,
  success: Readonly<Record<number, TSchema>>,
): S & { tags: string[]; summary: string; security: { bearer: never[] }[]; response: unknown } {
  // Every request body is strict: an unknown field is refused and named, never dropped (schemas/common.ts strict).
  const body = parts.body === undefined ? {} : { body: strict(parts.body) };
  return { ...parts, ...body, tags: [tag], summary, security: [{ bearer: [] }], response: { ...success, ...ERRORS } };
}

export const ListQuery = Type.Object({
  organizationID: Type.Optional(StringOrList),
  projectID: Type.Optional(StringOrList),
  regionID: Type.Optional(StringOrList),
  networkID: Type.Optional(StringOrList),
  tag: Type.Optional(TagSelector),
});

export type ListQuery = Type.Static<typeof ListQuery>;

/** Upstream's v1 lists filter by tag only (the organization is in the path). */
export const TagQuery = Type.Object({ tag: Type.Optional(TagSelector) });

/** A list query's filters; tags are taken whole (a value may hold a comma). */
export function listFilters(q: ListQuery): ListFilters {
  return {
    organizationID: listOf(q.organizationID),
    projectID: listOf(q.projectID),
    regionID: listOf(q.regionID),
    networkID: listOf(q.networkID),
    tag: q.tag === undefined ? undefined : [q.tag].flat(),
  };
}

/** A resource id in a path: a UUID, as every id this service mints (and regions' and images') is. */
export const IDParams = <K extends string>(name: K) =>
  Type.Object({ [name]: Uuid(`The ${name}.`) } as Record<K, ReturnType<typeof Type.String>>);

/** What an update writes: the body's metadata and the new spec. */
export interface Written {
  readonly metadata: ResourceWriteMetadata;
  readonly spec: object;
}

/** Writes an accepted update: the current object with the body's metadata, stamped by `principal`, and the spec. */
export function writeUpdate<T extends KubeObject>(
  deps: RouteDeps,
  type: ResourceType<T>,
  current: T,
  { metadata, spec }: Written,
  principal: Principal,
): Promise<T> {
  return deps.repository.update(type, {
    ...current,
    metadata: updatedMetadata(current.metadata, metadata, principal, deps.clock.now()),
    spec,
  });
}

/** Refuses a create or update of a kind nothing would reconcile (501). */
export function refuseUnlessWritable(kind: { readonly writable: boolean; readonly capability: string }): void {
  if (!kind.writable) throw problems.notImplemented(kind.capability);
}

/** An accepted change with no body, as upstream answers it. */
export { Accepted } from '../schemas/common.ts';

/**
 * Refuses the request when the rules found anything; nothing has been written yet. 422 by default; `badRequest` on
 * routes whose contract (upstream's v1) documents only 400 for a refused request.
 */
/** Throws the 409 for fields naming something another resource holds; nothing when there are none. */
export function refuseInUse(errors: readonly FieldViolation[]): void {
  if (errors.length > 0) throw problems.inUse(errors);
}

export function refuseIf(
  errors: readonly FieldViolation[],
  as: 'unprocessable' | 'badRequest' = 'unprocessable',
): void {
  if (errors.length === 0) return;
  throw as === 'badRequest' ? problems.badRequest(errors) : problems.invalid(errors);
}

/**
 * The principal of a request on a path that names its organization (and project), upstream's v1 shape: a token that
 * does not hold them is refused (403), as upstream's RBAC refuses it. Path and token agree, so the scope is no
 * secret.
 */
export function scopedPrincipal(request: FastifyRequest, organizationID: string, projectID?: string): Principal {
  const principal = principalOf(request);
  if (!canAccess(principal, organizationID, projectID)) {
    throw problems.forbidden(
      projectID === undefined
        ? 'the token does not grant access to this organization'
        : 'the token does not grant access to this project',
    );
  }
  return principal;
}

/** The organization (and project) a v1 path names. */
export const OrganizationParams = Type.Object({
  organizationID: TenancyID('The organization.'),
});
export const ProjectParams = Type.Object({
  ...OrganizationParams.properties,
  projectID: TenancyID('The project.'),
});

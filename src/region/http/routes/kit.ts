/** What every route group shares: the fastify instance type, route documentation, list queries and ID params. */
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
} from 'fastify';
import type { RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type, { type TSchema } from 'typebox';
import type { ApiDeps } from '../context.ts';
import { problems, type FieldViolation } from '../problem.ts';
import { Repository } from '../repository.ts';
import { ProblemDocument, StringOrList } from '../schemas/common.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteDeps extends ApiDeps {
  readonly repository: Repository;
}

const problem = (description: string) => ({ ...ProblemDocument, description });

const ERRORS = {
  400: problem('The request does not match its schema, or its body is not JSON.'),
  401: problem('No valid bearer token.'),
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
  return { ...parts, tags: [tag], summary, security: [{ bearer: [] }], response: { ...success, ...ERRORS } };
}

export const ListQuery = Type.Object({
  organizationID: Type.Optional(StringOrList),
  projectID: Type.Optional(StringOrList),
  regionID: Type.Optional(StringOrList),
  networkID: Type.Optional(StringOrList),
});

export const IdParams = <K extends string>(name: K) =>
  Type.Object({ [name]: Type.String({ minLength: 1, maxLength: 253 }) } as Record<K, ReturnType<typeof Type.String>>);

export const Accepted = Type.Object({}, { description: 'Accepted; the change happens asynchronously.' });

/** Refuses the request with 422 when the rules found anything; nothing has been written yet. */
export function refuseIf(errors: readonly FieldViolation[]): void {
  if (errors.length > 0) throw problems.invalid(errors);
}

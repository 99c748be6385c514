/**
 * The REST API as the console calls it: same origin, the bearer token, JSON in and out, and every refusal turned into
 * the API's own problem document (RFC 9457), field violations included, so a form can show each beside its field.
 * A call to the region API is typed from its OpenAPI document (api-types.ts, generated): the path must be one the
 * document has for that method, the body that route's, and the answer is that route's success body.
 */
import type { FieldViolation } from '../src/region/http/problem.ts';
import type { paths } from './api-types.ts';

export type { FieldViolation };

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string,
    readonly errors: readonly FieldViolation[],
  ) {
    super(detail === '' ? title : `${title}: ${detail}`);
  }
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A query string as `query()` makes it: none, or `?` and the parameters. */
export type Query = '' | `?${string}`;

/** A document path with its parameters filled in: `/api/v2/networks/{networkID}` → `/api/v2/networks/${string}`. */
type Filled<P extends string> = P extends `${infer Head}{${string}}${infer Tail}`
  ? `${Head}${string}${Filled<Tail>}`
  : P;

/** The operation of path `P` for method `M` (never when the document has none). */
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][Lowercase<M>]>;

/** The success statuses of an operation whose body is something other than JSON (never when all are JSON or empty). */
type NonJsonSuccess<O> = O extends { responses: infer R }
  ? {
      [S in keyof R]: S extends 200 | 201 | 202 | 204
        ? R[S] extends { content: infer C }
          ? 'application/json' extends keyof C
            ? never
            : S
          : never
        : never;
    }[keyof R]
  : never;

/**
 * The document's paths that have an operation for `M` answering JSON (or nothing). A route that answers another
 * media type, such as the text/event-stream of GET /api/v2/watch (read by live.ts with fetch), is not for `api()`.
 */
type Routes<M extends Method> = {
  [P in keyof paths]: [Operation<P, M>] extends [never]
    ? never
    : [NonJsonSuccess<Operation<P, M>>] extends [never]
      ? P
      : never;
}[keyof paths];

/** Each route for `M` with its URL pattern, computed once per method. */
type Table<M extends Method> = { [P in Routes<M>]: Filled<P> };

/** Every URL the region API answers for `M`, query string included. */
export type RegionUrl<M extends Method> = `${Table<M>[keyof Table<M>]}${Query}`;

/** The document paths a URL is an instance of (a parameter's `${string}` may swallow a longer path's tail). */
type Matching<M extends Method, U extends string> = {
  [P in keyof Table<M>]: U extends `${Table<M>[P]}${Query}` ? P : never;
}[keyof Table<M>];

/** Of the paths a URL matches, the most specific: `/servers/{id}/consoleoutput` rather than `/servers/{id}`. */
type Specific<M extends Method, R extends keyof Table<M>> = {
  [P in R]: true extends { [Q in Exclude<R, P>]: Table<M>[Q] extends Table<M>[P] ? true : never }[Exclude<R, P>]
    ? never
    : P;
}[R];

/** The document path a URL is an instance of. */
type RouteOf<M extends Method, U extends string> = Specific<M, Matching<M, U>> & Routes<M>;

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;

/** What a route answers on success: the JSON body of its 2xx response, undefined when it has none. */
export type Answer<M extends Method, U extends string> =
  Operation<RouteOf<M, U>, M> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonContent<R[S]> : never }[keyof R]
    : never;

/** The body argument of a route: its JSON request body, or nothing. */
type BodyArgument<M extends Method, U extends string> =
  Operation<RouteOf<M, U>, M> extends { requestBody: { content: { 'application/json': infer B } } } ? [body: B] : [];

/** The console's own backend (src/cli/console/), which the region API's document does not describe. */
export type ConsoleUrl = `/api/console/${string}`;

export interface Api {
  /** A call to the region API, typed from its document. */
  <M extends Method, U extends RegionUrl<M>>(method: M, path: U, ...body: BodyArgument<M, U>): Promise<Answer<M, U>>;
  /** A call to the console's own backend: the caller names the answer's type. */
  <T>(method: Method, path: ConsoleUrl, body?: unknown): Promise<T>;
}

/** An API bound to a token; `onUnauthorized` runs when the API refuses it (expired, or from another deployment). */
export function apiWith(token: string, onUnauthorized: () => void): Api {
  return async (method: Method, path: string, body?: unknown): Promise<never> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json: unknown = text === '' ? undefined : JSON.parse(text);
    if (response.ok) return json as never;
    if (response.status === 401) onUnauthorized();
    const problem = (json ?? {}) as { title?: string; detail?: string; errors?: FieldViolation[] };
    throw new ApiProblem(
      response.status,
      problem.title ?? response.statusText,
      problem.detail ?? '',
      problem.errors ?? [],
    );
  };
}

/** A query string of the given parameters, leaving out the unset ones. */
export function query(params: Readonly<Record<string, string | undefined>>): Query {
  const set = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}

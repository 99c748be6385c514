/**
 * The REST API as the console calls it: same origin, the bearer token, JSON in and out, and every refusal turned into
 * the API's own problem document (RFC 9457), field violations included, so a form can show each beside its field.
 */
import type { FieldViolation } from '../src/region/http/problem.ts';

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

export interface Api {
  <T>(method: Method, path: string, body?: unknown): Promise<T>;
}

/** An API bound to a token; `onUnauthorized` runs when the API refuses it (expired, or from another deployment). */
export function apiWith(token: string, onUnauthorized: () => void): Api {
  return async <T>(method: Method, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json: unknown = text === '' ? undefined : JSON.parse(text);
    if (response.ok) return json as T;
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
export function query(params: Readonly<Record<string, string | undefined>>): string {
  const set = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`;
}

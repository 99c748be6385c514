/**
 * What every service module does the same way, declared once, as gophercloud does with struct tags:
 *
 * - A list filter is a camelCase option object; each filter's wire names (`project_id`, `router:external`,
 *   `tags-any`) are declared once, as its `QueryKeys`, and `toQuery` writes the query from them.
 * - OpenStack wraps a single resource in an envelope named after it (`{"network": {…}}`); `requestEnveloped`
 *   sends a request and returns what the envelope holds.
 *
 * Request bodies stay wire-shaped (what a caller writes is what the service reads). Types a caller writes (filters,
 * bodies, options) mark optional fields `?: T | undefined`, so a maybe-absent value passes without a conditional
 * spread; result types mark them `?: T`, as the JSON they are parsed from has no undefined.
 */
import type { Query, QueryValue, RequestSpec, ServiceClient } from './session.ts';

/** How one filter field is written: a wire name (its value sent as it is, arrays as a repeated key), or a name and an encoder. */
type QueryKey<V> = string | { readonly name: string; readonly encode: (value: V) => QueryValue };

/** One QueryKey for every field of a filter, so adding a field without its wire name does not compile. */
export type QueryKeys<F> = { readonly [K in keyof F]-?: QueryKey<Exclude<F[K], undefined>> };

/** The query for `filter`: every field that is set, under its wire name; unset fields (and unset encodings) are left out. */
export function toQuery<F extends object>(filter: F, keys: QueryKeys<F>): Query {
  const query: Record<string, QueryValue> = {};
  for (const field of Object.keys(keys) as (keyof F & string)[]) {
    const value = filter[field];
    if (value === undefined) continue;
    const key = keys[field] as QueryKey<unknown>;
    const [name, encoded] = typeof key === 'string' ? [key, value as QueryValue] : [key.name, key.encode(value)];
    if (encoded !== undefined) query[name] = encoded;
  }
  return query;
}

/** A list as one comma-separated value (`a,b`), as Keystone, Neutron, Nova and Ironic read lists; empty is unset. */
export function joined(values: readonly string[] | undefined): string | undefined {
  return values === undefined || values.length === 0 ? undefined : values.join(',');
}

/** A list filter sent as one comma-separated parameter (`tags=a,b`) rather than a repeated one. */
export const commaJoined = (name: string): QueryKey<readonly string[]> => ({ name, encode: joined });

/** A flag the service reads by its presence or a fixed spelling: sent as `spelling` when true, left out when false. */
export const flag = (name: string, spelling = 'true'): QueryKey<boolean> => ({
  name,
  encode: (on) => (on ? spelling : undefined),
});

/** Sends `spec` and returns the resource its response wraps under `envelope`. */
export async function requestEnveloped<T>(client: ServiceClient, envelope: string, spec: RequestSpec): Promise<T> {
  const { body } = await client.request<Readonly<Record<string, T>>>(spec);
  return body[envelope] as T;
}

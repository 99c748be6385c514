/**
 * Upstream's OpenAPI document as test data: its operations (method, path, parameters, request body with its
 * example, documented responses), validators for its schemas (TypeBox's JSON Schema engine: the document uses only
 * the JSON Schema subset of OpenAPI 3.0, plus the `byte` format registered here), and what the compatibility test
 * builds requests from: an example pruned to the required properties, and invalid variants of one.
 *
 * The document references core's `common.spec.yaml` by URL; those references are pointed at the vendored copy, and
 * the identity service's organization and project ids (not vendored) are read as strings.
 */
import { readFileSync } from 'node:fs';
import Format from 'typebox/format';
import * as JsonSchema from 'typebox/schema';
import YAML from 'yaml';

type Json = Record<string, unknown>;

const here = (file: string) => new URL(`./upstream-openapi/${file}`, import.meta.url);
const CORE =
  /^https:\/\/raw\.githubusercontent\.com\/unikorn-cloud\/core\/[^/]+\/pkg\/openapi\/common\.spec\.yaml#\/components\//;
const IDENTITY = /^https:\/\/raw\.githubusercontent\.com\/unikorn-cloud\/identity\//;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface UpstreamParameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly schema: Json;
}

export interface UpstreamOperation {
  readonly method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** OpenAPI form: `/api/v2/networks/{networkID}`. */
  readonly path: string;
  readonly key: string;
  readonly parameters: readonly UpstreamParameter[];
  readonly body?: { readonly schema: Json; readonly example: unknown };
  /** Documented status → the response body's schema (undefined: no body). */
  readonly responses: ReadonlyMap<number, Json | undefined>;
  /** Whether the operation needs a bearer token. */
  readonly secured: boolean;
}

interface Upstream {
  readonly operations: readonly UpstreamOperation[];
  /** Follows one `$ref` of the document. */
  readonly resolve: (node: Json) => Json;
  /** Whether `value` conforms to `schema` (a fragment of the document); the first errors when it does not. */
  readonly check: (schema: Json, value: unknown) => { ok: boolean; errors: string[] };
}

function walk(node: unknown, visit: (value: Json) => void): void {
  if (Array.isArray(node)) for (const item of node) walk(item, visit);
  else if (typeof node === 'object' && node !== null) {
    visit(node as Json);
    for (const value of Object.values(node)) walk(value, visit);
  }
}

/** The document with every external reference made local. */
function loadDocument(): Json {
  const doc = YAML.parse(readFileSync(here('region.spec.yaml'), 'utf8')) as Json;
  const common = YAML.parse(readFileSync(here('common.spec.yaml'), 'utf8')) as Json;
  walk(common, (n) => {
    if (typeof n['$ref'] === 'string') n['$ref'] = n['$ref'].replace('#/components/', '#/components/common/');
  });
  walk(doc, (n) => {
    const ref = n['$ref'];
    if (typeof ref !== 'string') return;
    if (CORE.test(ref)) n['$ref'] = ref.replace(CORE, '#/components/common/');
    else if (IDENTITY.test(ref)) {
      delete n['$ref'];
      n['type'] = 'string';
    }
  });
  (doc['components'] as Json)['common'] = common['components'];
  return doc;
}

/**
 * OpenAPI's `byte` (base64); and `ipv4`, which the document also puts on fields that carry prefixes (a security
 * group rule's `cidr` and `prefix`; upstream's handlers parse them as CIDRs), so an address or a prefix passes.
 */
function registerFormats(): void {
  Format.Set('byte', (value) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value));
  const octet = '(25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])';
  const ipv4 = new RegExp(`^(${octet}\\.){3}${octet}(/(3[0-2]|[12]?[0-9]))?$`);
  Format.Set('ipv4', (value) => ipv4.test(value));
}

export function loadUpstream(): Upstream {
  registerFormats();
  const doc = loadDocument();
  const resolve = (node: Json): Json => {
    const ref = node['$ref'];
    if (typeof ref !== 'string') return node;
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], doc);
    if (target === undefined) throw new Error(`unresolved ${ref}`);
    return resolve(target as Json);
  };
  const compiled = new Map<Json, ReturnType<typeof JsonSchema.Compile>>();
  const check = (schema: Json, value: unknown) => {
    let validator = compiled.get(schema);
    if (validator === undefined) {
      validator = JsonSchema.Compile({ ...doc, ...schema } as never);
      compiled.set(schema, validator);
    }
    if (validator.Check(value)) return { ok: true, errors: [] };
    const [, errors] = validator.Errors(value);
    return { ok: false, errors: errors.slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`) };
  };

  const operations: UpstreamOperation[] = [];
  for (const [path, item] of Object.entries(doc['paths'] as Record<string, Json>)) {
    const shared = ((item['parameters'] as Json[] | undefined) ?? []).map(resolve);
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      const own = ((operation['parameters'] as Json[] | undefined) ?? []).map(resolve);
      const parameters = [...shared, ...own].map((p): UpstreamParameter => ({
        name: String(p['name']),
        in: p['in'] as 'path' | 'query',
        required: p['required'] === true,
        schema: p['schema'] as Json,
      }));
      const responses = new Map<number, Json | undefined>();
      for (const [status, response] of Object.entries(operation['responses'] as Record<string, Json>)) {
        const content = (resolve(response)['content'] as Record<string, Json> | undefined)?.['application/json'];
        responses.set(Number(status), content?.['schema'] as Json | undefined);
      }
      const requestBody = operation['requestBody'] as Json | undefined;
      const media =
        requestBody === undefined ? undefined : ((resolve(requestBody)['content'] as Json)['application/json'] as Json);
      operations.push({
        method: method.toUpperCase() as UpstreamOperation['method'],
        path,
        key: `${method.toUpperCase()} ${path}`,
        parameters,
        ...(media === undefined ? {} : { body: { schema: media['schema'] as Json, example: media['example'] } }),
        responses,
        secured: operation['security'] !== undefined && operation['x-no-security-requirements'] !== true,
      });
    }
  }
  return { operations, resolve, check };
}

/** The properties a schema requires, its `allOf` parts' included. */
function requiredOf(schema: Json, resolve: (n: Json) => Json): Set<string> {
  const s = resolve(schema);
  const own = (s['required'] as string[] | undefined) ?? [];
  const parts = ((s['allOf'] as Json[] | undefined) ?? []).flatMap((p) => [...requiredOf(p, resolve)]);
  return new Set([...own, ...parts]);
}

/** The schema of one property, looked for in the schema and its `allOf` parts. */
function propertyOf(schema: Json, name: string, resolve: (n: Json) => Json): Json | undefined {
  const s = resolve(schema);
  const own = (s['properties'] as Record<string, Json> | undefined)?.[name];
  if (own !== undefined) return own;
  for (const part of (s['allOf'] as Json[] | undefined) ?? []) {
    const found = propertyOf(part, name, resolve);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The example with only what its schema requires, recursively: the smallest request upstream accepts. */
export function pruneToRequired(value: unknown, schema: Json, resolve: (n: Json) => Json): unknown {
  const s = resolve(schema);
  if (Array.isArray(value)) {
    const items = s['items'] as Json | undefined;
    return items === undefined ? value : value.map((v) => pruneToRequired(v, items, resolve));
  }
  if (typeof value !== 'object' || value === null) return value;
  const required = requiredOf(s, resolve);
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (!required.has(key)) continue;
    const property = propertyOf(s, key, resolve);
    out[key] = property === undefined ? v : pruneToRequired(v, property, resolve);
  }
  return out;
}

/** Where a required string leaf of the example is (following required properties only), for a wrong-type variant. */
export function requiredStringLeaf(
  value: unknown,
  schema: Json,
  resolve: (n: Json) => Json,
  at: string[] = [],
): string[] | undefined {
  if (typeof value === 'string') return at;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const s = resolve(schema);
  for (const key of requiredOf(s, resolve)) {
    const property = propertyOf(s, key, resolve);
    if (property === undefined || !(key in value)) continue;
    const found = requiredStringLeaf((value as Json)[key], property, resolve, [...at, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A copy of `value` with the property at `path` set to `replacement` (deleted when undefined). */
export function withValueAt(value: unknown, path: readonly string[], replacement: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return replacement;
  const { [head]: current, ...others } = value as Json;
  if (rest.length === 0 && replacement === undefined) return others;
  return { ...others, [head]: withValueAt(current, rest, replacement) };
}

/**
 * The API under attack, generated from the OpenAPI document it serves: every POST, PUT and DELETE route gets bodies
 * drawn from its own request schema, then broken — malformed (a wrong type, a required field gone, a value past its
 * bound, not JSON at all), with unknown fields, with URLs into the platform (SSRF) where a route takes one — and
 * calls with no token, a forged one and another organization's. Every answer must be below 500; a 400 or 422 must
 * name its fields; a refusal must leave the store as it was.
 *
 * The budget is fixed in `npm test` (OPENREGION_FUZZ_RUNS cases per route and kind, default 3, the same draws each run);
 * `npm run test:fuzz` runs a larger one with fresh draws (.ci/run), and prints a report: cases per route, refusals
 * by status (organization-limit refusals among the 403s: the world leaves room for a few creates only), 5xx and
 * store changes (both must be 0). OPENREGION_FUZZ_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { LIMITED_KINDS } from './decide-limit.ts';
import { imageSourceCheck } from './image-source.ts';
import type { ImageSourceCheck } from './context.ts';
import { pathValuesOf, upstreamWorld, type UpstreamWorld } from './testing/upstream-world.ts';

const RUNS = Number(process.env['OPENREGION_FUZZ_RUNS'] ?? 3);
const SEED = Number(
  process.env['OPENREGION_FUZZ_SEED'] ?? (process.env['OPENREGION_FUZZ_RUNS'] === undefined ? 35 : randomInt(2 ** 31)),
);

type Schema = Record<string, unknown>;
type Method = 'POST' | 'PUT' | 'DELETE';
type Json = unknown;

/** Where a tenant's URL could lead inside the platform, in the spellings an attacker tries. */
const SSRF_URLS = [
  'http://127.0.0.1:8080/_emulator/state',
  'http://localhost/',
  'http://0x7f000001/',
  'http://2130706433/',
  'http://127.1/',
  'http://0177.0.0.1/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/',
  'http://10.0.0.1:6443/api',
  'http://100.100.100.200/',
  'http://0.0.0.0:22/',
  'http://user:pass@127.0.0.1/',
  'http://mirror.invalid/x.raw',
];

/** An arbitrary of values the schema admits (by shape: refinements and cross-field rules are the API's to judge). */
function arbitraryOf(schema: Schema, depth = 0): fc.Arbitrary<Json> {
  const branches = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (branches !== undefined) return fc.oneof(...branches.map((b) => arbitraryOf(b, depth)));
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as Json[]));
  if ('const' in schema) return fc.constant(schema['const']);
  switch (schema['type']) {
    case 'object': {
      const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
      const required = new Set((schema['required'] ?? []) as string[]);
      const record: Record<string, fc.Arbitrary<Json>> = {};
      for (const [name, property] of Object.entries(properties)) {
        record[name] = name === 'uri' ? fc.constantFrom(...SSRF_URLS) : arbitraryOf(property, depth + 1);
      }
      return fc.record(record, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
    }
    case 'array': {
      const items = (schema['items'] ?? {}) as Schema;
      const max = Math.min(Number(schema['maxItems'] ?? 3), depth > 2 ? 1 : 3);
      return fc.array(arbitraryOf(items, depth + 1), { minLength: Number(schema['minItems'] ?? 0), maxLength: max });
    }
    case 'integer':
    case 'number': {
      const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : -1000;
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : 100_000;
      return schema['type'] === 'integer' ? fc.integer({ min, max }) : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'string':
      return stringOf(schema);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const maxLength = Math.min(Number(schema['maxLength'] ?? 40), 300);
  const minLength = Number(schema['minLength'] ?? 0);
  if (typeof schema['pattern'] === 'string') {
    const pattern = new RegExp(schema['pattern']);
    return fc.stringMatching(pattern).filter((s) => s.length <= maxLength && s.length >= minLength);
  }
  if (schema['format'] === 'uuid') return fc.uuid();
  if (schema['format'] === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (schema['format'] === 'byte') return fc.base64String({ maxLength: 64 });
  return fc.string({ minLength, maxLength: Math.min(maxLength, 40) });
}

/** A value of another type than the schema's. */
const wrongTypeOf = (schema: Schema): Json => {
  switch (schema['type']) {
    case 'string':
      return 42;
    case 'object':
      return ['not', 'an', 'object'];
    case 'array':
      return { not: 'an array' };
    default:
      return 'not a number or boolean';
  }
};

/** Every object location in a value with the schema of it: where a field may be added, removed or broken. */
interface Spot {
  readonly pointer: string[];
  readonly schema: Schema;
}

function spotsOf(value: Json, schema: Schema, pointer: string[] = []): Spot[] {
  const out: Spot[] = [{ pointer, schema }];
  if (typeof value !== 'object' || value === null) return out;
  const branches = (schema['anyOf'] ?? schema['oneOf']) as Schema[] | undefined;
  if (branches !== undefined) return out; // which branch a value took is not known: break it whole only
  if (Array.isArray(value)) {
    const items = (schema['items'] ?? {}) as Schema;
    value.forEach((v, i) => out.push(...spotsOf(v, items, [...pointer, String(i)])));
    return out;
  }
  const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
  for (const [name, v] of Object.entries(value as Record<string, Json>)) {
    const property = properties[name];
    if (property !== undefined) out.push(...spotsOf(v, property, [...pointer, name]));
  }
  return out;
}

const at = (value: Json, pointer: readonly string[]): Json =>
  pointer.reduce<Json>((v, key) => (v as Record<string, Json>)[key], value);

/** A copy of `value` with `next` at `pointer`; `remove` drops the member instead. */
function withAt(value: Json, pointer: readonly string[], next: Json, remove = false): Json {
  if (pointer.length === 0) return next;
  const [head = '', ...rest] = pointer;
  if (Array.isArray(value)) {
    const items: Json[] = [...(value as Json[])];
    items[Number(head)] = withAt(items[Number(head)], rest, next, remove);
    return items;
  }
  const entries = Object.entries(value as Record<string, Json>).filter(
    ([k]) => !(remove && rest.length === 0 && k === head),
  );
  if (remove && rest.length === 0) return Object.fromEntries(entries);
  return { ...Object.fromEntries(entries), [head]: withAt((value as Record<string, Json>)[head], rest, next, remove) };
}

type Mutation = { readonly body: Json; readonly expect: 'named' | 'refused'; readonly field?: string; raw?: string };

/** One way to break a valid-shaped body, chosen by `pick` (a number from the seeded stream). */
function mutate(body: Json, schema: Schema, pick: number): Mutation {
  const spots = spotsOf(body, schema).filter((s) => s.pointer.length > 0);
  const spot = spots[pick % Math.max(1, spots.length)];
  const kind = pick % 7;
  if (kind === 0 || spot === undefined) return { body: null, expect: 'refused', raw: '{"metadata": ' };
  if (kind === 1) return { body: [body], expect: 'named' };
  if (kind === 2) return { body: withAt(body, spot.pointer, wrongTypeOf(spot.schema)), expect: 'named' };
  if (kind === 3) {
    const parent = spot.pointer.slice(0, -1);
    const parentSchema = spotsOf(body, schema).find((s) => s.pointer.join('/') === parent.join('/'))?.schema;
    const required = (parentSchema?.['required'] ?? []) as string[];
    const name = spot.pointer.at(-1) ?? '';
    if (required.includes(name)) return { body: withAt(body, spot.pointer, null, true), expect: 'named' };
  }
  if (kind === 4 && spot.schema['type'] === 'string') {
    const max = Number(spot.schema['maxLength'] ?? 100_000);
    if (max < 100_000) return { body: withAt(body, spot.pointer, 'a'.repeat(max + 1)), expect: 'named' };
  }
  if (kind === 5 && (spot.schema['type'] === 'integer' || spot.schema['type'] === 'number')) {
    const bound = typeof spot.schema['maximum'] === 'number' ? spot.schema['maximum'] + 1 : undefined;
    if (bound !== undefined) return { body: withAt(body, spot.pointer, bound), expect: 'named' };
  }
  // An unknown field in an object of the body: named in the 400.
  const objects = spotsOf(body, schema).filter((s) => {
    const v = at(body, s.pointer);
    return typeof v === 'object' && v !== null && !Array.isArray(v) && s.schema['type'] === 'object';
  });
  const target = objects[pick % Math.max(1, objects.length)] ?? { pointer: [], schema };
  const name = `unknown${String(pick % 97)}`;
  return {
    body: withAt(body, [...target.pointer, name], 'x'),
    expect: 'named',
    field: `/${[...target.pointer, name].join('/')}`,
  };
}

/**
 * The document with every local `$ref` replaced by what it points to: the shared schemas of `components` are
 * published once and referenced (openapi.ts), and a body is drawn from its schema as a whole.
 */
function inlined(node: unknown, doc: unknown, through: readonly string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inlined(item, doc, through));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as Schema)['$ref'];
  if (typeof ref === 'string') {
    assert.ok(ref.startsWith('#/') && !through.includes(ref), `${ref} is local and not circular`);
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((n, key) => (n as Schema | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    assert.notEqual(target, undefined, `${ref} resolves`);
    return inlined(target, doc, [...through, ref]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(value, doc, through)]));
}

interface Tally {
  cases: number;
  byStatus: Map<number, number>;
  serverErrors: string[];
  storeChanges: string[];
  unnamed: string[];
  /** 403s for an organization limit (docs/adr/0041-organization-limits.md). */
  limited: number;
}

/**
 * Room for a few creates beyond the world's own (two identities and networks, two security groups and servers, a load
 * balancer), so the creates a schema body gets through meet the limit refusal too.
 */
const FUZZ_LIMITS = { defaults: Object.fromEntries(LIMITED_KINDS.map((k) => [k, 5])), organizations: {} };
const LIMIT_DETAIL = /^organization limit for [a-z ]+ reached: \d+ of \d+$/;

describe('API fuzz from the served OpenAPI document', () => {
  let w: UpstreamWorld;
  let doc: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>> };
  const tallies = new Map<string, Tally>();
  // The real check, with names resolving nowhere: SSRF URLs meet the policy, nothing leaves the machine.
  const real = imageSourceCheck({ resolve: () => Promise.reject(new Error('no DNS in the fuzz suite')) });
  const imageSource: ImageSourceCheck = (uri, signal) =>
    uri === 'https://images.example.com/own.raw' ? Promise.resolve(undefined) : real(uri, signal);

  before(async () => {
    w = await upstreamWorld({ imageSource, rateLimits: {}, organizationLimits: FUZZ_LIMITS });
    const served: unknown = (await w.f.api.inject({ method: 'GET', url: '/openapi.json' })).json();
    doc = inlined(served, served) as typeof doc;
  });
  after(() => w.f.close());

  const pathValue = (path: string, name: string): string => {
    const values = pathValuesOf(w, path);
    return values[name] ?? '3f1e0c9a-0000-4000-8000-000000000000';
  };
  const urlOf = (path: string, ids: 'world' | 'random', random: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      encodeURIComponent(ids === 'world' ? pathValue(path, name) : random),
    );

  const forged = (token: string) => {
    const [header = '', payload = '', signature = ''] = token.split('.');
    return `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
  };

  it('every POST, PUT and DELETE route: no 5xx, refusals name their fields, no refusal changes the store', async () => {
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .map(([method, op]) => ({ path, method: method.toUpperCase() as Method, op }))
        .filter((r) => ['POST', 'PUT', 'DELETE'].includes(r.method)),
    );
    assert.ok(routes.length >= 30, `${String(routes.length)} routes`);
    let seed = SEED;
    for (const { path, method, op } of routes) {
      const route = `${method} ${path}`;
      const tally: Tally = {
        cases: 0,
        byStatus: new Map(),
        serverErrors: [],
        storeChanges: [],
        unnamed: [],
        limited: 0,
      };
      tallies.set(route, tally);
      const schema = op.requestBody?.content['application/json']?.schema;
      const bodies = schema === undefined ? [] : fc.sample(arbitraryOf(schema), { numRuns: RUNS * 3, seed: seed++ });
      const picks = fc.sample(fc.nat(), { numRuns: RUNS * 3, seed: seed++ });
      const randomIDs = fc.sample(fc.oneof(fc.uuid(), fc.string({ maxLength: 80 })), { numRuns: RUNS, seed: seed++ });

      const send = async (
        what: string,
        url: string,
        token: string | undefined,
        payload: Json,
        expect: 'any' | 'refused' | 'named',
        raw?: string,
      ) => {
        const before = await w.f.snapshot();
        const response = await w.f.api.inject({
          method,
          url,
          headers: {
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            ...(payload === undefined && raw === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(raw !== undefined ? { payload: raw } : payload === undefined ? {} : { payload: JSON.stringify(payload) }),
        });
        const status = response.statusCode;
        tally.cases++;
        tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
        const label = `${what} ${url} ${raw ?? JSON.stringify(payload)}`.slice(0, 400);
        // File storage is upstream's storage provisioner's: openregion answers 501 there on purpose.
        if (status >= 500 && !(status === 501 && path.startsWith('/api/v2/filestorage'))) {
          tally.serverErrors.push(`${String(status)} ${label}: ${response.body.slice(0, 300)}`);
        }
        if (status >= 400 && JSON.stringify(await w.f.snapshot()) !== JSON.stringify(before)) {
          tally.storeChanges.push(`${String(status)} ${label}`);
        }
        if (expect !== 'any' && status < 400) tally.unnamed.push(`${String(status)} (not refused) ${label}`);
        if (status === 403 && response.body.includes('"organizationLimit"')) {
          tally.limited++;
          const { detail } = response.json<{ detail: string }>();
          if (!LIMIT_DETAIL.test(detail)) tally.unnamed.push(`limit refusal not naming its limit: ${detail}`);
        }
        if (status === 400 || status === 422) {
          const errors = (response.json<{ errors?: { pointer?: string; field?: string }[] }>().errors ?? []).filter(
            // A pointer into the request: "" is the body itself (an array where an object belongs).
            (e) => typeof e.pointer === 'string' && (e.pointer === '' || e.pointer.startsWith('/')),
          );
          if (expect === 'named' && errors.length === 0)
            tally.unnamed.push(`${String(status)} ${label}: ${response.body}`);
        }
        return response;
      };

      const world = urlOf(path, 'world', '');
      for (let i = 0; i < RUNS; i++) {
        const body = bodies[i];
        // Forged, foreign and absent tokens: never let through.
        await send('forged token', world, forged(w.f.tokens.a), body, 'refused');
        await send('foreign token', world, w.f.tokens.b, body, 'refused');
        await send('no token', world, undefined, body, 'refused');
        // Ids that are not there (or not ids at all), with a good token.
        await send('random id', urlOf(path, 'random', randomIDs[i] ?? 'x'), w.f.tokens.a, body, 'any');
        if (method === 'DELETE' || schema === undefined) continue;
        // Bodies of the route's own shape: whatever they say, no 5xx, and a refusal writes nothing.
        await send('schema body', world, w.f.tokens.a, body, 'any');
        for (const pick of picks.slice(i * 3, i * 3 + 2)) {
          const broken = mutate(bodies[(i + 1) % bodies.length] ?? body, schema, pick);
          const response = await send(
            `malformed(${String(pick % 7)})`,
            world,
            w.f.tokens.a,
            broken.body,
            broken.expect,
            broken.raw,
          );
          if (broken.field !== undefined && response.statusCode < 500) {
            const named = (response.json<{ errors?: { pointer: string }[] }>().errors ?? []).map((e) => e.pointer);
            if (response.statusCode !== 400 || !named.includes(broken.field)) {
              tally.unnamed.push(
                `unknown field ${broken.field} not named (${String(response.statusCode)}): ${response.body}`,
              );
            }
          }
        }
        if (JSON.stringify(schema).includes('"uri"')) {
          const url = SSRF_URLS[i % SSRF_URLS.length] ?? '';
          const ssrf = { ...(body as object), spec: { ...((body as { spec?: object }).spec ?? {}), uri: url } };
          const response = await send('ssrf', world, w.f.tokens.a, ssrf, 'named');
          if (response.statusCode < 400) tally.unnamed.push(`SSRF URL accepted: ${url}`);
        }
      }
    }

    const all = [...tallies.values()];
    const total = all.reduce((n, t) => n + t.cases, 0);
    const statuses = new Map<number, number>();
    for (const t of all) for (const [s, n] of t.byStatus) statuses.set(s, (statuses.get(s) ?? 0) + n);
    const serverErrors = all.flatMap((t) => t.serverErrors);
    const storeChanges = all.flatMap((t) => t.storeChanges);
    const unnamed = all.flatMap((t) => t.unnamed);
    const report = [
      `fuzz report: seed ${String(SEED)}, ${String(RUNS)} runs a kind, ${String(tallies.size)} routes, ${String(total)} cases`,
      ...[...tallies].map(([route, t]) => `  ${route}: ${String(t.cases)} cases`),
      `  refusals by status: ${[...statuses]
        .filter(([s]) => s >= 400)
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${String(s)}×${String(n)}`)
        .join(' ')}; accepted: ${String([...statuses].filter(([s]) => s < 400).reduce((n, [, c]) => n + c, 0))}`,
      `  organization-limit refusals (403): ${String(all.reduce((n, t) => n + t.limited, 0))}`,
      `  5xx: ${String(serverErrors.length)}; store changes by refusals: ${String(storeChanges.length)}; unnamed or let through: ${String(unnamed.length)}`,
    ];
    for (const line of report) process.stdout.write(`# ${line}\n`);
    assert.deepEqual(serverErrors, [], 'no 5xx');
    assert.deepEqual(storeChanges, [], 'no refusal changes the store');
    assert.deepEqual(unnamed, [], 'every refusal names its fields; forged, foreign and absent tokens are refused');
  });
});

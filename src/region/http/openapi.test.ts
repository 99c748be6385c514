/**
 * /openapi.json is an OpenAPI 3.1 document (checked structurally against the 3.1 rules, with every schema compiled
 * as JSON Schema and every $ref resolved) and describes every route the API registered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import { routesOf } from './app.ts';
import { openapiPath, upstreamOperationID } from './openapi.ts';
import { apiFixture, type ApiFixture } from './testing/api.ts';
import { loadUpstream } from './testing/upstream.ts';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The document's size when every schema was inlined at every use (docs/adr/0042-openapi-for-client-generators.md). */
const INLINED_BYTES = 943_872;

/** `/api/v2/networks/:networkID` → `/api/v2/networks/{networkID}`. */

function walk(node: unknown, visit: (value: Json, path: string) => void, path = '#'): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      walk(v, visit, `${path}/${String(i)}`);
    });
  } else if (typeof node === 'object' && node !== null) {
    visit(node as Json, path);
    for (const [k, v] of Object.entries(node)) walk(v, visit, `${path}/${k}`);
  }
}

function resolve(doc: Json, ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** `node` with every local $ref replaced by its target (the document's shared schemas are not circular). */
function inlined(doc: Json, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => inlined(doc, item));
  if (typeof node !== 'object' || node === null) return node;
  const ref = (node as Json)['$ref'];
  if (typeof ref === 'string') return inlined(doc, resolve(doc, ref));
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inlined(doc, value)]));
}

describe('/openapi.json', () => {
  let f: ApiFixture;
  let doc: Json;
  before(async () => {
    f = await apiFixture();
    const response = await f.api.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    doc = response.json<Json>();
  });
  after(() => f.close());

  it('is OpenAPI 3.1: version, info, paths, operations with responses and bearer security', () => {
    assert.match(String(doc['openapi']), /^3\.1\.\d+$/);
    const info = doc['info'] as Json;
    assert.equal(typeof info['title'], 'string');
    assert.equal(typeof info['version'], 'string');
    const schemes = (doc['components'] as Json)['securitySchemes'] as Json;
    assert.deepEqual((schemes['bearer'] as Json)['scheme'], 'bearer');
    const paths = doc['paths'] as Record<string, Json>;
    assert.ok(Object.keys(paths).length > 20);
    for (const [path, item] of Object.entries(paths)) {
      assert.ok(path.startsWith('/'), path);
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        const responses = (operation as Json)['responses'] as Record<string, Json> | undefined;
        assert.ok(responses !== undefined && Object.keys(responses).length > 0, `${method} ${path} has responses`);
        for (const [code, answer] of Object.entries(responses)) {
          assert.match(code, /^([1-5]\d\d|[1-5]XX|default)$/, `${method} ${path} ${code}`);
          // A Response Object, or a Reference Object to one under components.responses.
          const response = typeof answer['$ref'] === 'string' ? (resolve(doc, answer['$ref']) as Json) : answer;
          assert.equal(typeof response['description'], 'string', `${method} ${path} ${code} description`);
        }
        // Path templates name exactly the path parameters.
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = (((operation as Json)['parameters'] as Json[] | undefined) ?? [])
          .filter((p) => p['in'] === 'path')
          .map((p) => p['name'])
          .sort();
        assert.deepEqual(declared, templated, `${method} ${path} path parameters`);
      }
    }
  });

  it('every $ref resolves and every schema compiles as JSON Schema', () => {
    walk(doc, (node, path) => {
      if (typeof node['$ref'] === 'string') assert.notEqual(resolve(doc, node['$ref']), undefined, `${path} $ref`);
    });
    let schemas = 0;
    walk(doc, (node, path) => {
      const schema = node['schema'];
      if (typeof schema === 'object' && schema !== null && !path.includes('/schema/')) {
        // Whole: with what each $ref points to in place (a bare $ref would compile to anything).
        assert.doesNotThrow(() => Compile(inlined(doc, schema) as never), path);
        schemas++;
      }
    });
    assert.ok(schemas > 50);
  });

  it('describes every route the API registered (and nothing it did not)', () => {
    const paths = doc['paths'] as Record<string, Json>;
    const registered = routesOf(f.api).filter((r) => r.url !== '/openapi.json');
    assert.ok(registered.length > 30);
    for (const route of registered) {
      const item = paths[openapiPath(route.url)];
      assert.ok(item?.[route.method.toLowerCase()] !== undefined, `${route.method} ${route.url} is described`);
    }
    const described = Object.entries(paths).flatMap(([p, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    const expected = registered.map((r) => `${r.method} ${openapiPath(r.url)}`);
    assert.deepEqual(described.sort(), [...new Set(expected)].sort());
  });

  it('carries the upstream v2 paths', () => {
    const paths = Object.keys(doc['paths'] as Json);
    for (const path of [
      '/api/v2/networks',
      '/api/v2/networks/{networkID}',
      '/api/v2/securitygroups/{securityGroupID}',
      '/api/v2/servers/{serverID}/softreboot',
      '/api/v2/servers/{serverID}/consoleoutput',
      '/api/v2/servers/{serverID}/sshkey',
      '/api/v2/servers/{serverID}/snapshot',
      '/api/v2/loadbalancers/{loadBalancerID}',
      '/api/v2/sshcertificateauthorities/{sshCertificateAuthorityID}',
      '/api/v2/regions/{regionID}/images',
      '/api/v1/organizations/{organizationID}/regions/{regionID}/flavors',
      '/api/v1/organizations/{organizationID}/regions/{regionID}/externalnetworks',
    ]) {
      assert.ok(paths.includes(path), path);
    }
  });

  /** Every operation: `METHOD /path` → the operation object. */
  const operations = () =>
    Object.entries(doc['paths'] as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation: operation as Json })),
    );

  it("names every operation: upstream's name for upstream's routes, a camelCase verb for openregion's own", () => {
    const ids = operations().map(({ key, operation }) => {
      assert.equal(typeof operation['operationId'], 'string', `${key} has an operationId`);
      return String(operation['operationId']);
    });
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    // Upstream's document has no operationIds: its generated server and clients (oapi-codegen) name each operation
    // from its method and path; these are the names upstream's own Go code calls.
    const byKey = new Map(operations().map(({ key, operation }) => [key, operation['operationId']]));
    assert.equal(byKey.get('GET /api/v2/networks/{networkID}'), 'GetApiV2NetworksNetworkID');
    assert.equal(byKey.get('POST /api/v2/networks'), 'PostApiV2Networks');
    assert.equal(byKey.get('GET /api/v2/servers/{serverID}/consoleoutput'), 'GetApiV2ServersServerIDConsoleoutput');
    assert.equal(byKey.get('GET /.well-known/openid-protected-resource'), 'GetWellKnownOpenidProtectedResource');
    assert.equal(
      byKey.get(
        'GET /api/v1/organizations/{organizationID}/projects/{projectID}/identities/{identityID}/servers/{serverID}/consoleoutput',
      ),
      'GetApiV1OrganizationsOrganizationIDProjectsProjectIDIdentitiesIdentityIDServersServerIDConsoleoutput',
    );
    const upstream = new Set<string>();
    for (const op of loadUpstream().operations) {
      const key = `${op.method} ${op.path}`;
      upstream.add(key);
      assert.equal(byKey.get(key), upstreamOperationID(op.method, op.path), `${key}: upstream's operation name`);
    }
    assert.equal(upstream.size, 74);
    const own = [...byKey].filter(([key]) => !upstream.has(key));
    assert.ok(own.length > 0);
    for (const [key, id] of own) {
      assert.match(
        String(id),
        /^(list|get|create|update|delete|watch)[A-Z][A-Za-z]+$/,
        `${key}: openregion's own name`,
      );
    }
  });

  it(`publishes shared schemas once and references them: at most a fifth of the ${String(INLINED_BYTES)} bytes it was inlined`, () => {
    const bytes = Buffer.byteLength(JSON.stringify(doc));
    assert.ok(bytes <= INLINED_BYTES / 5, `${String(bytes)} bytes`);
    const schemas = (doc['components'] as Json)['schemas'] as Record<string, Json>;
    for (const name of [
      'ProblemDocument',
      'NetworkV2Read',
      'NetworkV2Create',
      'ServerV2Read',
      'ResourceWriteMetadata',
    ]) {
      assert.ok(schemas[name] !== undefined, `components.schemas.${name}`);
    }
    const bodyOf = (key: string, status?: string) => {
      const operation = operations().find((o) => o.key === key)?.operation ?? {};
      const part = status === undefined ? operation['requestBody'] : (operation['responses'] as Json)[status];
      return ((part as Json)['content'] as Record<string, Json>)['application/json']?.['schema'];
    };
    assert.deepEqual(bodyOf('POST /api/v2/networks'), { $ref: '#/components/schemas/NetworkV2Create' });
    assert.deepEqual(bodyOf('POST /api/v2/networks', '201'), { $ref: '#/components/schemas/NetworkV2Read' });
    assert.deepEqual(bodyOf('GET /api/v2/servers', '200'), {
      type: 'array',
      items: { $ref: '#/components/schemas/ServerV2Read' },
    });
    // Each shared schema is used, and named once: no copy of one left inline anywhere else.
    const text = JSON.stringify(doc['paths']);
    const whole = JSON.stringify(doc);
    for (const [name, schema] of Object.entries(schemas)) {
      assert.ok(whole.includes(`"#/components/schemas/${name}"`), `${name} is referenced`);
      if (JSON.stringify(schema).length > 200) assert.ok(!text.includes(JSON.stringify(schema)), `${name} inline`);
    }
    // The error answers are shared too, by status, each with its own description.
    const responses = (doc['components'] as Json)['responses'] as Record<string, Json>;
    assert.equal(typeof responses['Unauthorized']?.['description'], 'string');
    const secured = operations().filter(({ operation }) => operation['security'] !== undefined);
    assert.ok(secured.length > 70);
    for (const { key, operation } of secured) {
      const answer = (operation['responses'] as Record<string, Json>)['401'];
      assert.deepEqual(answer, { $ref: '#/components/responses/Unauthorized' }, key);
    }
  });
});

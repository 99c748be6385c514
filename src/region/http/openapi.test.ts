/**
 * /openapi.json is an OpenAPI 3.1 document (checked structurally against the 3.1 rules, with every schema compiled
 * as JSON Schema and every $ref resolved) and describes every route the API registered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Compile } from 'typebox/compile';
import { routesOf } from './app.ts';
import { apiFixture, type ApiFixture } from './testing/api.ts';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `/api/v2/networks/:networkID` → `/api/v2/networks/{networkID}`. */
const openapiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

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
        for (const [code, response] of Object.entries(responses)) {
          assert.match(code, /^([1-5]\d\d|[1-5]XX|default)$/, `${method} ${path} ${code}`);
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
        assert.doesNotThrow(() => Compile(schema as never), path);
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
});

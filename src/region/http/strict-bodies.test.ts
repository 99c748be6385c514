/**
 * Strict bodies (kubectl's fieldValidation=Strict): an unknown field anywhere in a request body — at the top level,
 * in `metadata` (an injected `id` or `organizationId`), in any v1 or v2 `spec` — is a 400 that names each one, and
 * nothing is stored. The OpenAPI document says so: every request body's objects are closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  apiFixture,
  createNetwork,
  FLAVOR,
  IMAGE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  refusedUnchanged,
  violationsOf,
  type ApiFixture,
} from './testing/api.ts';

describe('strict request bodies', () => {
  let f: ApiFixture;
  let network = '';
  let server = '';
  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a);
    const created = await f.api.inject({
      method: 'POST',
      url: '/api/v2/servers',
      headers: { authorization: `Bearer ${f.tokens.a}` },
      payload: { metadata: { name: 's' }, spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE } },
    });
    assert.equal(created.statusCode, 201, created.body);
    server = created.json<{ metadata: { id: string } }>().metadata.id;
  });
  after(() => f.close());

  /** Refused with 400, naming each of `fields` as not allowed, and nothing stored. */
  const refused = (method: 'POST' | 'PUT', url: string, payload: object, fields: string[]) =>
    refusedUnchanged(
      f,
      method,
      url,
      payload,
      400,
      fields.map((field) => `${field}:additionalProperties`),
    );

  const networkSpec = { organizationId: ORG_A, projectId: PROJECT_A, regionId: REGION_ID, prefix: '10.0.0.0/24' };
  const v1 = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;

  it('names every unknown field at the top level, in metadata and in a v2 spec', async () => {
    await refused(
      'POST',
      '/api/v2/networks',
      {
        metadata: { name: 'n', id: 'mine', organizationId: 'org-b' },
        spec: { ...networkSpec, dnsNameserver: ['8.8.8.8'] },
        status: {},
      },
      ['metadata.id', 'metadata.organizationId', 'spec.dnsNameserver', 'status'],
    );
    await refused(
      'POST',
      '/api/v2/servers',
      { metadata: { name: 'v' }, spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE, flavour: 'x' } },
      ['spec.flavour'],
    );
    await refused(
      'PUT',
      `/api/v2/servers/${server}`,
      { metadata: { name: 's', provisioningStatus: 'provisioned' }, spec: { flavorId: FLAVOR, imageId: IMAGE } },
      ['metadata.provisioningStatus'],
    );
  });

  it('in a v1 spec (an identity) and in the snapshot route', async () => {
    await refused('POST', `${v1}/identities`, { metadata: { name: 'i' }, spec: { regionId: REGION_ID, x: 1 } }, [
      'spec.x',
    ]);
    const response = await f.api.inject({
      method: 'POST',
      url: `/api/v2/servers/${server}/snapshot`,
      headers: { authorization: `Bearer ${f.tokens.a}` },
      payload: { metadata: { name: 'snap' }, spec: { imageId: IMAGE } },
    });
    assert.equal(response.statusCode, 400, response.body);
    assert.ok(violationsOf(response.json()).includes('spec.imageId:additionalProperties'));
  });

  it('the OpenAPI document closes every object of every request body', async () => {
    const document = (await f.api.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
    }>();
    const open: string[] = [];
    const walk = (schema: unknown, where: string): void => {
      if (typeof schema !== 'object' || schema === null) return;
      const node = schema as Record<string, unknown>;
      if (node['type'] === 'object' && node['properties'] !== undefined && node['additionalProperties'] !== false) {
        open.push(where);
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && typeof value === 'object' && value !== null) {
          for (const [name, property] of Object.entries(value)) walk(property, `${where}.${name}`);
        } else if (Array.isArray(value)) {
          value.forEach((v, i) => {
            walk(v, `${where}.${key}[${String(i)}]`);
          });
        } else if (key === 'items') walk(value, `${where}[]`);
      }
    };
    let bodies = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content['application/json']?.schema;
        if (schema === undefined) continue;
        bodies++;
        walk(schema, `${method.toUpperCase()} ${path}`);
      }
    }
    assert.ok(bodies >= 15, `${String(bodies)} request bodies`);
    assert.deepEqual(open, []);
  });
});

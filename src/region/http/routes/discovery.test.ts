import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../util/clock.ts';
import { openEmbeddedStore } from '../../../kube/embedded/store.ts';
import { buildApi } from '../app.ts';
import { problems } from '../problem.ts';
import { apiFixture, call, type ApiFixture } from '../testing/api.ts';
import { DEVELOPER_VERSION, PROTECTED_RESOURCE_PATH, SERVICE_NAME } from './discovery.ts';

describe('discovery', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture();
  });
  after(() => f.close());

  it('/api/version names the service and its build (0.0.0 for a developer build), behind a token', async () => {
    const { status, body } = await call(f, f.tokens.a, 'GET', '/api/version');
    assert.equal(status, 200);
    assert.deepEqual(body, { name: SERVICE_NAME, version: DEVELOPER_VERSION });
    assert.equal((await f.api.inject({ method: 'GET', url: '/api/version' })).statusCode, 401);
  });

  it('serves RFC 9728 metadata without a token: this resource, header bearer tokens, no issuer configured', async () => {
    const response = await f.api.inject({ method: 'GET', url: PROTECTED_RESOURCE_PATH });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      resource: 'http://localhost',
      authorization_servers: [],
      scopes_supported: ['openid', 'email', 'profile'],
      bearer_methods_supported: ['header'],
    });
  });

  it('no request header reaches the challenge or the (publicly cached) metadata: Host and X-Forwarded-* are ignored', async () => {
    const headers = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };
    const metadata = await f.api.inject({ method: 'GET', url: PROTECTED_RESOURCE_PATH, headers });
    assert.equal(metadata.json<{ resource: string }>().resource, 'http://localhost');
    const refused = await f.api.inject({ method: 'GET', url: '/api/version', headers });
    assert.equal(refused.statusCode, 401);
    assert.doesNotMatch(refused.headers['www-authenticate'] as string, /evil/);
    assert.doesNotMatch(refused.body, /evil/);
  });

  it('unconfigured, a listening API names the address it is bound to, whatever Host a client sends', async () => {
    const own = await apiFixture();
    try {
      await own.api.listen({ host: '127.0.0.1', port: 0 });
      const { port } = own.api.server.address() as { port: number };
      const response = await fetch(`http://127.0.0.1:${String(port)}${PROTECTED_RESOURCE_PATH}`, {
        headers: { 'x-forwarded-host': 'evil.example' },
      });
      assert.equal(((await response.json()) as { resource: string }).resource, `http://127.0.0.1:${String(port)}`);
    } finally {
      await own.close();
    }
  });

  it('names the configured issuer and public URL, and a 401 points at the metadata', async () => {
    const clock = new ManualClock();
    const store = openEmbeddedStore(':memory:', { clock, garbageCollection: false });
    const api = await buildApi({
      client: store,
      namespace: 'ns',
      clock,
      newID: () => 'id',
      authenticate: (authorization) =>
        authorization === 'Bearer good'
          ? Promise.resolve({ subject: 'u', organizationIDs: ['o'] })
          : Promise.reject(problems.unauthorized()),
      capabilities: { controllers: { servers: false, loadBalancers: false, volumes: false } },
      service: { version: 'v1.2.3' },
      protectedResource: { issuer: 'https://identity.example.com', resource: 'https://region.example.com' },
    });
    try {
      const metadata = (await api.inject({ method: 'GET', url: PROTECTED_RESOURCE_PATH })).json<{
        resource: string;
        authorization_servers: string[];
      }>();
      assert.equal(metadata.resource, 'https://region.example.com');
      assert.deepEqual(metadata.authorization_servers, ['https://identity.example.com']);
      const refused = await api.inject({ method: 'GET', url: '/api/version' });
      assert.equal(refused.statusCode, 401);
      assert.equal(
        refused.headers['www-authenticate'],
        `Bearer resource_metadata="https://region.example.com${PROTECTED_RESOURCE_PATH}"`,
      );
      const version = await api.inject({
        method: 'GET',
        url: '/api/version',
        headers: { authorization: 'Bearer good' },
      });
      assert.deepEqual(version.json(), { name: SERVICE_NAME, version: 'v1.2.3' });
    } finally {
      await api.close();
      await store.close();
    }
  });
});

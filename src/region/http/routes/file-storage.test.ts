import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiFixture, call, type ApiFixture } from '../testing/api.ts';
import { FILE_STORAGE_DETAIL } from './file-storage.ts';

describe('file storage (served upstream by a separate storage provisioner)', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture();
  });
  after(() => f.close());

  const id = '00000000-0000-4000-8000-0000000000f5';
  const routes = [
    ['GET', '/api/v2/filestorage'],
    ['POST', '/api/v2/filestorage'],
    ['GET', `/api/v2/filestorage/${id}`],
    ['PUT', `/api/v2/filestorage/${id}`],
    ['DELETE', `/api/v2/filestorage/${id}`],
    ['GET', '/api/v2/filestorageclasses'],
  ] as const;

  it('answers every upstream file storage route 501 with a problem saying where it lives', async () => {
    for (const [method, url] of routes) {
      const body = method === 'POST' || method === 'PUT' ? { metadata: { name: 'fs' }, spec: {} } : undefined;
      const response = await call<{ detail: string; error: string }>(f, f.tokens.a, method, url, body);
      assert.equal(response.status, 501, `${method} ${url}`);
      assert.equal(response.body.detail, FILE_STORAGE_DETAIL);
      assert.equal(response.body.error, 'server_error');
    }
  });

  it('still asks for a token first', async () => {
    for (const [method, url] of routes) {
      assert.equal((await f.api.inject({ method, url })).statusCode, 401, `${method} ${url}`);
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Emulator } from './emulator.ts';
import { isObject } from './json.ts';

describe('KV v2 secrets endpoint', () => {
  let emulator: Emulator;
  before(async () => {
    emulator = await Emulator.start({ config: { kvToken: 't0ken' } });
  });
  after(() => emulator.close());

  const call = async (method: string, path: string, body?: unknown, token = 't0ken') => {
    const response = await fetch(`${emulator.url}/v1/${path}`, {
      method,
      headers: { 'x-vault-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? undefined : JSON.parse(text)) as Record<string, unknown> | undefined,
    };
  };
  const data = (r: { body: Record<string, unknown> | undefined }) =>
    r.body?.data as Record<string, unknown> | undefined;

  it('ESO push: metadata, then data; read back the latest version; versions count up', async () => {
    const path = 'kv-v2/data/openstack/keystone/ns/p/service-accounts/credentials';
    assert.equal((await call('GET', path)).status, 404);
    const meta = { custom_metadata: { 'managed-by': 'external-secrets' } };
    assert.equal(
      (await call('POST', 'kv-v2/metadata/openstack/keystone/ns/p/service-accounts/credentials', meta)).status,
      204,
    );
    assert.equal(data(await call('POST', path, { data: { password: 'a' } }))?.version, 1);
    assert.equal(data(await call('PUT', path, { data: { password: 'b' }, options: { cas: 1 } }))?.version, 2);
    assert.equal((await call('PUT', path, { data: { password: 'c' }, options: { cas: 1 } })).status, 400);
    const read = data(await call('GET', path));
    assert.ok(read);
    assert.deepEqual(read.data, { password: 'b' });
    const metadata = read.metadata;
    assert.ok(isObject(metadata));
    assert.deepEqual(metadata.custom_metadata, { 'managed-by': 'external-secrets' });
    assert.deepEqual(data(await call('GET', `${path}?version=1`))?.data, { password: 'a' });
  });

  it('list with ?list=true, delete data (soft) then metadata (gone)', async () => {
    await call('POST', 'kv-v2/data/a/x', { data: { k: '1' } });
    await call('POST', 'kv-v2/data/a/b/y', { data: { k: '2' } });
    assert.deepEqual(data(await call('GET', 'kv-v2/metadata/a?list=true'))?.keys, ['b/', 'x']);
    assert.equal((await call('DELETE', 'kv-v2/data/a/x')).status, 204);
    assert.equal((await call('GET', 'kv-v2/data/a/x')).status, 404);
    assert.equal(data(await call('GET', 'kv-v2/metadata/a/x'))?.current_version, 1);
    assert.equal((await call('DELETE', 'kv-v2/metadata/a/x')).status, 204);
    assert.equal((await call('GET', 'kv-v2/metadata/a/x')).status, 404);
  });

  it('a wrong token is 403 permission denied', async () => {
    const refused = await call('GET', 'kv-v2/data/a/b/y', undefined, 'nope');
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, { errors: ['permission denied'] });
  });
});

/** The KV v2 client and ESO's push/delete rules against the emulator's KV endpoint, over HTTP. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../../emulator/testing/cloud.ts';
import { KvClient, KvHttpError, KvTransportError } from './kv.ts';
import { deleteRemote, NotManagedError, pushRemote } from './push.ts';

describe('KV v2 client and push rules (emulator)', () => {
  let cloud: CloudFixture;
  let kv: KvClient;
  before(async () => {
    cloud = await cloudFixture({ config: { kvToken: 'tok' } });
    kv = new KvClient({ server: cloud.emulator.url, mount: 'kv-v2', token: 'tok' });
  });
  after(() => cloud.close());

  it('reads an absent path as undefined; writes metadata and data; reads them back', async () => {
    assert.equal(await kv.readData('a/absent'), undefined);
    assert.equal(await kv.readMetadata('a/absent'), undefined);
    await kv.writeMetadata('a/one', { 'managed-by': 'external-secrets' });
    await kv.writeData('a/one', { k: 'v' });
    await kv.writeData('a/one', { k: 'w' }, 1);
    assert.deepEqual(await kv.readData('a/one'), { k: 'w' });
    assert.deepEqual(await kv.readMetadata('a/one'), {
      customMetadata: { 'managed-by': 'external-secrets' },
      currentVersion: 2,
    });
  });

  it('errors are typed: HTTP status with Vault errors, and transport failures', async () => {
    const wrong = new KvClient({ server: cloud.emulator.url, mount: 'kv-v2', token: 'nope' });
    await assert.rejects(wrong.readData('a/one'), (e: unknown) => {
      assert.ok(e instanceof KvHttpError);
      assert.equal(e.status, 403);
      assert.deepEqual(e.errors, ['permission denied']);
      return true;
    });
    await assert.rejects(
      kv.writeData('a/one', { k: 'x' }, 7),
      (e: unknown) => e instanceof KvHttpError && e.status === 400,
    );
    const dead = new KvClient({ server: 'http://127.0.0.1:9', mount: 'kv-v2', token: 'tok' });
    await assert.rejects(dead.readData('a/one'), KvTransportError);
  });

  it('push: managed-by metadata, then data; an equal value is not written again', async () => {
    assert.equal(await pushRemote(kv, 'p/creds', { a: '1' }, { merge: false, ifNotExists: false }), 'written');
    assert.equal(await pushRemote(kv, 'p/creds', { a: '1' }, { merge: false, ifNotExists: false }), 'unchanged');
    assert.equal((await kv.readMetadata('p/creds'))?.currentVersion, 1);
    assert.equal(await pushRemote(kv, 'p/creds', { b: '2' }, { merge: true, ifNotExists: false }), 'written');
    assert.deepEqual(await kv.readData('p/creds'), { a: '1', b: '2' });
    assert.equal(await pushRemote(kv, 'p/creds', { c: '3' }, { merge: false, ifNotExists: true }), 'skipped-exists');
    assert.deepEqual((await kv.readMetadata('p/creds'))?.customMetadata, { 'managed-by': 'external-secrets' });
  });

  it('a path not managed by external-secrets is refused on push and left alone on delete', async () => {
    await kv.writeData('foreign/x', { mine: 'yes' });
    await assert.rejects(
      pushRemote(kv, 'foreign/x', { a: '1' }, { merge: false, ifNotExists: false }),
      (e: unknown) => e instanceof NotManagedError && e.message === 'secret not managed by external-secrets',
    );
    assert.equal(await deleteRemote(kv, 'foreign/x'), 'not-managed');
    assert.deepEqual(await kv.readData('foreign/x'), { mine: 'yes' });
  });

  it('delete removes data and metadata; a property delete keeps the rest', async () => {
    await pushRemote(kv, 'd/x', { a: '1', b: '2' }, { merge: false, ifNotExists: false });
    assert.equal(await deleteRemote(kv, 'd/x', 'a'), 'deleted');
    assert.deepEqual(await kv.readData('d/x'), { b: '2' });
    assert.equal(await deleteRemote(kv, 'd/x'), 'deleted');
    assert.equal(await kv.readMetadata('d/x'), undefined);
    assert.equal(await deleteRemote(kv, 'd/x'), 'absent');
  });
});

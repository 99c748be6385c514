import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createVolume, getVolume, listAttachments, type BlockStorageClient } from '../openstack/blockstorage.ts';
import { Cinder } from './cinder.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Cinder emulation and its controls', () => {
  let cloud: CloudFixture;
  let cinder: BlockStorageClient;

  before(async () => {
    cloud = await cloudFixture();
    cinder = (await cloud.projectSession('tenant', ['member'])).client('block-storage');
  });
  after(() => cloud.close());

  const settle = () => {
    cloud.emulator.control.advance(1000);
  };

  it('a volume is creating until cinder.create passes, then available', async () => {
    const v = await createVolume(cinder, { size: 1, name: 'a' });
    assert.equal(v.status, 'creating');
    assert.equal((await getVolume(cinder, v.id)).status, 'creating');
    settle();
    assert.equal((await getVolume(cinder, v.id)).status, 'available');
  });

  it('control: put a volume in error (POST /_emulator/cinder/volumes/{id}/error)', async () => {
    const v = await createVolume(cinder, { size: 1, name: 'b' });
    settle();
    assert.equal(await cloud.control('POST', `/cinder/volumes/${v.id}/error`, {}), 204);
    assert.equal((await getVolume(cinder, v.id)).status, 'error');
    assert.equal(await cloud.control('POST', '/cinder/volumes/nope/error', {}), 404);
  });

  it('control: the next create fails (POST /_emulator/cinder/fail-next), and only the next', async () => {
    assert.equal(await cloud.control('POST', '/cinder/fail-next', {}), 204);
    const failed = await createVolume(cinder, { size: 1, name: 'c' });
    const fine = await createVolume(cinder, { size: 1, name: 'd' });
    settle();
    assert.equal((await getVolume(cinder, failed.id)).status, 'error');
    assert.equal((await getVolume(cinder, fine.id)).status, 'available');
  });

  it('an error control cancels a create still under way', async () => {
    const v = await createVolume(cinder, { size: 1, name: 'e' });
    cloud.emulator.service(Cinder).putInError(v.id);
    settle();
    assert.equal((await getVolume(cinder, v.id)).status, 'error');
  });

  it('the Nova lookup attaches: attaching, then in-use with the attachment record; detach returns it', async () => {
    const v = await createVolume(cinder, { size: 1, name: 'f' });
    settle();
    const service = cloud.emulator.service(Cinder);
    service.attach(v.id, 'server-1', 'att-1', '/dev/vdb');
    assert.equal((await getVolume(cinder, v.id)).status, 'attaching');
    settle();
    const inUse = await getVolume(cinder, v.id);
    assert.equal(inUse.status, 'in-use');
    assert.deepEqual(
      inUse.attachments.map((a) => [a.attachment_id, a.server_id, a.device]),
      [['att-1', 'server-1', '/dev/vdb']],
    );
    assert.deepEqual(
      (await listAttachments(cinder, { volumeID: v.id })).map((a) => a.status),
      ['attached'],
    );
    service.detach(v.id, 'server-1');
    settle();
    assert.equal((await getVolume(cinder, v.id)).status, 'available');
  });
});

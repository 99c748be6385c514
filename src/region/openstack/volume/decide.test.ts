/** The volume and attachment rows, exhaustively over the statuses Cinder has and a few it might grow. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { VolumeAttachment } from '../../../openstack/blockstorage.ts';
import { decideAttach, decideCreate, decideDelete, decideDetach } from './decide.ts';

const STATUSES = [
  'creating',
  'available',
  'reserved',
  'attaching',
  'detaching',
  'in-use',
  'maintenance',
  'deleting',
  'awaiting-transfer',
  'error',
  'error_deleting',
  'backing-up',
  'restoring-backup',
  'error_backing-up',
  'error_restoring',
  'error_extending',
  'downloading',
  'uploading',
  'retyping',
  'extending',
  'some-future-state',
];

const on = (server: string): VolumeAttachment => ({
  attachment_id: `att-${server}`,
  server_id: server,
  device: '/dev/vdc',
  host_name: null,
  volume_id: 'v',
});

describe('create rows', () => {
  it('C1 absent creates; C2 available or in-use is done; C3 error… is terminal; C4 anything else yields', () => {
    assert.equal(decideCreate(undefined).row, 'C1');
    for (const status of STATUSES) {
      const expected = ['available', 'in-use'].includes(status) ? 'C2' : status.startsWith('error') ? 'C3' : 'C4';
      assert.equal(decideCreate({ status }).row, expected, status);
    }
  });
});

describe('delete rows', () => {
  it('absent is done; deleting yields; attached conflicts; deletable deletes; error_deleting is inconsistent', () => {
    assert.equal(decideDelete(undefined).row, 'D1');
    const deletable = ['available', 'error', 'error_restoring', 'error_extending'];
    for (const status of STATUSES) {
      const expected =
        status === 'deleting'
          ? 'D2'
          : status === 'in-use'
            ? 'D3'
            : deletable.includes(status)
              ? 'D4'
              : status === 'error_deleting'
                ? 'D5'
                : 'D6';
      assert.equal(decideDelete({ status, attachments: [] }).row, expected, status);
    }
    assert.equal(decideDelete({ status: 'available', attachments: [on('s')] }).row, 'D3', 'an attachment row');
  });
});

describe('attach rows', () => {
  it('A1 attached here wins whatever the status, with its device', () => {
    for (const status of STATUSES) {
      assert.deepEqual(decideAttach({ status, attachments: [on('other'), on('me')] }, 'me'), {
        row: 'A1',
        action: 'done',
        device: '/dev/vdc',
      });
    }
    assert.deepEqual(decideAttach({ status: 'in-use', attachments: [{ ...on('me'), device: '' }] }, 'me').row, 'A1');
  });

  it('A0: a server Nova would not attach to now (building, or a task holds it) waits; attached here is still A1', () => {
    const available = { status: 'available', attachments: [] };
    for (const server of [
      { status: 'BUILD' },
      { status: 'ACTIVE', 'OS-EXT-STS:task_state': 'image_snapshot' },
      { status: 'REBUILD', 'OS-EXT-STS:task_state': 'rebuilding' },
      { status: 'ERROR' },
    ]) {
      assert.deepEqual(decideAttach(available, 'me', server), { row: 'A0', action: 'yield' }, JSON.stringify(server));
    }
    for (const status of ['ACTIVE', 'SHUTOFF', 'PAUSED']) {
      assert.equal(decideAttach(available, 'me', { status, 'OS-EXT-STS:task_state': null }).row, 'A4', status);
    }
    assert.equal(decideAttach({ status: 'in-use', attachments: [on('me')] }, 'me', { status: 'BUILD' }).row, 'A1');
  });

  it('A2 elsewhere conflicts; then A3 error…, A4 available, A5 anything else', () => {
    for (const status of STATUSES) {
      assert.equal(decideAttach({ status, attachments: [on('other')] }, 'me').row, 'A2', status);
      const expected = status.startsWith('error') ? 'A3' : status === 'available' ? 'A4' : 'A5';
      assert.equal(decideAttach({ status, attachments: [] }, 'me').row, expected, status);
    }
  });
});

describe('detach rows', () => {
  it('X1 not attached here is done (attached elsewhere included); X2 detaching yields; X3 detaches', () => {
    for (const status of STATUSES) {
      assert.equal(decideDetach({ status, attachments: [] }, 'me').row, 'X1', status);
      assert.equal(decideDetach({ status, attachments: [on('other')] }, 'me').row, 'X1', status);
      const expected = status === 'detaching' ? 'X2' : 'X3';
      assert.equal(decideDetach({ status, attachments: [on('me')] }, 'me').row, expected, status);
    }
  });
});

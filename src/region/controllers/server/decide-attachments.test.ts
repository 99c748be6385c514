import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Outcome } from '../../provider/outcome.ts';
import {
  attachmentMessages,
  attachmentsVerdict,
  attachRow,
  decideClaim,
  detachingRow,
  detachments,
  erroredRow,
  uniqueByID,
  waitingRow,
  type VolumeView,
} from './decide-attachments.ts';

const view = (over: Partial<VolumeView> = {}): VolumeView => ({
  id: 'v-1',
  deleting: false,
  available: true,
  claimedBy: undefined,
  ...over,
});

describe('decideClaim: one spec.volumes entry against its stored Volume', () => {
  it('V1: no such Volume parks with its message', () => {
    assert.deepEqual(decideClaim(undefined, 's-1'), {
      row: 'V1',
      action: 'park',
      message: attachmentMessages.volumeNotFound,
    });
  });

  it('V2: a Volume another server claims parks, whatever else holds', () => {
    for (const other of [view({ claimedBy: 's-2' }), view({ claimedBy: 's-2', available: false, deleting: true })]) {
      assert.deepEqual(decideClaim(other, 's-1'), {
        row: 'V2',
        action: 'park',
        message: attachmentMessages.claimedElsewhere,
      });
    }
  });

  it('V3: an unclaimed Volume being deleted parks; one this server holds stays attached (V6)', () => {
    assert.equal(decideClaim(view({ deleting: true }), 's-1').row, 'V3');
    assert.equal(decideClaim(view({ deleting: true, claimedBy: 's-1' }), 's-1').row, 'V6');
  });

  it('V4: a Volume not Available yet waits, claimed or not', () => {
    assert.equal(decideClaim(view({ available: false }), 's-1').action, 'wait');
    assert.equal(decideClaim(view({ available: false, claimedBy: 's-1' }), 's-1').row, 'V4');
  });

  it('V5 claims an unclaimed Available Volume; V6 attaches one this server claims', () => {
    assert.deepEqual(decideClaim(view(), 's-1'), { row: 'V5', action: 'claim' });
    assert.deepEqual(decideClaim(view({ claimedBy: 's-1' }), 's-1'), { row: 'V6', action: 'attach' });
  });
});

describe('detachments', () => {
  it('is what the server claims or reported that the spec no longer names, each once, reported first', () => {
    const reported = [waitingRow('a', 'm'), attachRow('b', Outcome.done({})), detachingRow('c')];
    assert.deepEqual(detachments(['b'], ['d', 'a', 'b'], reported), ['a', 'c', 'd']);
  });

  it('is empty when the spec names everything held', () => {
    assert.deepEqual(detachments(['a', 'b'], ['a'], [attachRow('b', Outcome.done({}))]), []);
  });
});

describe('rows and the verdict', () => {
  it('maps a provider outcome to its row: done with the device, yield attaching, park or terminal errored', () => {
    assert.deepEqual(attachRow('v', Outcome.done({ device: '/dev/vdc' })), {
      id: 'v',
      provisioningStatus: 'Provisioned',
      device: '/dev/vdc',
      message: attachmentMessages.attached,
    });
    assert.equal(attachRow('v', Outcome.done({})).device, undefined);
    assert.equal(attachRow('v', Outcome.yield('A4/accepted')).provisioningStatus, 'Provisioning');
    assert.deepEqual(attachRow('v', Outcome.terminal('Errored', 'provider volume entered an error state')), {
      id: 'v',
      provisioningStatus: 'Errored',
      message: 'provider volume entered an error state',
    });
  });

  it('is done only when every row is attached, parks on any errored row, yields otherwise', () => {
    const attached = attachRow('a', Outcome.done({}));
    assert.equal(attachmentsVerdict([]), 'done');
    assert.equal(attachmentsVerdict([attached]), 'done');
    assert.equal(attachmentsVerdict([attached, detachingRow('b')]), 'yield');
    assert.equal(attachmentsVerdict([attached, waitingRow('b', 'm')]), 'yield');
    assert.equal(attachmentsVerdict([detachingRow('b'), erroredRow('c', 'm')]), 'park');
  });

  it('keeps the first of a repeated id', () => {
    assert.deepEqual(uniqueByID([{ id: 'a', device: '/dev/vdb' }, { id: 'b' }, { id: 'a' }]), [
      { id: 'a', device: '/dev/vdb' },
      { id: 'b' },
    ]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  hiddenServerFields,
  openstackServerImageID,
  sameImage,
  serverLaunched,
  serverRebuildInFlight,
  serverTaskActive,
  type NovaServerState,
} from './nova-server.ts';

const ID = '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b';

describe('openstackServerImageID', () => {
  it('reads a Glance id, lower-cased', () => {
    assert.equal(openstackServerImageID({ image: { id: ID, links: [] } }), ID);
    assert.equal(openstackServerImageID({ image: { id: ID.toUpperCase() } }), ID);
  });

  it('is unreadable when absent, empty, volume-booted or not a UUID', () => {
    for (const image of [undefined, null, '', 'x', {}, { id: '' }, { id: null }, { id: 7 }, { id: `${ID}x` }]) {
      assert.equal(openstackServerImageID({ image }), undefined, JSON.stringify(image));
    }
    assert.equal(openstackServerImageID({}), undefined);
  });

  it('sameImage compares a spec id with a read ref case-insensitively', () => {
    assert.ok(sameImage(ID.toUpperCase(), ID));
    assert.ok(!sameImage('f0e1d2c3-b4a5-4968-8776-655443322110', ID));
  });
});

describe('rebuild in flight versus any task', () => {
  const at = (status: string, task?: string | null): NovaServerState =>
    task === undefined ? { status } : { status, 'OS-EXT-STS:task_state': task };

  it('the rebuild family by prefix, and the REBUILD status', () => {
    for (const task of ['rebuilding', 'rebuild_block_device_mapping', 'rebuild_spawning', 'rebuild_next']) {
      assert.ok(serverRebuildInFlight(at('ACTIVE', task)), task);
      assert.ok(serverTaskActive(at('ACTIVE', task)), task);
    }
    assert.ok(serverRebuildInFlight(at('REBUILD', null)));
    assert.ok(serverTaskActive(at('REBUILD', null)));
  });

  it('an unrelated task is active but not a rebuild', () => {
    for (const task of ['rebooting', 'powering-off', 'deleting', 'image_snapshot']) {
      assert.ok(!serverRebuildInFlight(at('ACTIVE', task)), task);
      assert.ok(serverTaskActive(at('ACTIVE', task)), task);
    }
  });

  it('at rest: null, empty or hidden', () => {
    for (const task of [null, '', undefined]) {
      assert.ok(!serverTaskActive(at('ACTIVE', task)));
      assert.ok(!serverRebuildInFlight(at('ERROR', task)));
    }
  });
});

describe('serverLaunched and hidden fields', () => {
  it('launched only with a non-empty launched_at', () => {
    assert.ok(serverLaunched({ 'OS-SRV-USG:launched_at': '2026-11-30T12:00:00.000000' }));
    for (const at of [null, '']) assert.ok(!serverLaunched({ 'OS-SRV-USG:launched_at': at }));
    assert.ok(!serverLaunched({}));
  });

  it('names the policy-gated fields that are absent, not those that are null', () => {
    assert.deepEqual(hiddenServerFields({ status: 'ACTIVE' }), ['OS-EXT-STS:task_state', 'OS-SRV-USG:launched_at']);
    assert.deepEqual(
      hiddenServerFields({ status: 'ACTIVE', 'OS-EXT-STS:task_state': null, 'OS-SRV-USG:launched_at': null }),
      [],
    );
  });
});

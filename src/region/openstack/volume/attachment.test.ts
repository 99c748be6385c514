/**
 * Attach and detach on the emulator, row by row as docs/spec/openstack-provider.md §Existing-volume server attachments
 * lists them (deliberately asymmetric).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Cinder } from '../../../emulator/cinder.ts';
import * as cinder from '../../../openstack/blockstorage.ts';
import * as nova from '../../../openstack/compute.ts';
import { ResourceConflictError, ResourceNotFoundError } from '../../provider/errors.ts';
import type { VolumeInput } from '../../provider/inputs.ts';
import { toUserMessage } from '../../provider/messages.ts';
import { Outcome } from '../../provider/outcome.ts';
import { volumeName } from '../names.ts';
import { attachVolume, detachVolume, type AttachServer } from './attachment.ts';
import { VOLUME_ERRORED_MESSAGE } from './decide.ts';
import { volumeFixture, type VolumeFixture } from '../testing/volume.ts';
import { createVolume } from './lifecycle.ts';
import type { UserIdentity } from '../realised.ts';

const ATTACHMENTS = '/compute/v2.1/servers/{server_id}/os-volume_attachments';

let vt: VolumeFixture;
let identity: UserIdentity;
let serial = 0;

before(async () => {
  vt = await volumeFixture();
  identity = await vt.workload('attach-tests');
});
beforeEach(() => vt.control('DELETE', '/faults'));
after(() => vt.close());

const volumeInput = (): VolumeInput => ({
  id: `av${String(++serial)}`,
  organizationID: 'org',
  projectID: 'proj',
  regionID: 'r1',
  networkID: 'net-1',
  volumeClassID: '__DEFAULT__',
  sizeGiB: 1,
  tags: [],
});

/** A created, available volume and its Cinder id. */
async function volume(): Promise<{ input: VolumeInput; id: string }> {
  const input = volumeInput();
  await createVolume(vt.deps(), identity, input);
  vt.settle();
  const found = await cinder.findVolumeByName(blockStorage(), volumeName(input.id));
  return { input, id: found?.id ?? assert.fail('volume made') };
}

/** A server the provider finds by its display name, and its Nova id. */
async function server(): Promise<{ input: AttachServer; id: string }> {
  const name = `srv-${String(++serial)}`;
  const id = `s${String(serial)}`;
  return { input: { id, name }, id: await vt.server(identity, name, id) };
}

const blockStorage = () => vt.clients.identity(identity.credentials).client('block-storage');
const compute = () => vt.clients.identity(identity.credentials).client('compute');
const fault = (method: string, status: number) =>
  vt.control('POST', '/faults', {
    route: ATTACHMENTS + (method === 'DELETE' ? '/{volume_id}' : ''),
    method,
    status,
    count: 1,
  });
const attachmentCalls = (start: number) =>
  vt
    .log()
    .slice(start)
    .filter((l) => l.includes('os-volume_attachments'));

describe('attach volume', () => {
  it('creates through Nova, yields, then succeeds from Cinder alone with the device and no Nova attachment read', async () => {
    const [v, s] = [await volume(), await server()];
    assert.deepEqual(await attachVolume(vt.deps(), identity, s.input, v.input), Outcome.yield('A4/accepted'));
    assert.deepEqual(await attachVolume(vt.deps(), identity, s.input, v.input), Outcome.yield('A5/attaching'));
    vt.settle();
    const start = vt.log().length;
    assert.deepEqual(await attachVolume(vt.deps(), identity, s.input, v.input), Outcome.done({ device: '/dev/vdb' }));
    assert.deepEqual(attachmentCalls(start), [], 'no Nova attachment call once Cinder reports it');
    assert.ok(
      vt
        .log()
        .slice(start)
        .every((l) => l.startsWith(`identity ${identity.projectID} `)),
    );
  });

  it('needs both: a missing server or volume is not found', async () => {
    const [v, s] = [await volume(), await server()];
    await assert.rejects(
      attachVolume(vt.deps(), identity, { id: 'x', name: 'no-such-server' }, v.input),
      ResourceNotFoundError,
    );
    await assert.rejects(attachVolume(vt.deps(), identity, s.input, volumeInput()), ResourceNotFoundError);
  });

  it('a volume attached to another server is a conflict (no multi-attach)', async () => {
    const [v, s, other] = [await volume(), await server(), await server()];
    await nova.attachVolume(compute(), other.id, { volumeId: v.id });
    vt.settle();
    await assert.rejects(attachVolume(vt.deps(), identity, s.input, v.input), ResourceConflictError);
  });

  it('an attach racing another attach: Nova answers 409, one read finds the attachment, success', async () => {
    const [v, s] = [await volume(), await server()];
    const clients = vt.hooked(async (method, _service, path) => {
      if (method !== 'POST' || !path.endsWith('os-volume_attachments')) return;
      // The competitor's identical attach lands between our Cinder read and our create.
      await nova.attachVolume(vt.userCompute(identity), s.id, { volumeId: v.id });
      await fault('POST', 409);
    });
    const start = vt.log().length;
    const outcome = await attachVolume(vt.deps(clients), identity, s.input, v.input);
    assert.deepEqual(outcome, Outcome.done({ device: '/dev/vdb' }));
    assert.deepEqual(
      attachmentCalls(start).map((l) => l.split(' ').slice(2, 3)[0]),
      ['POST', 'GET'],
      'the create, then exactly one attachment read',
    );
  });

  it('a 409 with no attachment behind it is a conflict', async () => {
    const [v, s] = [await volume(), await server()];
    await fault('POST', 409);
    await assert.rejects(attachVolume(vt.deps(), identity, s.input, v.input), ResourceConflictError);
  });

  it('converges on one attachment when a pass is cut off at each of its requests in turn', async () => {
    for (let n = 1; n <= 3; n++) {
      const [v, s] = [await volume(), await server()];
      vt.interrupt(n);
      await assert.rejects(attachVolume(vt.deps(), identity, s.input, v.input), `cut at request ${String(n)}`);
      let outcome = await attachVolume(vt.deps(), identity, s.input, v.input);
      for (let pass = 0; pass < 3 && outcome.kind === 'yield'; pass++) {
        vt.settle();
        outcome = await attachVolume(vt.deps(), identity, s.input, v.input);
      }
      assert.deepEqual(outcome, Outcome.done({ device: '/dev/vdb' }), `cut at request ${String(n)}`);
      const attachments = await cinder.listAttachments(blockStorage(), { volumeID: v.id });
      assert.equal(attachments.length, 1, `cut at request ${String(n)}: one attachment`);
    }
  });

  it('an errored volume is terminal with the fixed message', async () => {
    const [v, s] = [await volume(), await server()];
    vt.emulator.service(Cinder).putInError(v.id);
    const outcome = await attachVolume(vt.deps(), identity, s.input, v.input);
    assert.equal(outcome.kind, 'terminal');
    assert.equal(toUserMessage(outcome), VOLUME_ERRORED_MESSAGE);
  });
});

describe('detach volume', () => {
  async function attached() {
    const [v, s] = [await volume(), await server()];
    await attachVolume(vt.deps(), identity, s.input, v.input);
    vt.settle();
    return { v, s };
  }

  it('deletes through Nova only when Cinder reports the attachment here, yields while detaching, then done', async () => {
    const { v, s } = await attached();
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.yield('X3/accepted'));
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.yield('X2/detaching'));
    vt.settle();
    const start = vt.log().length;
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.ok());
    assert.deepEqual(attachmentCalls(start), []);
    assert.equal((await cinder.getVolume(blockStorage(), v.id)).status, 'available');
  });

  it('converges on detached when a detach pass is cut off at each of its requests in turn', async () => {
    for (let n = 1; n <= 3; n++) {
      const { v, s } = await attached();
      vt.interrupt(n);
      await assert.rejects(detachVolume(vt.deps(), identity, s.input, v.input), `cut at request ${String(n)}`);
      let outcome = await detachVolume(vt.deps(), identity, s.input, v.input);
      for (let pass = 0; pass < 3 && outcome.kind === 'yield'; pass++) {
        vt.settle();
        outcome = await detachVolume(vt.deps(), identity, s.input, v.input);
      }
      assert.deepEqual(outcome, Outcome.ok(), `cut at request ${String(n)}`);
      assert.equal((await cinder.getVolume(blockStorage(), v.id)).status, 'available');
    }
  });

  it('a volume attached only to another server is detached already: success, no Nova delete', async () => {
    const { v } = await attached();
    const s = await server();
    const start = vt.log().length;
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.ok());
    assert.deepEqual(attachmentCalls(start), []);
    assert.equal((await cinder.getVolume(blockStorage(), v.id)).status, 'in-use', 'the other attachment stays');
  });

  it('a missing server, volume or identity is success', async () => {
    const [v, s] = [await volume(), await server()];
    assert.deepEqual(await detachVolume(vt.deps(), identity, { id: 'x', name: 'gone' }, v.input), Outcome.ok());
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, volumeInput()), Outcome.ok());
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.ok(), 'never attached');
    const start = vt.requests();
    assert.deepEqual(await detachVolume(vt.deps(), undefined, s.input, v.input), Outcome.ok());
    assert.equal(vt.requests(), start, 'never realised: no request');
  });

  it('a Nova delete 404 is success; a 409 is a conflict', async () => {
    const { v, s } = await attached();
    await fault('DELETE', 404);
    assert.deepEqual(await detachVolume(vt.deps(), identity, s.input, v.input), Outcome.ok());
    await fault('DELETE', 409);
    await assert.rejects(detachVolume(vt.deps(), identity, s.input, v.input), ResourceConflictError);
  });
});

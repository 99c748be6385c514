/** Volume create and delete on the emulator: the specified rows, the principal of every request, interruption. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Cinder } from '../../../emulator/cinder.ts';
import * as cinder from '../../../openstack/blockstorage.ts';
import { ResourceConflictError, ResourceConsistencyError } from '../../provider/errors.ts';
import type { VolumeInput } from '../../provider/inputs.ts';
import { toOperatorLog, toUserMessage } from '../../provider/messages.ts';
import { Outcome } from '../../provider/outcome.ts';
import { volumeName } from '../names.ts';
import { VOLUME_ERRORED_MESSAGE } from './decide.ts';
import { volumeFixture, type VolumeFixture } from '../testing/volume.ts';
import { createVolume, deleteVolume } from './lifecycle.ts';
import type { UserIdentity } from '../realised.ts';

let vt: VolumeFixture;
let identity: UserIdentity;
let typeID: string;
let serial = 0;

before(async () => {
  vt = await volumeFixture();
  identity = await vt.workload('vol-tests');
  const { body } = await vt.admin.client('block-storage').request<{ volume_type: { id: string } }>({
    method: 'POST',
    path: '/types',
    body: { volume_type: { name: 'fast' } },
  });
  typeID = body.volume_type.id;
});
after(() => vt.close());

const input = (overrides: Partial<VolumeInput> = {}): VolumeInput => ({
  id: `v${String(++serial)}`,
  organizationID: 'org',
  projectID: 'proj',
  regionID: 'r1',
  networkID: 'net-1',
  volumeClassID: typeID,
  sizeGiB: 2,
  tags: [],
  ...overrides,
});
const admin = () => vt.admin.client('block-storage');
const cinderAs = () => vt.clients.identity(identity.credentials).client('block-storage');
const named = async (v: VolumeInput) =>
  (await cinder.listVolumes(cinderAs(), {})).filter((x) => x.name === volumeName(v.id));
const sinceLog = (start: number) => vt.log().slice(start);

describe('create volume', () => {
  it('submits once, yields while creating, then is done; every call is the identity user in its project', async () => {
    const v = input({
      tags: [
        { name: 'billing.example.com/cost-centre', value: 'cc-1' },
        { name: 'region.example.com/volume-id', value: 'spoofed' },
        { name: 'not namespaced', value: 'dropped' },
      ],
    });
    const start = vt.log().length;
    assert.deepEqual(await createVolume(vt.deps(), identity, v), Outcome.yield('C1/accepted'));
    assert.deepEqual(await createVolume(vt.deps(), identity, v), Outcome.yield('C4/creating'));
    vt.settle();
    assert.deepEqual(await createVolume(vt.deps(), identity, v), Outcome.ok());
    const log = sinceLog(start);
    assert.ok(
      log.every((line) => line.startsWith(`identity ${identity.projectID} `)),
      log.join('\n'),
    );
    assert.equal(log.filter((l) => l.includes(' POST ')).length, 1, 'one create');
    const [made, ...others] = await named(v);
    assert.ok(made);
    assert.deepEqual(others, []);
    assert.equal(made.size, 2);
    assert.equal(made.volume_type, 'fast', 'the VolumeClassID is the Cinder volume type');
    assert.equal(made.description, 'unikorn managed block storage volume');
    assert.deepEqual(made.metadata, {
      'billing:cost_centre': 'cc-1',
      'region:volume_id': v.id,
      'identity:organization_id': 'org',
      'identity:project_id': 'proj',
      'region:region_id': 'r1',
      'region:network_id': 'net-1',
      'region:identity_id': identity.identityID,
    });
    assert.equal(Object.keys(made.metadata).at(-1), 'region:identity_id', 'system keys written last');
  });

  it('an error state is terminal Errored with the fixed message; the Cinder detail stays operator-only', async () => {
    const v = input();
    vt.emulator.service(Cinder).failNextCreates(1);
    await createVolume(vt.deps(), identity, v);
    vt.settle();
    const outcome = await createVolume(vt.deps(), identity, v);
    assert.equal(outcome.kind, 'terminal');
    assert.equal(outcome.reason, 'Errored');
    assert.equal(toUserMessage(outcome), VOLUME_ERRORED_MESSAGE);
    const [made] = await named(v);
    assert.ok(!toUserMessage(outcome).includes(made?.id ?? '?'));
    assert.match(JSON.stringify(toOperatorLog(outcome)), new RegExp(`${made?.id ?? '?'} is in status error`));
  });

  it('an unrecognised state yields (never mistaken for convergence)', async () => {
    const v = input();
    await createVolume(vt.deps(), identity, v);
    vt.settle();
    const [made] = await named(v);
    await admin().request({
      method: 'POST',
      path: '/volumes/{id}/action',
      params: { id: made?.id ?? '' },
      body: { 'os-reset_status': { status: 'maintenance' } },
    });
    assert.deepEqual(await createVolume(vt.deps(), identity, v), Outcome.yield('C4/maintenance'));
  });

  it('adopts the volume a pass made when the pass is cut off at any request', async () => {
    for (let n = 1; n <= 2; n++) {
      const v = input();
      vt.interrupt(n);
      await assert.rejects(createVolume(vt.deps(), identity, v));
      for (let pass = 0; pass < 3 && (await createVolume(vt.deps(), identity, v)).kind !== 'done'; pass++) vt.settle();
      assert.equal((await named(v)).length, 1, `cut at request ${String(n)}: exactly one volume`);
    }
  });

  it('two volumes under one name are a consistency error, not a pick', async () => {
    const v = input();
    await cinder.createVolume(cinderAs(), { size: 1, name: volumeName(v.id) });
    await cinder.createVolume(cinderAs(), { size: 1, name: volumeName(v.id) });
    await assert.rejects(createVolume(vt.deps(), identity, v), ResourceConsistencyError);
  });
});

describe('delete volume', () => {
  it('deletes, yields while deleting, and is done once Cinder confirms absence', async () => {
    const v = input();
    await createVolume(vt.deps(), identity, v);
    vt.settle();
    assert.deepEqual(await deleteVolume(vt.deps(), identity, v), Outcome.yield('D4/accepted'));
    assert.deepEqual(await deleteVolume(vt.deps(), identity, v), Outcome.yield('D2/deleting'));
    vt.settle();
    assert.deepEqual(await deleteVolume(vt.deps(), identity, v), Outcome.ok());
    assert.deepEqual(await named(v), []);
  });

  it('converges on absence when a delete pass is cut off at each of its requests in turn', async () => {
    for (let n = 1; n <= 2; n++) {
      const v = input();
      await createVolume(vt.deps(), identity, v);
      vt.settle();
      vt.interrupt(n);
      await assert.rejects(deleteVolume(vt.deps(), identity, v));
      let outcome = await deleteVolume(vt.deps(), identity, v);
      for (let pass = 0; pass < 3 && outcome.kind === 'yield'; pass++) {
        vt.settle();
        outcome = await deleteVolume(vt.deps(), identity, v);
      }
      assert.deepEqual(outcome, Outcome.ok(), `cut at request ${String(n)}`);
      assert.deepEqual(await named(v), []);
    }
  });

  it('a missing volume is done; a never-realised identity is done without a request', async () => {
    assert.deepEqual(await deleteVolume(vt.deps(), identity, input()), Outcome.ok());
    const start = vt.requests();
    assert.deepEqual(await deleteVolume(vt.deps(), undefined, input()), Outcome.ok());
    assert.equal(vt.requests(), start);
  });

  it('an errored volume is deleted; error_deleting needs an operator; a still-creating one yields', async () => {
    const v = input();
    vt.emulator.service(Cinder).failNextCreates(1);
    await createVolume(vt.deps(), identity, v);
    assert.deepEqual(await deleteVolume(vt.deps(), identity, v), Outcome.yield('D6/creating'));
    vt.settle();
    assert.deepEqual(await deleteVolume(vt.deps(), identity, v), Outcome.yield('D4/accepted'));
    const w = input();
    await createVolume(vt.deps(), identity, w);
    vt.settle();
    const [made] = await named(w);
    vt.emulator.service(Cinder).putInError(made?.id ?? '', 'error_deleting');
    await assert.rejects(deleteVolume(vt.deps(), identity, w), ResourceConsistencyError);
  });

  it('an attached volume is a conflict (retried until its server lets go)', async () => {
    const v = input();
    await createVolume(vt.deps(), identity, v);
    vt.settle();
    const server = await vt.server(identity, `holder-${v.id}`);
    const [made] = await named(v);
    const compute = vt.clients.identity(identity.credentials).client('compute');
    await compute.request({
      method: 'POST',
      path: '/servers/{id}/os-volume_attachments',
      params: { id: server },
      body: { volumeAttachment: { volumeId: made?.id ?? '' } },
    });
    vt.settle();
    await assert.rejects(deleteVolume(vt.deps(), identity, v), ResourceConflictError);
  });
});

/**
 * Server.spec.volumes end to end on the emulator: the Server controller (and the Volume controller's deletion hold)
 * over the real provider. Volumes attach in order and read Provisioned with their devices; a volume one server holds
 * is refused for another (its row Errored, the server parked) until released; dropping a volume detaches it and
 * releases its claim; deleting a server detaches first.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Volume as CinderVolume } from '../../../openstack/blockstorage.ts';
import { serverType } from '../../apis/server.ts';
import { API_VERSION, labels } from '../../apis/shared.ts';
import { serverClaimFinalizer, volumeType, type Volume } from '../../apis/volume.ts';
import { volumeName } from '../../openstack/names.ts';
import { volumeProviderFor } from '../../openstack/volume/provider.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../testing/server.ts';
import { ATTACHMENT_PARKED_MESSAGE, attachmentMessages } from './decide-attachments.ts';

let s: ServerControllerFixture;
before(async () => {
  s = await serverControllerFixture();
});
after(async () => {
  await s.close();
});

const CTX = { signal: new AbortController().signal };

/** A Cinder volume made by the provider, and its Volume resource stored Available, as the Volume controller leaves it. */
async function volume(): Promise<string> {
  const id = randomUUID();
  const provider = volumeProviderFor(await s.context(), { kube: s.store });
  const { identity } = s;
  const input = { ...identity, id, networkID: s.networkID, volumeClassID: '__DEFAULT__', sizeGiB: 1, tags: [] };
  for (let i = 0; i < 10 && (await provider.createVolume(CTX, identity, input)).kind !== 'done'; i++) s.advance(1_000);
  const made = await s.store.create(volumeType, {
    apiVersion: API_VERSION,
    kind: volumeType.kind,
    metadata: {
      name: id,
      namespace: s.namespace,
      labels: {
        [labels.organization]: identity.organizationID,
        [labels.project]: identity.projectID,
        [labels.regionID]: identity.regionID,
        [labels.identityID]: identity.id,
      },
    },
    spec: { volumeClassID: '__DEFAULT__', size: '1Gi' },
  });
  const available = { type: 'Available', status: 'True', reason: 'Provisioned', message: 'm' } as const;
  const now = new Date(s.clock.now()).toISOString();
  await s.store.update(
    volumeType,
    { ...made, status: { conditions: [{ ...available, lastTransitionTime: now }] } },
    { subresource: 'status' },
  );
  return id;
}

const stored = (id: string): Promise<Volume> => s.store.get(volumeType, s.namespace, id);

/** The Cinder volume behind a Volume, as the admin lists it: its status and the servers it is attached to. */
async function cinder(id: string): Promise<{ status: string; servers: string[] }> {
  const { body } = await s.admin.client('block-storage').request<{ volumes: CinderVolume[] }>({
    method: 'GET',
    path: '/volumes/detail',
    query: { all_tenants: 1, name: volumeName(id) },
  });
  const [found] = body.volumes.filter((v) => v.name === volumeName(id));
  assert.ok(found, `cinder volume ${volumeName(id)}`);
  return { status: found.status, servers: found.attachments.map((a) => a.server_id) };
}

/** Ticks until the server's Available reason is `reason` (a few passes at most). */
async function until(input: ServerInput, reason: string): Promise<void> {
  for (let i = 0; i < 8 && (await s.available(input))?.reason !== reason; i++) await s.tick();
  assert.equal((await s.available(input))?.reason, reason);
}

describe('Server controller: spec.volumes', () => {
  it('attaches the volumes in order, claims them, and reports each in status.volumes', async () => {
    const [first, second] = [await volume(), await volume()];
    const input = s.input();
    await s.converged(input);
    await s.editSpec(input, { volumes: [{ id: first }, { id: second }] });
    await until(input, 'Provisioned');

    const rows = (await s.get(input)).status?.volumes;
    assert.deepEqual(
      rows?.map((r) => [r.id, r.provisioningStatus, r.device]),
      [
        [first, 'Provisioned', '/dev/vdb'],
        [second, 'Provisioned', '/dev/vdc'],
      ],
    );
    const nova = (await s.nova(input)).id;
    assert.deepEqual(await cinder(first), { status: 'in-use', servers: [nova] });
    assert.deepEqual(await cinder(second), { status: 'in-use', servers: [nova] });
    const claimed = await stored(first);
    assert.deepEqual(claimed.spec.claimRef, { kind: 'Server', id: input.id });
    assert.ok(claimed.metadata.finalizers?.includes(serverClaimFinalizer(input.id)));
  });

  it('refuses a volume another server holds (row Errored, server parked) until that server lets it go', async () => {
    const shared = await volume();
    const holder = s.input();
    const other = s.input();
    await s.converged(holder);
    await s.editSpec(holder, { volumes: [{ id: shared }] });
    await until(holder, 'Provisioned');

    await s.converged(other);
    await s.editSpec(other, { volumes: [{ id: shared, device: '/dev/vdz' }] });
    await until(other, 'Errored');
    const parked = await s.available(other);
    assert.equal(parked?.message, ATTACHMENT_PARKED_MESSAGE);
    assert.deepEqual((await s.get(other)).status?.volumes, [
      { id: shared, provisioningStatus: 'Errored', message: attachmentMessages.claimedElsewhere },
    ]);
    assert.deepEqual((await cinder(shared)).servers, [(await s.nova(holder)).id], 'still on the holder only');

    // The holder drops it: detached, the claim released, and that release wakes the parked server.
    await s.editSpec(holder, { volumes: [] });
    await until(holder, 'Provisioned');
    await until(other, 'Provisioned');
    assert.equal((await s.get(holder)).status?.volumes, undefined, 'no rows once nothing is attached');
    assert.deepEqual((await cinder(shared)).servers, [(await s.nova(other)).id]);
    const volume_ = await stored(shared);
    assert.deepEqual(volume_.spec.claimRef, { kind: 'Server', id: other.id });
    assert.deepEqual(volume_.metadata.finalizers, [serverClaimFinalizer(other.id)]);
  });

  it('a volume that does not exist: its row says so, the server parks, dropping it resumes', async () => {
    const input = s.input();
    await s.converged(input);
    const missing = randomUUID();
    await s.editSpec(input, { volumes: [{ id: missing }] });
    await until(input, 'Errored');
    assert.equal((await s.get(input)).status?.volumes?.[0]?.message, attachmentMessages.volumeNotFound);
    await s.editSpec(input, { volumes: [] });
    await until(input, 'Provisioned');
  });

  it('deleting a server detaches its volumes first and releases their claims', async () => {
    const id = await volume();
    const input = s.input();
    await s.converged(input);
    await s.editSpec(input, { volumes: [{ id }] });
    await until(input, 'Provisioned');

    await s.store.delete(volumeType, s.namespace, id);
    const held = await stored(id);
    assert.ok(held.metadata.deletionTimestamp !== undefined, 'the Volume is being deleted');
    assert.ok(held.metadata.finalizers?.includes(serverClaimFinalizer(input.id)), 'held by the claim');

    await s.store.delete(serverType, s.namespace, input.id);
    for (let i = 0; i < 10 && (await s.novaServers(input.name)).length > 0; i++) await s.tick();
    assert.deepEqual(await s.novaServers(input.name), []);
    assert.equal((await cinder(id)).status, 'available');
    assert.deepEqual((await cinder(id)).servers, []);
    // The claim went with the server, so nothing holds the Volume's deletion any more (its finalizer list is empty).
    await assert.rejects(stored(id), { name: 'KubeNotFoundError' });
  });
});

/**
 * Cinder contract: the Region Volume lifecycle, VolumeClass inventory, quotas and Cinder's attachment records,
 * checked against the real Cinder (Zed, API 3.70, a fake volume driver: volumes are available within a second).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import {
  ATTACHMENTS_MICROVERSION,
  createVolume,
  deleteAttachment,
  deleteVolume,
  findVolumeByName,
  getQuotaSet,
  getVolume,
  getVolumeType,
  listAttachments,
  listAvailabilityZones,
  listVolumeTypes,
  listVolumes,
  updateQuotaSet,
  type Attachment,
  type BlockStorageClient,
  type Volume,
  type VolumeCreate,
} from '../../src/openstack/blockstorage.ts';
import { ForbiddenError, NotFoundError } from '../../src/openstack/errors.ts';
import { createProject, deleteProject } from '../../src/openstack/identity.ts';
import { contractCloud, waitFor } from './cloud.ts';
import { Cleanup } from './cleanup.ts';

const cloud = await contractCloud();

/** Undo steps for everything this file makes, run newest first after the suite. */
const cleanup = new Cleanup();
const defer = (what: string, run: () => Promise<unknown>): void => {
  cleanup.add(what, run);
};

describe('Cinder contract (blockstorage.ts against the real Cinder)', { skip: cloud === undefined }, () => {
  if (cloud === undefined) return;
  const admin = cloud.admin.client('block-storage');
  const tenant = cloud.regionProject.client('block-storage');

  after(async () => {
    await cleanup.run();
    await cloud.close();
  });

  /** Reads until the volume is gone; a volume Cinder still shows must be `deleting` (or already deleted). */
  async function gone(cinder: BlockStorageClient, id: string): Promise<void> {
    await waitFor(
      async () => {
        try {
          return (await getVolume(cinder, id)).status;
        } catch (error) {
          if (error instanceof NotFoundError) return 'gone';
          throw error;
        }
      },
      (status) => status === 'gone',
      { timeoutMs: 60_000, what: `volume ${id} to disappear` },
    );
  }

  async function volume(create: VolumeCreate & { name: string }): Promise<Volume> {
    const created = await createVolume(tenant, create);
    defer(`volume ${create.name}`, async () => {
      try {
        await deleteVolume(tenant, created.id, { cascade: true });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        return;
      }
      await gone(tenant, created.id);
    });
    return created;
  }

  async function available(id: string): Promise<Volume> {
    const v = await waitFor(
      () => getVolume(tenant, id),
      (read) => read.status === 'available' || read.status.startsWith('error'),
      { timeoutMs: 60_000, what: `volume ${id} to become available` },
    );
    assert.equal(v.status, 'available');
    return v;
  }

  it('volume create → available → delete → gone, with volume type or-standard and metadata', async () => {
    const name = cloud.name('vol');
    const created = await volume({
      name,
      size: 1,
      volume_type: 'or-standard',
      metadata: { 'openregion:volume': name, 'openregion:region': 'contract' },
      description: 'contract',
    });
    assert.equal(created.name, name);
    assert.equal(created.size, 1);
    // Create answers before the scheduler has run: `creating` (the fake driver may already be done).
    assert.ok(['creating', 'available'].includes(created.status), created.status);

    const ready = await available(created.id);
    assert.equal(ready.volume_type, 'or-standard');
    assert.equal(ready.metadata['openregion:volume'], name);
    assert.equal(ready.metadata['openregion:region'], 'contract');
    assert.equal(ready.bootable, 'false');
    assert.equal(ready.multiattach, false);
    assert.deepEqual([...ready.attachments], []);
    assert.equal(typeof ready.availability_zone, 'string');

    assert.equal((await findVolumeByName(tenant, name))?.id, created.id);

    await deleteVolume(tenant, created.id);
    await gone(tenant, created.id);
    assert.equal(await findVolumeByName(tenant, name), undefined);
    await assert.rejects(getVolume(tenant, created.id), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.urlTemplate, '/volumes/{volume_id}');
      assert.equal(error.fault.type, 'itemNotFound');
      assert.match(error.requestID ?? '', /^req-[0-9a-f-]{36}$/);
      return true;
    });
  });

  it('metadata and name filters, exact-name lookup, and pagination across pages with a small pageSize', async () => {
    const base = cloud.name('page');
    const run = cloud.name('meta');
    const made: Volume[] = [];
    // Siblings whose names extend the first one's: the name filter must not alias them.
    for (const name of [base, `${base}-2`, `${base}x`]) {
      made.push(await volume({ name, size: 1, metadata: { 'openregion:run': run } }));
    }
    for (const v of made) await available(v.id);
    const other = await volume({ name: cloud.name('page-other'), size: 1, metadata: { 'openregion:run': 'other' } });
    await available(other.id);
    const ids = made.map((v) => v.id).sort();

    const pages = () =>
      cloud.accounting.total({ serviceType: 'block-storage', method: 'GET', urlTemplate: '/volumes/detail' });
    let before = pages();
    const byMetadata = await listVolumes(tenant, { metadata: { 'openregion:run': run } }, { pageSize: 2 });
    assert.deepEqual(byMetadata.map((v) => v.id).sort(), ids);
    // 2 + 1: Cinder links a next page after a full page only.
    assert.equal(pages() - before, 2);

    before = pages();
    const one = await listVolumes(tenant, { metadata: { 'openregion:run': run } }, { pageSize: 1 });
    assert.deepEqual(one.map((v) => v.id).sort(), ids);
    assert.ok(pages() - before >= 3, 'one page per volume');

    // The name filter is equality on the real service (no prefix match), and the helper returns exactly one.
    assert.deepEqual(
      (await listVolumes(tenant, { name: base })).map((v) => v.id),
      [made[0]?.id],
    );
    assert.deepEqual(await listVolumes(tenant, { name: base.slice(0, -2) }), []);
    assert.equal((await findVolumeByName(tenant, base))?.id, made[0]?.id);
    assert.equal((await findVolumeByName(tenant, `${base}-2`))?.id, made[1]?.id);

    // A metadata filter with two pairs needs both.
    assert.deepEqual(await listVolumes(tenant, { metadata: { 'openregion:run': run, absent: 'x' } }), []);
    assert.deepEqual(
      (await listVolumes(tenant, { status: 'available', metadata: { 'openregion:run': 'other' } })).map((v) => v.id),
      [other.id],
    );
  });

  it('a volume type whose backend does not exist puts the volume in error; it can still be deleted', async () => {
    const typeName = cloud.name('nope');
    // Types are admin-only and the client has no create: the raw request makes the fixture.
    const { body } = await admin.request<{ volume_type: { id: string } }>({
      method: 'POST',
      path: '/types',
      body: { volume_type: { name: typeName, extra_specs: { volume_backend_name: 'nope' } } },
    });
    const typeID = body.volume_type.id;
    defer(`volume type ${typeName}`, async () => {
      await admin.request({ method: 'DELETE', path: '/types/{volume_type_id}', params: { volume_type_id: typeID } });
    });
    const t = await getVolumeType(admin, typeID);
    assert.equal(t.extra_specs?.volume_backend_name, 'nope');

    const name = cloud.name('vol-error');
    const created = await volume({ name, size: 1, volume_type: typeName });
    const final = await waitFor(
      () => getVolume(tenant, created.id),
      (v) => v.status !== 'creating',
      { timeoutMs: 60_000, what: 'the scheduler to give up' },
    );
    assert.ok(final.status.startsWith('error'), `status ${final.status} starts with error`);
    assert.equal(final.status, 'error');

    await deleteVolume(tenant, created.id);
    await gone(tenant, created.id);
  });

  it('volume types: list includes the seeded or-standard and or-fast; get by id', async () => {
    const types = await listVolumeTypes(tenant);
    const names = types.map((t) => t.name);
    assert.ok(names.includes('or-standard'), names.join(', '));
    assert.ok(names.includes('or-fast'), names.join(', '));
    const standard = types.find((t) => t.name === 'or-standard');
    assert.ok(standard);
    const got = await getVolumeType(tenant, standard.id);
    assert.equal(got.name, 'or-standard');
    assert.equal(got.is_public, true);
    // Public only by default; the private list holds none of the seeded types.
    const privateTypes = await listVolumeTypes(admin, { isPublic: false });
    assert.ok(!privateTypes.some((t) => t.name === 'or-standard'));
    // Paged the same way as volumes.
    assert.deepEqual(
      (await listVolumeTypes(tenant, {}, { pageSize: 1 })).map((t) => t.id).sort(),
      types.map((t) => t.id).sort(),
    );
    await assert.rejects(getVolumeType(tenant, randomUUID()), NotFoundError);
  });

  it('quota sets: admin reads defaults and sets -1; the region project, its manager, sets its own only', async () => {
    const identity = cloud.admin.client('identity');
    const adminToken = await cloud.admin.token();
    const project = await createProject(identity, {
      name: cloud.name('quota'),
      domain_id: adminToken.project?.domain.id ?? 'default',
    });
    defer(`project ${project.name}`, () => deleteProject(identity, project.id));

    const defaults = await getQuotaSet(admin, project.id);
    assert.equal(defaults.id, project.id);
    assert.ok(defaults.volumes > 0);
    const unlimited = { volumes: -1, gigabytes: -1, snapshots: -1, backups: -1, backup_gigabytes: -1 } as const;
    const updated = await updateQuotaSet(admin, project.id, unlimited);
    for (const [key, value] of Object.entries(unlimited)) assert.equal(updated[key], value, key);
    const read = await getQuotaSet(admin, project.id);
    for (const [key, value] of Object.entries(unlimited)) assert.equal(read[key], value, key);
    // Per-type keys ride in the same set.
    assert.equal(typeof read['volumes_or-standard'], 'number');
    const perType = await updateQuotaSet(admin, project.id, { 'volumes_or-standard': 7 });
    assert.equal(perType['volumes_or-standard'], 7);

    const own = (await cloud.regionProject.token()).project?.id;
    assert.ok(own);
    const mine = await getQuotaSet(tenant, own);
    assert.equal(typeof mine.volumes, 'number');
    // deploy/policies/cinder.yaml: a project manager sets its own project's quotas (stock Zed: admin only).
    assert.equal((await updateQuotaSet(tenant, own, { volumes: mine.volumes })).volumes, mine.volumes);
    await assert.rejects(updateQuotaSet(tenant, project.id, { volumes: -1 }), ForbiddenError);
  });

  it('availability zones: the fake backend answers in zone nova', async () => {
    const zones = await listAvailabilityZones(tenant);
    assert.ok(zones.length >= 1);
    const nova = zones.find((z) => z.zoneName === 'nova');
    assert.ok(nova, zones.map((z) => z.zoneName).join(', '));
    assert.equal(nova.zoneState.available, true);
  });

  it(`the attachments API (${ATTACHMENTS_MICROVERSION}): list on a volume, a reserved record, delete it`, async () => {
    const name = cloud.name('vol-att');
    const created = await volume({ name, size: 1 });
    await available(created.id);
    assert.deepEqual(await listAttachments(tenant, { volumeID: created.id }), []);

    // A reservation is what Nova makes first; the client has no create (Nova owns attaching), so the raw request.
    const server = randomUUID();
    const { body } = await tenant.request<{ attachment: Attachment }>({
      method: 'POST',
      path: '/attachments',
      headers: { 'OpenStack-API-Version': `volume ${ATTACHMENTS_MICROVERSION}` },
      body: { attachment: { volume_uuid: created.id, instance_uuid: server } },
    });
    const attachment = body.attachment;
    defer(`attachment ${attachment.id}`, () => deleteAttachment(tenant, attachment.id));
    assert.equal(attachment.status, 'reserved');

    const listed = await listAttachments(tenant, { volumeID: created.id });
    assert.deepEqual(
      listed.map((a) => [a.id, a.instance, a.status]),
      [[attachment.id, server, 'reserved']],
    );
    assert.deepEqual(
      (await listAttachments(tenant, { instanceID: server })).map((a) => a.id),
      [attachment.id],
    );
    assert.equal((await getVolume(tenant, created.id)).status, 'reserved');

    // A second volume reserved for the same server: the instance filter pages across both.
    const second = await volume({ name: cloud.name('vol-att-2'), size: 1 });
    await available(second.id);
    const { body: body2 } = await tenant.request<{ attachment: Attachment }>({
      method: 'POST',
      path: '/attachments',
      headers: { 'OpenStack-API-Version': `volume ${ATTACHMENTS_MICROVERSION}` },
      body: { attachment: { volume_uuid: second.id, instance_uuid: server } },
    });
    defer(`attachment ${body2.attachment.id}`, () => deleteAttachment(tenant, body2.attachment.id));
    // Cinder honours `limit` here but sends no next link, so the client never sends a page size: both come back.
    const paged = await listAttachments(tenant, { instanceID: server }, { pageSize: 1 });
    assert.deepEqual(paged.map((a) => a.id).sort(), [attachment.id, body2.attachment.id].sort());
    const { body: raw } = await tenant.request<Record<string, unknown>>({
      method: 'GET',
      path: '/attachments',
      query: { instance_id: server, limit: 1 },
      headers: { 'OpenStack-API-Version': `volume ${ATTACHMENTS_MICROVERSION}` },
    });
    assert.deepEqual(Object.keys(raw), ['attachments'], 'no attachments_links even on a full page');
    await deleteAttachment(tenant, body2.attachment.id);

    // The stale-record cleanup: deleting the record returns the volume to available.
    await deleteAttachment(tenant, attachment.id);
    assert.deepEqual(await listAttachments(tenant, { volumeID: created.id }), []);
    await available(created.id);

    // Without the microversion the attachments API does not exist (404 at the base version).
    await assert.rejects(tenant.request({ method: 'GET', path: '/attachments' }), NotFoundError);
  });
});

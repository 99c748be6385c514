import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  createVolume,
  deleteAttachment,
  deleteVolume,
  findVolumeByName,
  getQuotaSet,
  getVolume,
  getVolumeType,
  listAttachments,
  listAvailabilityZones,
  listVolumes,
  listVolumeTypes,
  updateQuotaSet,
  type BlockStorageClient,
} from './blockstorage.ts';
import { ConsistencyError, NotFoundError } from './errors.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const base = '/volume/v3/p-1';

function volume(id: string, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    name,
    description: null,
    status: 'available',
    size: 10,
    volume_type: 'fast',
    availability_zone: 'nova',
    bootable: 'false',
    multiattach: false,
    metadata: {},
    attachments: [],
    created_at: '2025-01-01T00:00:00.000000',
    updated_at: null,
    ...extra,
  };
}

describe('blockstorage', () => {
  let h: Harness;
  let cinder: BlockStorageClient;
  before(async () => ({ h, client: cinder } = await clientHarness('block-storage')));
  after(() => h.close());

  describe('volumes', () => {
    it('creates a volume with the wire body under the project path', async () => {
      h.cloud.on('POST', `${base}/volumes`, (req) => ({
        status: 202,
        body: {
          volume: volume('v-1', 'volume-abc', { status: 'creating', ...(req.json() as { volume: object }).volume }),
        },
      }));
      const sent = {
        size: 20,
        name: 'volume-abc',
        description: 'unikorn managed block storage volume',
        volume_type: 'type-1',
        availability_zone: 'az-1',
        metadata: { 'unikorn-cloud.org/volume': 'abc' },
        imageRef: 'img-1',
      };
      const created = await createVolume(cinder, sent);
      const req = h.cloud.last('POST', `${base}/volumes`);
      assert.deepEqual(req.json(), { volume: sent });
      assert.equal(req.headers['content-type'], 'application/json');
      // No volume microversion is pinned for volume calls.
      assert.equal(req.headers['openstack-api-version'], undefined);
      assert.equal(created.id, 'v-1');
      assert.equal(created.status, 'creating');
      assert.equal(created.size, 20);
    });

    it('gets a volume with its attachments', async () => {
      h.cloud.on('GET', `${base}/volumes/:id`, (_req, p) => ({
        body: {
          volume: volume(p.id ?? '', 'volume-abc', {
            status: 'in-use',
            attachments: [
              {
                id: 'v-7',
                attachment_id: 'att-1',
                server_id: 'srv-1',
                device: '/dev/vdb',
                host_name: null,
                volume_id: 'v-7',
                attached_at: '2025-01-01T00:00:00.000000',
              },
            ],
          }),
        },
      }));
      const got = await getVolume(cinder, 'v-7');
      assert.equal(h.cloud.last().path, `${base}/volumes/v-7`);
      assert.equal(got.id, 'v-7');
      assert.equal(got.status, 'in-use');
      assert.deepEqual(
        got.attachments.map((a) => [a.attachment_id, a.server_id, a.device]),
        [['att-1', 'srv-1', '/dev/vdb']],
      );
    });

    it('surfaces a missing volume as NotFoundError naming the template', async () => {
      h.cloud.on('GET', `${base}/volumes/:id`, {
        status: 404,
        body: { itemNotFound: { code: 404, message: 'Volume gone could not be found.' } },
      });
      await assert.rejects(getVolume(cinder, 'gone'), (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        assert.equal(e.urlTemplate, '/volumes/{volume_id}');
        return true;
      });
    });

    it('lists volumes in detail with filters and follows volumes_links across pages', async () => {
      h.cloud.on('GET', `${base}/volumes/detail`, (req) =>
        req.query.get('marker') === 'v-2'
          ? { body: { volumes: [volume('v-3', 'c')] } }
          : {
              body: {
                volumes: [volume('v-1', 'a'), volume('v-2', 'b')],
                volumes_links: [
                  { rel: 'next', href: 'http://cinder.internal:8776/v3/p-1/volumes/detail?limit=2&marker=v-2' },
                ],
              },
            },
      );
      const before = h.cloud.requests.length;
      const volumes = await listVolumes(
        cinder,
        { name: 'volume-x', status: 'available', metadata: { k: 'v', 'unikorn-cloud.org/project': 'p' } },
        { pageSize: 2 },
      );
      assert.deepEqual(
        volumes.map((v) => v.id),
        ['v-1', 'v-2', 'v-3'],
      );
      const [first, second] = h.cloud.requests.slice(before);
      assert.ok(first && second);
      assert.equal(first.path, `${base}/volumes/detail`);
      assert.equal(first.query.get('name'), 'volume-x');
      assert.equal(first.query.get('status'), 'available');
      assert.deepEqual(JSON.parse(first.query.get('metadata') ?? ''), { k: 'v', 'unikorn-cloud.org/project': 'p' });
      assert.equal(first.query.get('limit'), '2');
      assert.equal(first.query.has('all_tenants'), false);
      assert.equal(second.path, `${base}/volumes/detail`);
      assert.equal(second.query.get('marker'), 'v-2');
    });

    it('sends no filters when none are given', async () => {
      h.cloud.on('GET', `${base}/volumes/detail`, { body: { volumes: [] } });
      assert.deepEqual(await listVolumes(cinder, { metadata: {} }), []);
      assert.deepEqual([...h.cloud.last().query.keys()], []);
    });

    it('finds a volume by exact name: none, one, duplicate', async () => {
      const reply = (items: Record<string, unknown>[]) => {
        h.cloud.on('GET', `${base}/volumes/detail`, { body: { volumes: items } });
      };
      reply([volume('v-9', 'volume-abc-2')]);
      assert.equal(await findVolumeByName(cinder, 'volume-abc'), undefined);
      assert.equal(h.cloud.last().query.get('name'), 'volume-abc');

      reply([volume('v-9', 'volume-abc-2'), volume('v-1', 'volume-abc')]);
      assert.equal((await findVolumeByName(cinder, 'volume-abc'))?.id, 'v-1');

      reply([volume('v-1', 'volume-abc'), volume('v-2', 'volume-abc')]);
      await assert.rejects(findVolumeByName(cinder, 'volume-abc'), (e: unknown) => {
        assert.ok(e instanceof ConsistencyError);
        assert.deepEqual(e.ids, ['v-1', 'v-2']);
        return true;
      });
    });

    it('deletes a volume, with cascade only when asked', async () => {
      h.cloud.on('DELETE', `${base}/volumes/:id`, { status: 202 });
      await deleteVolume(cinder, 'v-1');
      let req = h.cloud.last('DELETE');
      assert.equal(req.path, `${base}/volumes/v-1`);
      assert.equal(req.query.has('cascade'), false);

      await deleteVolume(cinder, 'v-2', { cascade: true });
      req = h.cloud.last('DELETE');
      assert.equal(req.path, `${base}/volumes/v-2`);
      assert.equal(req.query.get('cascade'), 'true');
    });
  });

  describe('attachments', () => {
    it('lists a volume’s attachment records at microversion 3.27', async () => {
      h.cloud.on('GET', `${base}/attachments`, {
        body: { attachments: [{ id: 'att-1', volume_id: 'v-1', instance: 'srv-1', status: 'attached' }] },
      });
      const attachments = await listAttachments(cinder, { volumeID: 'v-1' });
      assert.deepEqual(attachments, [{ id: 'att-1', volume_id: 'v-1', instance: 'srv-1', status: 'attached' }]);
      const req = h.cloud.last('GET', `${base}/attachments`);
      assert.equal(req.query.get('volume_id'), 'v-1');
      assert.equal(req.query.has('instance_id'), false);
      assert.equal(req.headers['openstack-api-version'], 'volume 3.27');
    });

    it('never sends a page size: Cinder honours limit on attachments but links no next page', async () => {
      h.cloud.on('GET', `${base}/attachments`, {
        body: { attachments: [{ id: 'att-1', volume_id: 'v-1', instance: 'srv-1', status: 'attached' }] },
      });
      await listAttachments(cinder, { instanceID: 'srv-1' }, { pageSize: 1 });
      assert.equal(h.cloud.last('GET', `${base}/attachments`).query.has('limit'), false);
    });

    it('deletes an attachment record at microversion 3.27', async () => {
      h.cloud.on('DELETE', `${base}/attachments/:id`, { body: { attachments: [] } });
      await deleteAttachment(cinder, 'att-1');
      const req = h.cloud.last('DELETE');
      assert.equal(req.path, `${base}/attachments/att-1`);
      assert.equal(req.headers['openstack-api-version'], 'volume 3.27');
    });
  });

  describe('volume types', () => {
    const fast = {
      id: 'type-1',
      name: 'fast',
      description: 'NVMe',
      is_public: true,
      'os-volume-type-access:is_public': true,
      extra_specs: { volume_backend_name: 'nvme' },
    };

    it('lists public volume types', async () => {
      h.cloud.on('GET', `${base}/types`, { body: { volume_types: [fast] } });
      const types = await listVolumeTypes(cinder, { isPublic: true });
      assert.equal(h.cloud.last().query.get('is_public'), 'true');
      const [first] = types;
      assert.ok(first);
      assert.equal(first.id, 'type-1');
      assert.deepEqual(first.extra_specs, { volume_backend_name: 'nvme' });

      await listVolumeTypes(cinder);
      assert.equal(h.cloud.last().query.has('is_public'), false);
    });

    it('follows volume_type_links (singular, as the real Cinder sends it) across pages', async () => {
      h.cloud.on('GET', `${base}/types`, (req) =>
        req.query.get('marker') === 'type-1'
          ? { body: { volume_types: [{ ...fast, id: 'type-2' }] } }
          : {
              body: {
                volume_types: [fast],
                volume_type_links: [
                  { rel: 'next', href: 'http://cinder.internal:8776/v3/p-1/types?limit=1&marker=type-1' },
                ],
              },
            },
      );
      const types = await listVolumeTypes(cinder, {}, { pageSize: 1 });
      assert.deepEqual(
        types.map((t) => t.id),
        ['type-1', 'type-2'],
      );
    });

    it('gets a volume type', async () => {
      h.cloud.on('GET', `${base}/types/:id`, (_req, p) => ({ body: { volume_type: { ...fast, id: p.id } } }));
      const type = await getVolumeType(cinder, 'type-2');
      assert.equal(h.cloud.last().path, `${base}/types/type-2`);
      assert.equal(type.id, 'type-2');
      assert.equal(type.is_public, true);
    });
  });

  describe('quotas', () => {
    it('reads a project’s quota set with per-type keys', async () => {
      h.cloud.on('GET', `${base}/os-quota-sets/:project`, (_req, p) => ({
        body: {
          quota_set: {
            id: p.project,
            volumes: 10,
            gigabytes: 1000,
            snapshots: 10,
            backups: 10,
            backup_gigabytes: 1000,
            per_volume_gigabytes: -1,
            groups: 10,
            volumes_fast: -1,
          },
        },
      }));
      const quotas = await getQuotaSet(cinder, 'p-2');
      assert.equal(h.cloud.last().path, `${base}/os-quota-sets/p-2`);
      assert.equal(quotas.id, 'p-2');
      assert.equal(quotas.gigabytes, 1000);
      assert.equal(quotas.volumes_fast, -1);
    });

    it('sets quotas unlimited', async () => {
      h.cloud.on('PUT', `${base}/os-quota-sets/:project`, (req) => ({ body: req.json() }));
      const unlimited = {
        volumes: -1,
        gigabytes: -1,
        snapshots: -1,
        backups: -1,
        backup_gigabytes: -1,
        per_volume_gigabytes: -1,
        groups: -1,
      };
      const quotas = await updateQuotaSet(cinder, 'p-2', unlimited);
      const req = h.cloud.last('PUT');
      assert.equal(req.path, `${base}/os-quota-sets/p-2`);
      assert.deepEqual(req.json(), { quota_set: unlimited });
      assert.equal(quotas.volumes, -1);
    });
  });

  it('lists availability zones', async () => {
    h.cloud.on('GET', `${base}/os-availability-zone`, {
      body: {
        availabilityZoneInfo: [
          { zoneName: 'nova', zoneState: { available: true } },
          { zoneName: 'az-2', zoneState: { available: false } },
        ],
      },
    });
    const zones = await listAvailabilityZones(cinder);
    assert.equal(h.cloud.last().path, `${base}/os-availability-zone`);
    assert.deepEqual(
      zones.map((z) => [z.zoneName, z.zoneState.available]),
      [
        ['nova', true],
        ['az-2', false],
      ],
    );
  });
});

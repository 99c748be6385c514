import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ConsistencyError } from './errors.ts';
import {
  createImage,
  deleteImage,
  findImageByName,
  getImage,
  getImageSchema,
  imageProperties,
  importImageFromUrl,
  listImages,
  updateImage,
  IMAGE_PATCH_CONTENT_TYPE,
  type ImageClient,
} from './image.ts';
import { clientHarness, type Harness } from './testing/harness.ts';

const V2 = '/image/v2';

const image = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  status: 'active',
  visibility: 'public',
  owner: 'p-1',
  disk_format: 'raw',
  container_format: 'bare',
  size: 2147483648,
  virtual_size: null,
  checksum: 'c0ffee',
  os_hash_algo: 'sha512',
  os_hash_value: 'beef',
  min_disk: 20,
  min_ram: 0,
  protected: false,
  os_hidden: false,
  tags: [],
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-02T00:00:00Z',
  self: `/v2/images/${id}`,
  file: `/v2/images/${id}/file`,
  schema: '/v2/schemas/image',
  ...extra,
});

describe('image', () => {
  let h: Harness;
  let glance: ImageClient;
  before(async () => ({ h, client: glance } = await clientHarness('image')));
  after(() => h.close());
  let seen: number;
  beforeEach(() => {
    seen = h.cloud.requests.length;
  });
  const sent = () => h.cloud.requests.slice(seen);

  it('lists with every filter, tags repeated', async () => {
    h.cloud.on('GET', `${V2}/images`, { body: { images: [image('i-1', 'ubuntu')], first: '/v2/images' } });
    const images = await listImages(glance, {
      name: 'ubuntu',
      status: 'active',
      visibility: 'public',
      owner: 'p-1',
      tags: ['ready', 'approved'],
      memberStatus: 'accepted',
      osHidden: false,
      sort: 'created_at:asc',
    });
    assert.equal(images[0]?.id, 'i-1');
    const q = h.cloud.last('GET', `${V2}/images`).query;
    assert.equal(q.get('name'), 'ubuntu');
    assert.equal(q.get('status'), 'active');
    assert.equal(q.get('visibility'), 'public');
    assert.equal(q.get('owner'), 'p-1');
    assert.deepEqual(q.getAll('tag'), ['ready', 'approved']);
    assert.equal(q.get('member_status'), 'accepted');
    assert.equal(q.get('os_hidden'), 'false');
    assert.equal(q.get('sort'), 'created_at:asc');
  });

  it('sends no filters that were not asked for', async () => {
    h.cloud.on('GET', `${V2}/images`, { body: { images: [] } });
    await listImages(glance);
    assert.equal(h.cloud.last('GET', `${V2}/images`).query.toString(), '');
  });

  it('follows Glance’s `next` path across pages, under the endpoint’s prefix', async () => {
    h.cloud.on('GET', `${V2}/images`, (r) =>
      r.query.get('marker') === 'i-2'
        ? { body: { images: [image('i-3', 'c')], first: '/v2/images?visibility=public' } }
        : {
            body: {
              images: [image('i-1', 'a'), image('i-2', 'b')],
              first: '/v2/images?visibility=public',
              // A path from Glance's own root: the endpoint here lives under /image.
              next: '/v2/images?visibility=public&limit=2&marker=i-2',
            },
          },
    );
    const images = await listImages(glance, { visibility: 'public' }, { pageSize: 2 });
    assert.deepEqual(
      images.map((i) => i.id),
      ['i-1', 'i-2', 'i-3'],
    );
    const pages = sent();
    assert.equal(pages.length, 2);
    assert.equal(pages[0]?.query.get('limit'), '2');
    assert.equal(pages[1]?.path, `${V2}/images`);
    assert.equal(pages[1].query.get('marker'), 'i-2');
    assert.equal(pages[1].query.get('visibility'), 'public');
  });

  it('finds an image by exact name: none, one, duplicate', async () => {
    h.cloud.on('GET', `${V2}/images`, { body: { images: [] } });
    assert.equal(await findImageByName(glance, 'ubuntu-24.04', { visibility: 'public' }), undefined);
    const q = h.cloud.last('GET', `${V2}/images`).query;
    assert.equal(q.get('name'), 'ubuntu-24.04');
    assert.equal(q.get('visibility'), 'public');

    h.cloud.on('GET', `${V2}/images`, {
      body: { images: [image('i-0', 'Ubuntu-24.04'), image('i-1', 'ubuntu-24.04')] },
    });
    assert.equal((await findImageByName(glance, 'ubuntu-24.04'))?.id, 'i-1');

    h.cloud.on('GET', `${V2}/images`, {
      body: { images: [image('i-1', 'ubuntu-24.04'), image('i-2', 'ubuntu-24.04')] },
    });
    await assert.rejects(findImageByName(glance, 'ubuntu-24.04'), (e: unknown) => {
      assert.ok(e instanceof ConsistencyError);
      assert.deepEqual(e.ids, ['i-1', 'i-2']);
      return true;
    });
  });

  it('does not send a name Glance would read as its `in:` operator', async () => {
    h.cloud.on('GET', `${V2}/images`, { body: { images: [image('i-1', 'in:a,b'), image('i-2', 'a')] } });
    assert.equal((await findImageByName(glance, 'in:a,b'))?.id, 'i-1');
    assert.equal(h.cloud.last('GET', `${V2}/images`).query.has('name'), false);
  });

  it('gets an image with its custom properties at the top level', async () => {
    h.cloud.on('GET', `${V2}/images/:id`, (_r, p) => ({
      body: image(p.id ?? '', 'ubuntu', {
        'unikorn:os:kernel': 'linux',
        'unikorn:os:distro': 'ubuntu',
        'unikorn:virtualization': 'virtualized',
        'unikorn:gpu_models': 'H100,A100',
        architecture: 'x86_64',
      }),
    }));
    const got = await getImage(glance, 'i-9');
    assert.equal(h.cloud.last().path, `${V2}/images/i-9`);
    assert.equal(got.id, 'i-9');
    assert.equal(got.min_disk, 20);
    assert.equal(got['unikorn:os:kernel'], 'linux');
    assert.deepEqual(imageProperties(got), {
      'unikorn:os:kernel': 'linux',
      'unikorn:os:distro': 'ubuntu',
      'unikorn:virtualization': 'virtualized',
      'unikorn:gpu_models': 'H100,A100',
      architecture: 'x86_64',
    });
  });

  it('creates an image with core fields and custom properties flattened into the body', async () => {
    h.cloud.on('POST', `${V2}/images`, (r) => ({
      status: 201,
      body: image('i-new', 'x', { status: 'queued', size: null, ...(r.json() as object) }),
    }));
    const created = await createImage(glance, {
      name: 'ubuntu-24.04',
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
      tags: ['unikorn'],
      min_disk: 20,
      min_ram: 1024,
      os_hidden: false,
      protected: false,
      properties: { 'unikorn:os:kernel': 'linux', hw_firmware_type: 'uefi' },
    });
    assert.deepEqual(h.cloud.last('POST', `${V2}/images`).json(), {
      name: 'ubuntu-24.04',
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
      tags: ['unikorn'],
      min_disk: 20,
      min_ram: 1024,
      os_hidden: false,
      protected: false,
      'unikorn:os:kernel': 'linux',
      hw_firmware_type: 'uefi',
    });
    assert.equal(created.id, 'i-new');
    assert.equal(created.status, 'queued');
    assert.equal(created.size, null);
    assert.equal(created.hw_firmware_type, 'uefi');
  });

  it('refuses a custom property that names a core field, before sending anything', async () => {
    await assert.rejects(createImage(glance, { name: 'x', properties: { visibility: 'public' } }), /core Glance field/);
    assert.equal(sent().length, 0);
  });

  it('updates through Glance’s JSON patch media type, escaping property names', async () => {
    h.cloud.on('PATCH', `${V2}/images/:id`, (_r, p) => ({ body: image(p.id ?? '', 'renamed') }));
    const updated = await updateImage(glance, 'i-1', [
      { op: 'replace', property: 'name', value: 'renamed' },
      { op: 'add', property: 'unikorn:digest', value: 'MEUCIQ==' },
      { op: 'add', property: 'odd/name~x', value: 'v' },
      { op: 'remove', property: 'unikorn:tag:stale' },
    ]);
    const req = h.cloud.last('PATCH', `${V2}/images/i-1`);
    assert.equal(req.headers['content-type'], IMAGE_PATCH_CONTENT_TYPE);
    assert.equal(IMAGE_PATCH_CONTENT_TYPE, 'application/openstack-images-v2.1-json-patch');
    assert.deepEqual(req.json(), [
      { op: 'replace', path: '/name', value: 'renamed' },
      { op: 'add', path: '/unikorn:digest', value: 'MEUCIQ==' },
      { op: 'add', path: '/odd~1name~0x', value: 'v' },
      { op: 'remove', path: '/unikorn:tag:stale' },
    ]);
    assert.equal(updated.name, 'renamed');
  });

  it('starts a web-download import', async () => {
    h.cloud.on('POST', `${V2}/images/:id/import`, { status: 202 });
    await importImageFromUrl(glance, 'i-1', 'https://images.example/ubuntu.raw');
    const req = h.cloud.last('POST', `${V2}/images/i-1/import`);
    assert.deepEqual(req.json(), { method: { name: 'web-download', uri: 'https://images.example/ubuntu.raw' } });
  });

  it('deletes an image', async () => {
    h.cloud.on('DELETE', `${V2}/images/:id`, { status: 204 });
    await deleteImage(glance, 'i-1');
    assert.equal(h.cloud.last().method, 'DELETE');
    assert.equal(h.cloud.last().path, `${V2}/images/i-1`);
  });

  it('reads the image schema', async () => {
    h.cloud.on('GET', `${V2}/schemas/image`, {
      body: {
        name: 'image',
        properties: {
          visibility: { type: 'string', enum: ['community', 'public', 'private', 'shared'] },
          checksum: { type: ['null', 'string'], readOnly: true, maxLength: 32 },
        },
        additionalProperties: { type: 'string' },
      },
    });
    const schema = await getImageSchema(glance);
    assert.equal(h.cloud.last().method, 'GET');
    assert.equal(h.cloud.last().path, `${V2}/schemas/image`);
    assert.deepEqual(schema.properties.visibility?.enum, ['community', 'public', 'private', 'shared']);
    assert.equal(schema.properties.checksum?.readOnly, true);
    assert.deepEqual(schema.additionalProperties, { type: 'string' });
  });

  it('sends no microversion header (Glance has none)', async () => {
    h.cloud.on('GET', `${V2}/images/:id`, (_r, p) => ({ body: image(p.id ?? '', 'x') }));
    await getImage(glance, 'i-1');
    const headers = h.cloud.last().headers;
    assert.equal(headers['openstack-api-version'], undefined);
    assert.equal(typeof headers['x-auth-token'], 'string');
  });
});

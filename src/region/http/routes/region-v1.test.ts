import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ResourceConflictError, ResourceNotFoundError, TransientError } from '../../provider/errors.ts';
import type { Image } from '../../provider/types.ts';
import { capturedLogger } from '../../../runtime/testing/logger.ts';
import type { ImageSourceCheck } from '../context.ts';
import { imageTags } from '../resources/inventory.ts';
import {
  allCapabilities,
  apiFixture,
  call,
  IMAGES,
  inventoryOver,
  ORG_A,
  ORG_B,
  REGION_ID,
  type ApiFixture,
} from '../testing/api.ts';

interface ImageRead {
  metadata: { id: string; name: string; tags?: { name: string; value: string }[] };
  spec: { os: { distro: string }; softwareVersions?: Record<string, string> };
  status: { state: string };
}

const upload = (name: string, uri = 'https://images.example.com/raw.img') => ({
  metadata: { name, tags: [{ name: 'team', value: 'a' }] },
  spec: {
    uri,
    architecture: 'x86_64',
    virtualization: 'virtualized',
    os: { kernel: 'linux', family: 'debian', distro: 'ubuntu', version: '24.04' },
    softwareVersions: { kubernetes: 'v1.31.2' },
  },
});

describe('v1 region routes', () => {
  let f: ApiFixture;
  const PUBLIC = '00000000-0000-4000-8000-2000000000aa';
  const B_OWNED = '00000000-0000-4000-8000-2000000000bb';
  const images: Image[] = [
    ...IMAGES,
    { ...IMAGES[0], id: PUBLIC, name: 'zz-public' } as Image,
    { ...IMAGES[0], id: B_OWNED, name: 'zz-b', organizationID: ORG_B } as Image,
  ];
  const checked: string[] = [];
  const imageSource: ImageSourceCheck = (uri) => {
    checked.push(uri);
    return Promise.resolve(uri.endsWith('.qcow2') ? 'the image has no master boot record' : undefined);
  };
  const v1 = (org: string, rest: string) => `/api/v1/organizations/${org}${rest}`;

  before(async () => {
    let next = 0;
    const inventory = inventoryOver(
      images,
      undefined,
      () => `00000000-0000-4000-8000-1000000000${String(++next).padStart(2, '0')}`,
    );
    f = await apiFixture({ ...allCapabilities, inventory: () => Promise.resolve(inventory) }, { imageSource });
  });
  after(() => f.close());

  it('lists the regions the organization may use, as upstream reads them', async () => {
    const { status, body } = await call<{ metadata: { id: string; name: string }; spec: unknown }[]>(
      f,
      f.tokens.a,
      'GET',
      v1(ORG_A, '/regions'),
    );
    assert.equal(status, 200);
    assert.deepEqual(
      body.map((r) => [r.metadata.id, r.metadata.name, r.spec]),
      [[REGION_ID, 'demo', { type: 'openstack', features: { physicalNetworks: false } }]],
    );
    const detail = await call(f, f.tokens.a, 'GET', v1(ORG_A, `/regions/${REGION_ID}/detail`));
    assert.equal(detail.status, 200);
    assert.ok(!JSON.stringify(detail.body).includes('region-credentials'), 'no credentials in the detail');
  });

  it('refuses an organization the token does not hold (403), whatever the route', async () => {
    for (const path of ['/regions', `/regions/${REGION_ID}/detail`, `/regions/${REGION_ID}/images`]) {
      assert.equal((await call(f, f.tokens.a, 'GET', v1(ORG_B, path))).status, 403, path);
    }
  });

  it('lists only ready images the organization may use, by name', async () => {
    const { body } = await call<ImageRead[]>(f, f.tokens.a, 'GET', v1(ORG_A, `/regions/${REGION_ID}/images`));
    assert.deepEqual(
      body.map((i) => i.metadata.name),
      ['arm', 'rocky-9', 'ubuntu-24.04', 'zz-public'],
      'sorted by name; neither the pending one nor organization B’s',
    );
  });

  it("uploads an organization's raw image (200), owned and tagged with its origin", async () => {
    const created = await call<ImageRead>(
      f,
      f.tokens.a,
      'POST',
      v1(ORG_A, `/regions/${REGION_ID}/images`),
      upload('mine'),
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.equal(created.body.status.state, 'pending');
    assert.deepEqual(created.body.spec.softwareVersions, { kubernetes: 'v1.31.2' });
    assert.deepEqual(created.body.metadata.tags?.map((t) => `${t.name}=${t.value}`).sort(), [
      `${imageTags.organizationID}=${ORG_A}`,
      `${imageTags.source}=import`,
      'team=a',
    ]);
    assert.equal(checked.at(-1), 'https://images.example.com/raw.img');
    const stored = images.find((i) => i.id === created.body.metadata.id);
    assert.equal(stored?.organizationID, ORG_A, 'owned: visible to the organization alone');
  });

  it('refuses an image that is not raw (422 naming spec.uri) and a malformed request (400), storing nothing', async () => {
    const count = images.length;
    const qcow = await call<{ errors: { field: string; rule: string }[] }>(
      f,
      f.tokens.a,
      'POST',
      v1(ORG_A, `/regions/${REGION_ID}/images`),
      upload('bad', 'https://images.example.com/disk.qcow2'),
    );
    assert.equal(qcow.status, 422);
    assert.deepEqual(
      qcow.body.errors.map((e) => `${e.field}:${e.rule}`),
      ['spec.uri:rawImage'],
    );
    const semver = upload('bad');
    semver.spec.softwareVersions = { kubernetes: '1.31' };
    assert.equal((await call(f, f.tokens.a, 'POST', v1(ORG_A, `/regions/${REGION_ID}/images`), semver)).status, 400);
    assert.equal(images.length, count);
  });

  it("deletes only the organization's own image (202); a public one is forbidden, another's reads as not found", async () => {
    const mine = await call<ImageRead>(
      f,
      f.tokens.a,
      'POST',
      v1(ORG_A, `/regions/${REGION_ID}/images`),
      upload('gone'),
    );
    const path = (id: string) => v1(ORG_A, `/regions/${REGION_ID}/images/${id}`);
    assert.equal((await call(f, f.tokens.a, 'DELETE', path(PUBLIC))).status, 403, 'a public image: seen, not ours');
    assert.equal((await call(f, f.tokens.a, 'DELETE', path(B_OWNED))).status, 404, "another organization's");
    assert.equal(
      (await call(f, f.tokens.b, 'DELETE', v1(ORG_B, `/regions/${REGION_ID}/images/${mine.body.metadata.id}`))).status,
      404,
      "organization B deleting A's",
    );
    assert.ok(images.some((i) => i.id === PUBLIC) && images.some((i) => i.id === B_OWNED));
    const deleted = await call(f, f.tokens.a, 'DELETE', path(mine.body.metadata.id));
    assert.equal(deleted.status, 202);
    assert.equal(deleted.body, undefined, 'no body');
    assert.ok(!images.some((i) => i.id === mine.body.metadata.id));
    assert.equal((await call(f, f.tokens.a, 'DELETE', path(mine.body.metadata.id))).status, 404, 'gone');
  });

  it('an image delete that cannot proceed says why, with the real status, and logs the cause for operators', async () => {
    const OWN = '00000000-0000-4000-8000-2000000000cc';
    const own = [{ ...IMAGES[0], id: OWN, name: 'zz-own', organizationID: ORG_A } as Image];
    const over = inventoryOver(own);
    let failure: Error | undefined;
    const inventory = {
      ...over,
      deleteImage: (ctx: Parameters<typeof over.deleteImage>[0], id: string) =>
        failure === undefined ? over.deleteImage(ctx, id) : Promise.reject(failure),
    };
    const { log, records } = capturedLogger();
    const g = await apiFixture({ ...allCapabilities, inventory: () => Promise.resolve(inventory) }, { log });
    try {
      const path = v1(ORG_A, `/regions/${REGION_ID}/images/${OWN}`);
      const glance = new Error('HTTP 403 req-1: Image 1234 is protected and cannot be deleted.');
      failure = new ResourceConflictError('delete image: Glance holds it protected', { cause: glance });
      const conflict = await call<{ detail: string }>(g, g.tokens.a, 'DELETE', path);
      assert.equal(conflict.status, 409);
      assert.match(conflict.body.detail, /protected or in use/);
      assert.ok(!JSON.stringify(conflict.body).includes('req-1'), 'no raw OpenStack detail for the tenant');
      const logged = records().find((r) => r.msg === 'image delete refused' && r.imageID === OWN);
      assert.ok(logged && JSON.stringify(logged).includes('req-1'), 'the operator log holds the cause');

      failure = new TransientError('delete image: HTTP 503', { cause: new Error('glance is down') });
      assert.equal((await call(g, g.tokens.a, 'DELETE', path)).status, 503, 'transient: retry');
      assert.ok(
        records().some((r) => r.msg === 'image delete refused' && JSON.stringify(r).includes('glance is down')),
      );

      failure = new ResourceNotFoundError('delete image: gone');
      assert.equal((await call(g, g.tokens.a, 'DELETE', path)).status, 404);
      failure = undefined;
      assert.equal((await call(g, g.tokens.a, 'DELETE', path)).status, 202);
    } finally {
      await g.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TransientError } from '../../provider/errors.ts';
import { allCapabilities, apiFixture, call, ORG_A, ORG_B, REGION_ID, type ApiFixture } from '../testing/api.ts';

interface Item {
  metadata: { id: string; name: string };
  spec: Record<string, unknown>;
  status?: { state: string };
}

describe('region inventory routes', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture();
  });
  after(() => f.close());

  it('lists the images the organization may use: public ones, never another organization’s', async () => {
    const { status, body } = await call<Item[]>(f, f.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/images`);
    assert.equal(status, 200);
    const ids = body.map((i) => i.metadata.id);
    assert.ok(ids.includes('image-ubuntu'));
    assert.ok(!ids.includes('image-b-private'));
    const ready = await call<Item[]>(f, f.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/images?status=ready`);
    assert.ok(ready.body.every((i) => i.status?.state === 'ready'));
    const images = `/api/v2/regions/${REGION_ID}/images`;
    const repeated = await call<Item[]>(f, f.tokens.a, 'GET', `${images}?status=ready&status=failed`);
    assert.equal(repeated.status, 200);
    assert.ok(repeated.body.every((i) => ['ready', 'failed'].includes(i.status?.state ?? '')));
    assert.deepEqual(
      repeated.body.filter((i) => i.status?.state === 'ready').map((i) => i.metadata.id),
      ready.body.map((i) => i.metadata.id),
    );
    // Only image states are admitted: a comma-joined value is not one.
    assert.equal((await call(f, f.tokens.a, 'GET', `${images}?status=ready,failed`)).status, 400);
    const owned = await call<Item[]>(f, f.tokens.b, 'GET', `/api/v2/regions/${REGION_ID}/images?scope=owned`);
    assert.deepEqual(
      owned.body.map((i) => i.metadata.id),
      ['image-b-private'],
    );
  });

  it('lists flavors on the upstream v1 path and the v2 alias, memory in GiB and disk in GiB as Nova states it', async () => {
    const v1 = await call<Item[]>(f, f.tokens.a, 'GET', `/api/v1/organizations/${ORG_A}/regions/${REGION_ID}/flavors`);
    assert.equal(v1.status, 200);
    const small = v1.body.find((x) => x.metadata.id === 'flavor-small');
    assert.deepEqual(small?.spec, { cpus: 1, memory: 1, disk: 10, architecture: 'x86_64' });
    const v2 = await call<Item[]>(f, f.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/flavors`);
    assert.deepEqual(v2.body, v1.body);
    assert.equal(
      (await call(f, f.tokens.a, 'GET', `/api/v1/organizations/${ORG_B}/regions/${REGION_ID}/flavors`)).status,
      403,
      "an organization the token does not hold, named in the path: forbidden, as upstream's RBAC answers",
    );
  });

  it('lists external networks and volume classes with their capacity bounds', async () => {
    const external = await call(
      f,
      f.tokens.a,
      'GET',
      `/api/v1/organizations/${ORG_A}/regions/${REGION_ID}/externalnetworks`,
    );
    assert.deepEqual(external.body, [{ id: 'ext-1', name: 'public' }]);
    const classes = await call<Item[]>(f, f.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/volumeclasses`);
    assert.deepEqual(classes.body[0]?.spec, {
      media: 'nvme',
      encrypted: false,
      minCapacityGiB: 10,
      maxCapacityGiB: 100,
    });
  });

  it('an unknown region is not found; a failing provider answers 503 with fixed text, no cause', async () => {
    assert.equal((await call(f, f.tokens.a, 'GET', '/api/v2/regions/nope/images')).status, 400, 'not a UUID');
    const unknown = '00000000-0000-4000-8000-0000000000aa';
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/regions/${unknown}/images`)).status, 404);
    const failing = await apiFixture({
      ...allCapabilities,
      inventory: () => Promise.reject(new TransientError('nova said: secret-internal-detail')),
    });
    try {
      const response = await call<{ detail: string }>(
        failing,
        failing.tokens.a,
        'GET',
        `/api/v2/regions/${REGION_ID}/flavors`,
      );
      assert.equal(response.status, 503);
      assert.ok(!JSON.stringify(response.body).includes('secret-internal-detail'));
    } finally {
      await failing.close();
    }
  });

  it('answers 501 without an inventory capability', async () => {
    const bare = await apiFixture({ controllers: { servers: true, loadBalancers: true, volumes: true } });
    try {
      assert.equal((await call(bare, bare.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/images`)).status, 501);
      assert.equal(
        (await call(bare, bare.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/externalnetworks`)).status,
        501,
      );
    } finally {
      await bare.close();
    }
  });
});

/**
 * The inventory provider on the emulator: flavors and volume classes through caches that live with the client
 * set, images through the refresh-ahead cache (list, get, create by web-download, delete), and the cache-disabled
 * contract. Every request is the region principal's.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as glance from '../../../openstack/image.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import type { Image } from '../../provider/types.ts';
import type { ManagedRegionClientSet } from '../client-set.ts';
import type { RegionContext } from '../registry.ts';
import { clientsFixture, type ClientsFixture } from '../testing/clients.ts';
import { InventoryCaches } from './caches.ts';
import { inventoryProviderFor } from './provider.ts';
import type { Scheduler } from './refresh-ahead.ts';

const OS = {
  'unikorn:os:kernel': 'linux',
  'unikorn:os:family': 'debian',
  'unikorn:os:distro': 'ubuntu',
  'unikorn:os:version': '24.04',
  'unikorn:virtualization': 'virtualized',
};
const ctx = { signal: new AbortController().signal };

let tb: ClientsFixture;
let adminProject: string;
const fired: (() => void)[] = [];
const scheduler: Scheduler = {
  every: (_ms, task) => {
    fired.push(task);
    return { cancel: () => undefined };
  },
};
/** Fires the scheduled refreshes and waits for the one in flight (refresh is single-flight). */
const tick = async (held: InventoryCaches, region: RegionContext) => {
  for (const task of fired) task();
  await held.for(region).images?.refresh();
};

before(async () => {
  tb = await clientsFixture();
  adminProject = tb.clients.credentials.projectID;
  const admin = tb.admin;
  for (const [name, isPublic] of [
    ['inv.small', true],
    ['inv.private', false],
  ] as const) {
    await admin.client('compute').request({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name, vcpus: 1, ram: 512, disk: 1, 'os-flavor-access:is_public': isPublic } },
    });
  }
  const image = admin.client('image');
  const make = async (name: string, properties: Record<string, string>) => {
    const made = await glance.createImage(image, { name, visibility: 'public', properties });
    await image.request({
      method: 'PUT',
      path: '/images/{id}/file',
      params: { id: made.id },
      contentType: 'application/octet-stream',
      body: name,
    });
  };
  await make('public-ok', OS);
  await make('org-owned', { ...OS, 'unikorn:organization:id': 'org-a' });
  await make('invalid', { 'unikorn:os:kernel': 'linux' });
});
after(() => tb.close());

const config = (extra: Partial<RegionOpenstack> = {}): RegionOpenstack => ({
  endpoint: 'unused',
  serviceAccountSecret: { namespace: 'n', name: 's' },
  ...extra,
});
const managed = (): ManagedRegionClientSet => ({
  ...tb.clients,
  forgetProject: () => undefined,
  authenticates: () => Promise.resolve(true),
});
function context(openstack = config(), clients = managed()): RegionContext {
  return {
    region: {
      apiVersion: 'region.unikorn-cloud.org/v1alpha1',
      kind: 'Region',
      metadata: { name: 'r1', namespace: 'default' },
      spec: { provider: 'openstack', openstack },
    },
    config: openstack,
    clients,
    namespace: 'default',
  };
}
const caches = (imageCache = true) => new InventoryCaches({ clock: tb.clock, imageCache, scheduler });
const sent = (start: number) => tb.log().slice(start);

describe('flavors and volume classes', () => {
  it('exports public flavors; repeated calls reuse the cache until the client set is rebuilt', async () => {
    const held = caches();
    const region = context();
    const start = tb.log().length;
    const names = (await inventoryProviderFor(region, { caches: held }).flavors(ctx)).map((f) => f.name);
    assert.ok(names.includes('inv.small') && !names.includes('inv.private'));
    const afterFirst = tb.log().length;
    await inventoryProviderFor({ ...region, region: region.region }, { caches: held }).flavors(ctx);
    assert.equal(tb.log().length, afterFirst, 'the same client set: no request');
    assert.ok(
      sent(start).every((l) => l.startsWith(`region ${adminProject} GET compute`)),
      sent(start).join('\n'),
    );
    await inventoryProviderFor(context(config(), managed()), { caches: held }).flavors(ctx);
    assert.ok(tb.log().length > afterFirst, 'a rebuilt client set loads afresh');
  });

  it('a flavor an operator adds shows once the periodic refresh has run, with no restart or Region edit', async () => {
    const held = caches();
    const region = context();
    const names = async () => (await inventoryProviderFor(region, { caches: held }).flavors(ctx)).map((f) => f.name);
    assert.ok(!(await names()).includes('inv.later'));
    await tb.admin.client('compute').request({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'inv.later', vcpus: 1, ram: 512, disk: 1 } },
    });
    assert.ok(!(await names()).includes('inv.later'), 'readers get the listing in hand: no request per read');
    for (const task of fired) task();
    await held.for(region).flavors.refresh();
    assert.ok((await names()).includes('inv.later'), 'the refresh re-listed Nova');
  });

  it('volume classes fail closed with no selector (no Cinder call) and follow the allowlist', async () => {
    const start = tb.log().length;
    assert.deepEqual(await inventoryProviderFor(context(), { caches: caches() }).volumeClasses(ctx), []);
    assert.deepEqual(sent(start), []);
    const types = await tb.clients.region().client('block-storage').request<{ volume_types: { id: string }[] }>({
      method: 'GET',
      path: '/types',
    });
    const id = types.body.volume_types[0]?.id ?? assert.fail('a volume type');
    const selected = config({
      blockStorage: { volumeClasses: { selector: { ids: [id] }, metadata: [{ id, media: 'ssd' }] } },
    });
    const classes = await inventoryProviderFor(context(selected), { caches: caches() }).volumeClasses(ctx);
    assert.deepEqual(
      classes.map((c) => [c.id, c.media, c.supportedFlavorIDs]),
      [[id, 'ssd', undefined]],
    );
    const small = (await inventoryProviderFor(context(), { caches: caches() }).flavors(ctx)).find(
      (f) => f.name === 'inv.small',
    );
    const supported = config({
      blockStorage: {
        volumeClasses: {
          selector: { ids: [id] },
          metadata: [{ id, supportedFlavors: { selector: { ids: [small?.id ?? '', 'not-a-flavor'] } } }],
        },
      },
    });
    const [resolved] = await inventoryProviderFor(context(supported), { caches: caches() }).volumeClasses(ctx);
    assert.deepEqual(resolved?.supportedFlavorIDs, [small?.id], 'resolved against the exported flavors');
  });
});

describe('images', () => {
  it('lists valid public images from the cache; get respects organization visibility', async () => {
    const provider = inventoryProviderFor(context(), { caches: caches() });
    const listed = await provider.queryImages().list(ctx);
    // Both were made in the same emulated second: the order between them is by id, so compare as a set.
    assert.deepEqual(listed.items.map((i) => i.name).sort(), ['org-owned', 'public-ok']);
    const start = tb.log().length;
    assert.equal((await provider.queryImages().list(ctx)).epoch, listed.epoch);
    assert.deepEqual(sent(start), [], 'served from the cache');
    const names = async (q: ReturnType<typeof provider.queryImages>) => (await q.list(ctx)).items.map((i) => i.name);
    assert.deepEqual(await names(provider.queryImages().availableToOrganization('org-b')), ['public-ok']);
    assert.deepEqual(await names(provider.queryImages().ownedByOrganization('org-a')), ['org-owned']);
    assert.deepEqual(await names(provider.queryImages().statusIn('pending')), []);
    const owned = listed.items.find((i) => i.name === 'org-owned') ?? assert.fail('org image');
    assert.equal((await provider.getImage(ctx, 'org-a', owned.id)).name, 'org-owned');
    await assert.rejects(provider.getImage(ctx, 'org-b', owned.id), ResourceNotFoundError);
  });

  it('create imports by web-download and shows at once; delete tombstones until the next refresh', async () => {
    const [held, region] = [caches(), context()];
    const provider = inventoryProviderFor(region, { caches: held });
    const before = await provider.queryImages().list(ctx);
    const wanted: Image = {
      id: '',
      name: 'uploaded',
      tags: { team: 'ml' },
      organizationID: 'org-a',
      created: '',
      modified: '',
      architecture: 'x86_64',
      sizeGiB: 1,
      virtualization: 'any',
      os: { kernel: 'linux', family: 'redhat', distro: 'rocky', version: '9.4' },
      status: 'ready',
    };
    const made = await provider.createImage(ctx, wanted, 'https://images.example.com/rocky.raw');
    assert.equal(made.status, 'pending');
    const shown = await provider.queryImages().list(ctx);
    assert.ok(shown.epoch > before.epoch);
    assert.equal(shown.items.find((i) => i.id === made.id)?.status, 'pending', 'write-through');
    const inGlance = await glance.getImage(tb.admin.client('image'), made.id);
    assert.equal(inGlance.visibility, 'public');
    assert.equal(inGlance['unikorn:tag:team'], 'ml');
    tb.emulator.control.advance(1_000);
    await tick(held, region);
    assert.equal((await provider.getImage(ctx, 'org-a', made.id)).status, 'ready', 'the refresh saw the import');

    await provider.deleteImage(ctx, made.id);
    assert.equal((await provider.getImage(ctx, 'org-a', made.id)).status, 'failed', 'tombstone');
    await tick(held, region);
    await assert.rejects(provider.getImage(ctx, 'org-a', made.id), ResourceNotFoundError);
    await provider.deleteImage(ctx, made.id);
  });

  it('with the cache disabled, query, get, create, delete and snapshot are unavailable', async () => {
    const provider = inventoryProviderFor(context(), { caches: caches(false) });
    const start = tb.log().length;
    await assert.rejects(provider.queryImages().list(ctx), ResourceNotFoundError);
    await assert.rejects(provider.getImage(ctx, 'o', 'i'), ResourceNotFoundError);
    await assert.rejects(provider.createImage(ctx, {} as Image, 'https://x.example.com/'), ResourceNotFoundError);
    await assert.rejects(provider.deleteImage(ctx, 'i'), ResourceNotFoundError);
    assert.throws(() => {
      provider.recordSnapshot({} as Image);
    }, ResourceNotFoundError);
    assert.deepEqual(sent(start), []);
  });
});

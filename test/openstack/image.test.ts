/**
 * Contract: Glance v2 (image.ts) against a real cloud: the seeded images, list filters, create with custom
 * properties, JSON-patch updates, the web-download import on a cloud without web access, delete and the schema.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BadRequestError,
  ConflictError,
  ConsistencyError,
  ForbiddenError,
  isNotFound,
  NotFoundError,
} from '../../src/openstack/errors.ts';
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
  type Image,
  type ImageClient,
} from '../../src/openstack/image.ts';
import { contractCloud, waitFor } from './cloud.ts';
import { Cleanup, must } from './cleanup.ts';

const cloud = await contractCloud();

describe('image contract (Glance v2)', { skip: cloud === undefined }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let glance: ImageClient;
  let admin: ImageClient;
  let projectID: string;

  async function make(name: string, extra: Omit<Parameters<typeof createImage>[1], 'name'> = {}): Promise<Image> {
    const image = await createImage(glance, { name, disk_format: 'raw', container_format: 'bare', ...extra });
    cleanup.add(`image ${name}`, async () => {
      if (image.protected || extra.protected === true) {
        await updateImage(admin, image.id, [{ op: 'replace', property: 'protected', value: false }]);
      }
      await deleteImage(admin, image.id);
    });
    return image;
  }

  before(async () => {
    // The region's own project: images are read (and in tests made) with an ordinary project credential.
    glance = c.regionProject.client('image');
    admin = c.admin.client('image');
    projectID = must((await c.regionProject.token()).project, 'region project').id;
  });

  after(async () => {
    await cleanup.run();
    await c.close();
  });

  it('the seeded images: two active, one deactivated', async () => {
    const a = must(await findImageByName(glance, 'or-image-a'), 'or-image-a');
    const b = must(await findImageByName(glance, 'or-image-b'), 'or-image-b');
    assert.equal(a.status, 'active');
    assert.equal(b.status, 'active');
    assert.notEqual(a.id, b.id);
    const deactivated = must(await findImageByName(admin, 'or-image-deactivated'), 'or-image-deactivated');
    assert.equal(deactivated.status, 'deactivated');
    const got = await getImage(glance, a.id);
    assert.equal(got.name, 'or-image-a');
    assert.equal(typeof got.size, 'number');
    assert.ok(got.checksum === null || typeof got.checksum === 'string');
  });

  it('list filters: name, status, visibility, owner, tags, os_hidden, sort', async () => {
    const tag = c.name('tag');
    const first = await make(c.name('list-1'), { tags: [tag], visibility: 'private' });
    const second = await make(c.name('list-2'), { tags: [tag, `${tag}-2`], visibility: 'private' });
    const hidden = await make(c.name('list-hidden'), { tags: [tag], os_hidden: true });
    const ids = (images: Image[]) => images.map((i) => i.id);

    assert.deepEqual(ids(await listImages(glance, { tags: [tag], sort: 'name:asc' })), [first.id, second.id]);
    assert.deepEqual(ids(await listImages(glance, { tags: [tag], sort: 'name:desc' })), [second.id, first.id]);
    assert.deepEqual(ids(await listImages(glance, { tags: [tag, `${tag}-2`] })), [second.id]);
    assert.deepEqual(ids(await listImages(glance, { tags: [tag], osHidden: true })), [hidden.id]);
    assert.deepEqual(ids(await listImages(glance, { name: first.name ?? '' })), [first.id]);
    assert.deepEqual(
      ids(await listImages(glance, { tags: [tag], status: 'queued', visibility: 'private', owner: projectID })).sort(),
      [first.id, second.id].sort(),
    );
    assert.deepEqual(await listImages(glance, { tags: [tag], status: 'active' }), []);
    assert.deepEqual(ids(await listImages(glance, { tags: [tag], status: 'in:active,queued', sort: 'name:asc' })), [
      first.id,
      second.id,
    ]);
    const publicOnes = await listImages(glance, { visibility: 'public' });
    assert.ok(publicOnes.some((i) => i.name === 'or-image-a'));
    assert.ok(publicOnes.every((i) => i.visibility === 'public'));
    // paging: one item per page still yields them all
    assert.deepEqual(ids(await listImages(glance, { tags: [tag], sort: 'name:asc' }, { pageSize: 1 })), [
      first.id,
      second.id,
    ]);
    assert.deepEqual(ids(await listImages(glance, { tags: [tag], sort: 'name:asc' }, { limit: 1 })), [first.id]);
  });

  it('names: the filter compares with the database collation; findImageByName is exact and refuses twins', async () => {
    const base = c.name('Named');
    const exact = await make(base);
    await make(`${base}-2`);
    const variant = base.toUpperCase();
    const byVariant = await listImages(glance, { name: variant });
    assert.deepEqual(
      byVariant.map((i) => i.id),
      [exact.id],
      'MariaDB compares names case-insensitively, so a case variant is listed',
    );
    assert.equal(await findImageByName(glance, variant), undefined);
    assert.equal((await findImageByName(glance, base))?.id, exact.id);
    assert.equal(await findImageByName(glance, base.slice(0, -1)), undefined, 'no prefix match');

    // Glance reads `in:` as its list operator: such a name is found without the server-side filter.
    const listy = await make(`in:${base}`);
    assert.equal((await findImageByName(glance, `in:${base}`))?.id, listy.id);

    // Glance names need not be unique: two exact matches are a consistency error.
    const twin = await make(base);
    await assert.rejects(findImageByName(glance, base), (e: unknown) => {
      assert.ok(e instanceof ConsistencyError);
      assert.deepEqual([...e.ids].sort(), [exact.id, twin.id].sort());
      return true;
    });
  });

  it('create with custom properties; imageProperties returns exactly them', async () => {
    const name = c.name('props');
    const image = await make(name, {
      min_disk: 1,
      min_ram: 64,
      tags: ['ct'],
      properties: { 'unikorn:os:distro': 'ubuntu', 'unikorn:virtualization': 'virtualized', architecture: 'x86_64' },
    });
    assert.equal(image.status, 'queued');
    assert.equal(image.visibility, 'shared', "Glance's default visibility for a new image");
    assert.equal(image.owner, projectID);
    assert.equal(image.size, null);
    assert.equal(image.min_ram, 64);
    assert.deepEqual(imageProperties(await getImage(glance, image.id)), {
      'unikorn:os:distro': 'ubuntu',
      'unikorn:virtualization': 'virtualized',
      architecture: 'x86_64',
    });
    await assert.rejects(
      createImage(glance, { name, properties: { status: 'active' } }),
      /core Glance field/,
      'a custom property named like a core field is refused before sending',
    );
  });

  it('JSON-patch update: add, replace, remove; a property with "/" in its name; 409 on a missing one', async () => {
    const image = await make(c.name('patch'), { properties: { 'unikorn:gpu_models': 'a100' } });
    const updated = await updateImage(glance, image.id, [
      { op: 'add', property: 'unikorn:digest', value: 'sha256:abc' },
      { op: 'replace', property: 'unikorn:gpu_models', value: 'h100' },
      { op: 'add', property: 'a/b~c', value: 'escaped' },
      { op: 'replace', property: 'min_ram', value: 128 },
      { op: 'add', property: 'tags', value: ['one', 'two'] },
    ]);
    assert.deepEqual(imageProperties(updated), {
      'unikorn:digest': 'sha256:abc',
      'unikorn:gpu_models': 'h100',
      'a/b~c': 'escaped',
    });
    assert.equal(updated.min_ram, 128);
    assert.deepEqual([...updated.tags].sort(), ['one', 'two']);

    // `add` sets an existing property too
    const readded = await updateImage(glance, image.id, [
      { op: 'add', property: 'unikorn:digest', value: 'sha256:def' },
    ]);
    assert.equal(imageProperties(readded)['unikorn:digest'], 'sha256:def');

    const removed = await updateImage(glance, image.id, [{ op: 'remove', property: 'a/b~c' }]);
    assert.equal(imageProperties(removed)['a/b~c'], undefined);
    await assert.rejects(updateImage(glance, image.id, [{ op: 'remove', property: 'never-set' }]), ConflictError);
    await assert.rejects(
      updateImage(glance, image.id, [{ op: 'replace', property: 'never-set', value: 'x' }]),
      ConflictError,
    );
  });

  it('web-download import with no web access: a name that does not resolve is refused (400)', async (t) => {
    const image = await make(c.name('import-dns'));
    // Glance's URI filter resolves the host: with no DNS answer it refuses synchronously, before any task.
    await assert.rejects(
      importImageFromUrl(glance, image.id, 'http://images.example.invalid/ct-openregion.qcow2'),
      (e: unknown) => {
        assert.ok(e instanceof BadRequestError, String(e));
        assert.match(e.fault.message ?? e.body, /does not pass filtering/);
        t.diagnostic(`Glance refused: ${e.fault.message ?? e.body}`);
        return true;
      },
    );
    assert.equal((await getImage(glance, image.id)).status, 'queued', 'the image is untouched');
  });

  it('web-download import from an address with nothing to fetch: accepted (202), the task fails', async (t) => {
    const image = await make(c.name('import'));
    // Loopback and link-local addresses are refused by the filter like unresolvable names (Debian's Glance pins
    // the resolved address and blocks those); a documentation address passes it and then fails to fetch.
    await assert.rejects(importImageFromUrl(glance, image.id, 'http://127.0.0.1/ct-openregion.qcow2'), BadRequestError);
    await importImageFromUrl(glance, image.id, 'http://203.0.113.10/ct-openregion.qcow2');
    const settled = await waitFor(
      () => getImage(glance, image.id),
      (i) =>
        i.status === 'active' ||
        i.status === 'killed' ||
        (typeof i.os_glance_failed_import === 'string' && i.os_glance_failed_import !== '' && i.status !== 'importing'),
      { timeoutMs: 120_000, intervalMs: 500, what: 'the import to settle' },
    );
    t.diagnostic(
      `after a failed web-download: status=${settled.status} ` +
        `os_glance_failed_import=${JSON.stringify(settled.os_glance_failed_import)} ` +
        `os_glance_importing_to_stores=${JSON.stringify(settled.os_glance_importing_to_stores)}`,
    );
    // Glance puts the image back to queued and names the store that failed; it can be imported again.
    assert.equal(settled.status, 'queued');
    assert.equal(settled.os_glance_failed_import, 'file');
    assert.equal(settled.size, null, 'no data arrived');
  });

  it('delete: 204 then 404; a protected image is refused with 403', async () => {
    const doomed = await make(c.name('doomed'));
    await deleteImage(glance, doomed.id);
    await assert.rejects(getImage(glance, doomed.id), NotFoundError);
    await assert.rejects(deleteImage(glance, doomed.id), NotFoundError);

    const kept = await make(c.name('protected'), { protected: true });
    assert.equal(kept.protected, true);
    await assert.rejects(deleteImage(glance, kept.id), ForbiddenError);
    await updateImage(glance, kept.id, [{ op: 'replace', property: 'protected', value: false }]);
    await deleteImage(glance, kept.id);
    await assert.rejects(getImage(glance, kept.id), isNotFound);
  });

  it('the image schema describes core fields and admits string custom properties', async () => {
    const schema = await getImageSchema(glance);
    assert.equal(schema.name, 'image');
    for (const field of ['id', 'name', 'status', 'visibility', 'os_hidden', 'min_ram', 'tags']) {
      assert.ok(schema.properties[field], `schema property ${field}`);
    }
    assert.ok(schema.properties.status?.enum?.includes('deactivated'));
    assert.ok(schema.properties.visibility?.enum?.includes('community'));
    assert.equal(schema.properties.id?.readOnly ?? schema.properties.status?.readOnly, true);
    assert.deepEqual(schema.additionalProperties, { type: 'string' });
  });
});

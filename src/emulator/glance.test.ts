import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ForbiddenError, NotFoundError } from '../openstack/errors.ts';
import { createProject, createUser, findRoleByName, grantRole } from '../openstack/identity.ts';
import {
  createImage,
  getImage,
  importImageFromUrl,
  listImages,
  uploadImageData,
  type ImageClient,
} from '../openstack/image.ts';
import { importOutcome } from './glance.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Glance emulation', () => {
  let cloud: CloudFixture;
  let admin: ImageClient;
  let tenant: ImageClient;
  let stranger: ImageClient;

  before(async () => {
    cloud = await cloudFixture();
    const identity = cloud.admin.client('identity');
    const member = await findRoleByName(identity, 'member');
    const memberIn = async (name: string): Promise<ImageClient> => {
      const p = await createProject(identity, { name, domain_id: 'default' });
      const u = await createUser(identity, { name, domain_id: 'default', password: 'pw' });
      await grantRole(identity, { userID: u.id, projectID: p.id, roleID: member?.id ?? '' });
      return cloud
        .session({ type: 'password', user: { id: u.id }, password: 'pw' }, { kind: 'project', project: { id: p.id } })
        .client('image');
    };
    admin = cloud.admin.client('image');
    tenant = await memberIn('tenant');
    stranger = await memberIn('stranger');
  });
  after(() => cloud.close());

  const upload = (client: ImageClient, id: string) => uploadImageData(client, id, 'data');

  it('a data upload makes a queued image active, with its size and checksums', async () => {
    const image = await createImage(tenant, { name: 'up', disk_format: 'raw', container_format: 'bare' });
    assert.equal(image.status, 'queued');
    await upload(tenant, image.id);
    const active = await getImage(tenant, image.id);
    assert.equal(active.status, 'active');
    assert.equal(active.size, 4);
    assert.equal(active.checksum, '8d777f385d3dfec8815d20f7496026dc');
  });

  it('a private image is invisible to another project (404) and visible to an admin', async () => {
    const image = await createImage(tenant, { name: 'mine', visibility: 'private' });
    await assert.rejects(getImage(stranger, image.id), NotFoundError);
    assert.ok(!(await listImages(stranger)).some((i) => i.id === image.id));
    assert.equal((await getImage(admin, image.id)).id, image.id);
  });

  it('web-download: importing, then active once the clock passes glance.import; a control makes the next one killed', async () => {
    const image = await createImage(tenant, { name: 'fetched' });
    await importImageFromUrl(tenant, image.id, 'https://images.example.com/x.qcow2');
    assert.equal((await getImage(tenant, image.id)).status, 'importing');
    cloud.emulator.control.advance(50);
    assert.equal((await getImage(tenant, image.id)).status, 'active');

    assert.equal(await cloud.control('POST', '/glance/imports/fail-next', { mode: 'killed' }), 204);
    const doomed = await createImage(tenant, { name: 'doomed' });
    await importImageFromUrl(tenant, doomed.id, 'https://images.example.com/y.qcow2');
    cloud.emulator.control.advance(50);
    assert.equal((await getImage(tenant, doomed.id)).status, 'killed');
  });

  it('deactivate and reactivate: admin only through the API; a control does it as a foreign admin', async () => {
    const image = await createImage(tenant, { name: 'toggled' });
    await upload(tenant, image.id);
    const action = (client: ImageClient, name: string) =>
      client.request({ method: 'POST', path: `/images/{image_id}/actions/${name}`, params: { image_id: image.id } });
    await assert.rejects(action(tenant, 'deactivate'), ForbiddenError);
    await action(admin, 'deactivate');
    assert.equal((await getImage(tenant, image.id)).status, 'deactivated');
    assert.equal(await cloud.control('POST', `/glance/images/${image.id}/reactivate`), 204);
    assert.equal((await getImage(tenant, image.id)).status, 'active');
  });

  it('lists page with `next` (marker and limit) in Glance’s default order, newest first', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) {
      await createImage(tenant, { name, tags: ['paged'] });
      cloud.clock.advance(1000);
    }
    const names = (await listImages(tenant, { tags: ['paged'] }, { pageSize: 2 })).map((i) => i.name);
    assert.deepEqual(names, ['page-c', 'page-b', 'page-a']);
  });

  it('decides a web-download from the URI alone: refused, unreachable or fetched', () => {
    assert.equal(importOutcome('http://images.example.invalid/x'), 'refused');
    assert.equal(importOutcome('http://127.0.0.1/x'), 'refused');
    assert.equal(importOutcome('http://169.254.169.254/x'), 'refused');
    assert.equal(importOutcome('file:///etc/passwd'), 'refused');
    assert.equal(importOutcome('http://203.0.113.10/x'), 'unreachable');
    assert.equal(importOutcome('https://cloud-images.ubuntu.com/x.img'), 'fetched');
  });
});

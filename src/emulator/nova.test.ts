import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  createServer,
  deleteServer,
  getServer,
  listServers,
  rebuildServer,
  type ComputeClient,
  type Server,
} from '../openstack/compute.ts';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError, ServerError } from '../openstack/errors.ts';
import { createProject, createUser, findRoleByName, grantRole } from '../openstack/identity.ts';
import { createImage, uploadImageData } from '../openstack/image.ts';
import type { ServiceModule } from './context.ts';
import { defaultServices } from './emulator.ts';
import { novaFault } from './faults.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

/** Stands in for Placement: every resource class and trait is on offer, so baremetal flavors schedule. */
const generousPlacement: ServiceModule = {
  name: 'placement-stub',
  prefix: '/placement',
  catalog: [],
  fault: novaFault,
  create: (_ctx, lookups) => {
    lookups.placement = { canHost: () => true };
    return {
      name: 'placement-stub',
      reset: () => undefined,
      dump: () => ({}),
      records: () => ({}),
      restore: () => undefined,
    };
  },
};

describe('Nova emulation', () => {
  let cloud: CloudFixture;
  let compute: ComputeClient;
  let admin: ComputeClient;
  const flavors = { small: '', metal: '' };
  const images = { a: '', b: '' };

  before(async () => {
    cloud = await cloudFixture({ services: [...defaultServices(), generousPlacement] });
    admin = cloud.admin.client('compute');
    const identity = cloud.admin.client('identity');
    const p = await createProject(identity, { name: 'tenant', domain_id: 'default' });
    const u = await createUser(identity, { name: 'tenant', domain_id: 'default', password: 'pw' });
    await grantRole(identity, {
      userID: u.id,
      projectID: p.id,
      roleID: (await findRoleByName(identity, 'member'))?.id ?? '',
    });
    compute = cloud
      .session({ type: 'password', user: { id: u.id }, password: 'pw' }, { kind: 'project', project: { id: p.id } })
      .client('compute');
    const flavor = async (name: string, specs: Record<string, string>) => {
      const { body } = await admin.request<{ flavor: { id: string } }>({
        method: 'POST',
        path: '/flavors',
        body: { flavor: { name, vcpus: 1, ram: 512, disk: 1 } },
      });
      await admin.request({
        method: 'POST',
        path: '/flavors/{id}/os-extra_specs',
        params: { id: body.flavor.id },
        body: { extra_specs: specs },
      });
      return body.flavor.id;
    };
    flavors.small = await flavor('small', {});
    flavors.metal = await flavor('metal', { 'resources:CUSTOM_BAREMETAL': '1', 'resources:VCPU': '0' });
    const glance = cloud.admin.client('image');
    for (const key of ['a', 'b'] as const) {
      const image = await createImage(glance, { name: key, visibility: 'public' });
      await glance.request({
        method: 'PUT',
        path: '/images/{id}/file',
        params: { id: image.id },
        contentType: 'application/octet-stream',
        body: key,
      });
      images[key] = image.id;
    }
  });
  beforeEach(() => {
    cloud.emulator.nova.controls.setPolicy({ hideTaskState: false, hideLaunchedAt: false });
  });
  after(() => cloud.close());

  const boot = async (name: string, flavorRef = flavors.small): Promise<string> =>
    (await createServer(compute, { name, flavorRef, imageRef: images.a, networks: 'none' })).id;
  const settle = (ms = 1000) => {
    cloud.emulator.control.advance(ms);
  };
  const imageOf = (s: Server) => (s.image === '' ? '' : s.image.id);

  it('a requested host (hypervisor_hostname) is for an admin or a project manager, not a member', async () => {
    const pinned = { name: 'pinned', flavorRef: flavors.small, imageRef: images.a, networks: 'none' as const };
    await assert.rejects(
      compute.request({ method: 'POST', path: '/servers', body: { server: { ...pinned, hypervisor_hostname: 'h' } } }),
      ForbiddenError,
    );
    const { body } = await admin.request<{ server: { id: string } }>({
      method: 'POST',
      path: '/servers',
      body: { server: { ...pinned, hypervisor_hostname: 'h' } },
    });
    await admin.request({ method: 'DELETE', path: '/servers/{id}', params: { id: body.server.id } });
    settle(5_000);
  });

  it("reset-state: the admin's only; sets ERROR or ACTIVE and touches nothing else", async () => {
    const id = await boot('reset');
    settle(50);
    const reset = (client: ComputeClient, state: string) =>
      client.request({
        method: 'POST',
        path: '/servers/{id}/action',
        params: { id },
        body: { 'os-resetState': { state } },
      });
    await assert.rejects(reset(compute, 'error'), ForbiddenError);
    await assert.rejects(reset(admin, 'deleted'), BadRequestError);
    await reset(admin, 'error');
    const errored = await getServer(compute, id);
    assert.equal(errored.status, 'ERROR');
    assert.equal(imageOf(errored), images.a);
    assert.ok(errored['OS-SRV-USG:launched_at']);
    await reset(admin, 'active');
    assert.equal((await getServer(compute, id)).status, 'ACTIVE');
    await compute.request({ method: 'DELETE', path: '/servers/{id}', params: { id } });
    settle(5_000);
  });

  it('microversions: both headers answered; above the maximum is 406', async () => {
    const { headers } = await compute.request({ method: 'GET', path: '/flavors' });
    assert.equal(headers['openstack-api-version'], 'compute 2.90');
    assert.equal(headers['x-openstack-nova-api-version'], '2.90');
    const response = await fetch(`${cloud.emulator.url}/compute/v2.1/flavors`, {
      headers: { 'x-auth-token': (await cloud.admin.token()).value, 'openstack-api-version': 'compute 2.94' },
    });
    assert.equal(response.status, 406);
  });

  it('BUILD until nova.build passes, then ACTIVE with launched_at set at first boot', async () => {
    const id = await boot('built');
    const building = await getServer(compute, id);
    assert.equal(building.status, 'BUILD');
    assert.equal(building['OS-SRV-USG:launched_at'], null);
    settle(50);
    const active = await getServer(compute, id);
    assert.equal(active.status, 'ACTIVE');
    assert.equal(active['OS-EXT-STS:task_state'], null);
    assert.ok(active['OS-SRV-USG:launched_at']);
  });

  it('an injected create failure: sync answers 500 and makes nothing; async goes ERROR with a fault', async () => {
    cloud.emulator.nova.controls.failNext({ operation: 'create', mode: 'sync' });
    await assert.rejects(boot('sync-fail'), ServerError);
    assert.deepEqual(await listServers(compute, { name: '^sync-fail$' }), []);
    assert.equal(
      await cloud.control('POST', '/nova/fail-next', { operation: 'create', mode: 'async', message: 'boom' }),
      204,
    );
    const id = await boot('async-fail');
    settle();
    const errored = await getServer(compute, id);
    assert.equal(errored.status, 'ERROR');
    assert.equal(errored.fault?.message, 'boom');
    const listed = (await listServers(compute, { name: 'async-fail' }))[0];
    assert.equal(listed?.status, 'ERROR');
    assert.equal(listed.fault, undefined, 'list responses omit fault');
  });

  it('rebuild: a racing rebuild 409s; an async failure leaves ERROR with the ref on the target', async () => {
    const id = await boot('rebuilt');
    settle();
    cloud.emulator.nova.controls.failNext({ operation: 'rebuild', mode: 'async' });
    await rebuildServer(compute, id, { imageRef: images.b });
    await assert.rejects(rebuildServer(compute, id, { imageRef: images.a }), ConflictError);
    const rebuilding = await getServer(compute, id);
    assert.deepEqual(
      [rebuilding.status, rebuilding['OS-EXT-STS:task_state'], imageOf(rebuilding)],
      ['REBUILD', 'rebuilding', images.b],
    );
    settle();
    const failed = await getServer(compute, id);
    assert.equal(failed.status, 'ERROR');
    assert.equal(imageOf(failed), images.b);
    await assert.rejects(
      rebuildServer(compute, id, { imageRef: '00000000-0000-4000-8000-000000000000' }),
      BadRequestError,
    );
  });

  it('an injected synchronous rebuild failure answers at once and leaves the server as it was', async () => {
    const id = await boot('sync-rebuild');
    settle();
    cloud.emulator.nova.controls.failNext({ operation: 'rebuild', mode: 'sync', status: 500 });
    await assert.rejects(rebuildServer(compute, id, { imageRef: images.b }), ServerError);
    const untouched = await getServer(compute, id);
    assert.deepEqual(
      [untouched.status, untouched['OS-EXT-STS:task_state'], imageOf(untouched)],
      ['ACTIVE', null, images.a],
    );
    await rebuildServer(compute, id, { imageRef: images.b });
  });

  it('an image whose min_ram or min_disk exceeds the flavor is refused with Nova’s 400, on create and rebuild', async () => {
    const glance = cloud.admin.client('image');
    const big = async (name: string, minimum: { min_ram?: number; min_disk?: number }) => {
      const image = await createImage(glance, { name, visibility: 'public', ...minimum });
      await uploadImageData(glance, image.id, name);
      return image.id;
    };
    const hungry = await big('hungry', { min_ram: 1024 });
    const wide = await big('wide', { min_disk: 2 });
    const id = await boot('too-small');
    settle();
    const refusal = async (call: Promise<unknown>) => {
      const error = await call.then(
        () => assert.fail('accepted'),
        (e: unknown) => e,
      );
      assert.ok(error instanceof BadRequestError);
      return error.fault.message ?? '';
    };
    assert.equal(
      await refusal(rebuildServer(compute, id, { imageRef: hungry })),
      "Flavor's memory is too small for requested image.",
    );
    assert.match(
      await refusal(rebuildServer(compute, id, { imageRef: wide })),
      /^Flavor's disk is smaller than the minimum size specified in image metadata\. Flavor disk is 1073741824 bytes, minimum size is 2147483648 bytes\.$/,
    );
    const untouched = await getServer(compute, id);
    assert.deepEqual(
      [untouched.status, untouched['OS-EXT-STS:task_state'], imageOf(untouched)],
      ['ACTIVE', null, images.a],
    );
    await refusal(
      createServer(compute, { name: 'hungry', flavorRef: flavors.small, imageRef: hungry, networks: 'none' }),
    );
    // The project's quota is ten servers, which the tests after this one use up.
    await deleteServer(compute, id);
    settle();
  });

  it('at 2.93 a rebuild on a baremetal flavor is accepted, then fails as Ironic refuses reimage_boot_volume', async () => {
    const id = await boot('metal', flavors.metal);
    settle();
    assert.equal((await getServer(compute, id)).status, 'ACTIVE');
    await compute.request({
      method: 'POST',
      path: '/servers/{id}/action',
      params: { id },
      headers: { 'OpenStack-API-Version': 'compute 2.93', 'X-OpenStack-Nova-API-Version': '2.93' },
      body: { rebuild: { imageRef: images.b } },
    });
    settle();
    const failed = await getServer(compute, id);
    assert.equal(failed.status, 'ERROR');
    assert.match(failed.fault?.message ?? '', /reimage_boot_volume/);
  });

  it('foreign operations: a rebuild onto another image, an evacuation, ERROR and recovery with a stale fault, delete', async () => {
    const id = await boot('foreign');
    settle();
    const first = await getServer(compute, id);
    assert.equal(await cloud.control('POST', `/nova/servers/${id}/foreign-rebuild`, { imageRef: images.b }), 204);
    assert.equal((await getServer(compute, id)).status, 'REBUILD');
    settle();
    assert.equal(imageOf(await getServer(compute, id)), images.b);

    cloud.emulator.nova.controls.evacuate(id);
    settle();
    const evacuated = await getServer(admin, id);
    assert.equal(evacuated['OS-EXT-SRV-ATTR:host'], 'emulator-compute-2');
    assert.notEqual(evacuated['OS-SRV-USG:launched_at'], first['OS-SRV-USG:launched_at']);

    assert.equal(await cloud.control('POST', `/nova/servers/${id}/error`, { message: 'host died' }), 204);
    assert.equal((await getServer(compute, id)).status, 'ERROR');
    assert.equal(await cloud.control('POST', `/nova/servers/${id}/recover`), 204);
    const recovered = await getServer(compute, id);
    assert.equal(recovered.status, 'ACTIVE');
    assert.equal(recovered.fault?.message, 'host died', 'a recovered server keeps its stale fault');

    assert.equal(await cloud.control('POST', `/nova/servers/${id}/delete`), 204);
    await assert.rejects(getServer(compute, id), NotFoundError);
  });

  it('a failed foreign rebuild settles ERROR with the ref left on its target', async () => {
    const id = await boot('foreign-fail');
    settle();
    const body = { imageRef: images.b, fail: true };
    assert.equal(await cloud.control('POST', `/nova/servers/${id}/foreign-rebuild`, body), 204);
    assert.equal((await getServer(compute, id)).status, 'REBUILD');
    settle();
    const failed = await getServer(compute, id);
    assert.deepEqual([failed.status, failed['OS-EXT-STS:task_state'], imageOf(failed)], ['ERROR', null, images.b]);
  });

  it('policy switches hide task_state and launched_at from project members, not from admins', async () => {
    const id = await boot('hidden');
    settle();
    assert.equal(await cloud.control('PUT', '/nova/policy', { hideTaskState: true, hideLaunchedAt: true }), 200);
    const seen = await getServer(compute, id);
    assert.equal('OS-EXT-STS:task_state' in seen, false);
    assert.equal('OS-SRV-USG:launched_at' in seen, false);
    assert.ok('OS-EXT-STS:task_state' in (await getServer(admin, id)));
  });

  it('the name filter is an unanchored regular expression; lists page with servers_links', async () => {
    for (const name of ['re-web', 'web-re', 'other']) await boot(name);
    const names = (await listServers(compute, { name: 'web' })).map((s) => s.name).sort();
    assert.deepEqual(names, ['re-web', 'web-re']);
    const all = await listServers(compute);
    const paged = await listServers(compute, {}, { pageSize: 2 });
    assert.deepEqual(
      paged.map((s) => s.id),
      all.map((s) => s.id),
    );
    assert.ok(all.length > 2);
  });
});

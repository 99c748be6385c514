import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, getServer } from '../openstack/compute.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../openstack/errors.ts';
import { createImage } from '../openstack/image.ts';
import { listResourceProviders, type PlacementClient } from '../openstack/placement.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Placement emulation', () => {
  let cloud: CloudFixture;
  let placement: PlacementClient;

  before(async () => {
    cloud = await cloudFixture();
    placement = cloud.admin.client('placement');
  });
  after(() => cloud.close());

  it('Nova schedules a flavor asking for a custom resource only once a provider has that inventory', async () => {
    const compute = cloud.admin.client('compute');
    const { body } = await compute.request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'gold', vcpus: 1, ram: 512, disk: 1 } },
    });
    await compute.request({
      method: 'POST',
      path: '/flavors/{id}/os-extra_specs',
      params: { id: body.flavor.id },
      body: { extra_specs: { 'resources:CUSTOM_GOLD': '1', 'trait:CUSTOM_FAST': 'required' } },
    });
    const glance = cloud.admin.client('image');
    const image = await createImage(glance, { name: 'i', visibility: 'public' });
    await glance.request({
      method: 'PUT',
      path: '/images/{id}/file',
      params: { id: image.id },
      contentType: 'application/octet-stream',
      body: 'x',
    });
    const boot = async () => {
      const { id } = await createServer(compute, {
        name: 's',
        flavorRef: body.flavor.id,
        imageRef: image.id,
        networks: 'none',
      });
      cloud.emulator.control.advance(1000);
      return (await getServer(compute, id)).status;
    };
    assert.equal(await boot(), 'ERROR');

    await placement.request({ method: 'PUT', path: '/resource_classes/{name}', params: { name: 'CUSTOM_GOLD' } });
    await placement.request({ method: 'PUT', path: '/traits/{name}', params: { name: 'CUSTOM_FAST' } });
    const { body: rp } = await placement.request<{ uuid: string; generation: number }>({
      method: 'POST',
      path: '/resource_providers',
      body: { name: 'gold-node' },
    });
    const { body: inv } = await placement.request<{ resource_provider_generation: number }>({
      method: 'PUT',
      path: '/resource_providers/{uuid}/inventories',
      params: { uuid: rp.uuid },
      body: { resource_provider_generation: rp.generation, inventories: { CUSTOM_GOLD: { total: 1 } } },
    });
    assert.equal(await boot(), 'ERROR', 'the required trait is still missing');
    await placement.request({
      method: 'PUT',
      path: '/resource_providers/{uuid}/traits',
      params: { uuid: rp.uuid },
      body: { resource_provider_generation: inv.resource_provider_generation, traits: ['CUSTOM_FAST'] },
    });
    assert.equal(await boot(), 'ACTIVE');
    assert.deepEqual(
      (await listResourceProviders(placement, { resources: { CUSTOM_GOLD: 1 }, forbiddenTraits: ['CUSTOM_FAST'] }))
        .length,
      0,
    );
  });

  it('a custom resource class is deleted once no inventory uses it (409 before, 404 after, 400 standard)', async () => {
    const del = (name: string) =>
      placement.request({ method: 'DELETE', path: '/resource_classes/{name}', params: { name } });
    await placement.request({ method: 'PUT', path: '/resource_classes/{name}', params: { name: 'CUSTOM_SPARE' } });
    await del('CUSTOM_SPARE');
    await assert.rejects(del('CUSTOM_SPARE'), NotFoundError);
    await assert.rejects(del('CUSTOM_GOLD'), ConflictError);
    await assert.rejects(del('VCPU'), BadRequestError);
  });

  it('a custom trait needs the CUSTOM_ prefix; !forbidden needs 1.22', async () => {
    await assert.rejects(
      placement.request({ method: 'PUT', path: '/traits/{name}', params: { name: 'FAST' } }),
      BadRequestError,
    );
    await assert.rejects(
      placement.request({
        method: 'GET',
        path: '/resource_providers',
        query: { required: '!CUSTOM_FAST' },
        headers: { 'OpenStack-API-Version': 'placement 1.21' },
      }),
      BadRequestError,
    );
  });
});

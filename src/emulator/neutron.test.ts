import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer, deleteServer, getServer, type ComputeClient } from '../openstack/compute.ts';
import { ConflictError, ForbiddenError } from '../openstack/errors.ts';
import { createNetwork, createSubnet, listNetworks, listPorts, type NetworkClient } from '../openstack/network.ts';
import { createImage } from '../openstack/image.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Neutron emulation', () => {
  let cloud: CloudFixture;
  let neutron: NetworkClient;
  let compute: ComputeClient;
  let flavor = '';
  let image = '';

  before(async () => {
    cloud = await cloudFixture();
    const tenant = await cloud.projectSession('tenant', ['member']);
    neutron = tenant.client('network');
    compute = tenant.client('compute');
    const { body } = await cloud.admin.client('compute').request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'small', vcpus: 1, ram: 512, disk: 1 } },
    });
    flavor = body.flavor.id;
    const glance = cloud.admin.client('image');
    const created = await createImage(glance, { name: 'img', visibility: 'public' });
    await glance.request({
      method: 'PUT',
      path: '/images/{id}/file',
      params: { id: created.id },
      contentType: 'application/octet-stream',
      body: 'x',
    });
    image = created.id;
  });
  after(() => cloud.close());

  it('Nova plugs a server into a network through a compute:nova port, keyed by network name, and unplugs it', async () => {
    const network = await createNetwork(neutron, { name: 'web' });
    await createSubnet(neutron, { network_id: network.id, name: 'web-v4', cidr: '10.1.0.0/24', ip_version: 4 });
    const { id } = await createServer(compute, {
      name: 's',
      flavorRef: flavor,
      imageRef: image,
      networks: [{ uuid: network.id }],
    });
    cloud.emulator.control.advance(1000);
    const server = await getServer(compute, id);
    assert.equal(server.status, 'ACTIVE');
    const [nic] = server.addresses.web ?? [];
    assert.equal(nic?.addr, '10.1.0.2');
    const ports = await listPorts(neutron, { deviceID: id });
    assert.deepEqual(
      ports.map((p) => [p.device_owner, p.fixed_ips[0]?.ip_address, p.mac_address]),
      [['compute:nova', '10.1.0.2', nic['OS-EXT-IPS-MAC:mac_addr']]],
    );
    await deleteServer(compute, id);
    cloud.emulator.control.advance(1000);
    assert.deepEqual(await listPorts(neutron, { deviceID: id }), []);
  });

  it('policy: a project cannot make provider networks; a VLAN id in use is 409 VlanIdInUse', async () => {
    const vlan = {
      'provider:network_type': 'vlan',
      'provider:physical_network': 'physnet1',
      'provider:segmentation_id': 150,
    };
    await assert.rejects(createNetwork(neutron, { name: 'p', ...vlan }), ForbiddenError);
    const admin = cloud.admin.client('network');
    await createNetwork(admin, { name: 'p1', ...vlan });
    await assert.rejects(
      createNetwork(admin, { name: 'p2', ...vlan }),
      (e: unknown) => e instanceof ConflictError && e.fault.type === 'VlanIdInUse',
    );
    // The project sees only its own networks (and shared or external ones), never the admin's provider network.
    assert.ok(!(await listNetworks(neutron)).some((n) => n.name === 'p1'));
  });
});

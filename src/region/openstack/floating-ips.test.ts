import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cloudFixture, type CloudFixture } from '../../emulator/testing/cloud.ts';
import {
  addRouterInterface,
  createFloatingIP,
  createNetwork,
  createPort,
  createRouter,
  createSubnet,
  deletePort,
  listFloatingIPs,
  type Network,
} from '../../openstack/network.ts';
import { allocateFloatingIP } from './floating-ips.ts';
import type { IdentityClient } from './principals.ts';

describe('allocateFloatingIP', () => {
  let cloud: CloudFixture;
  let client: IdentityClient<'network'>;
  let projectID: string;
  let external: Network;
  let tenant: Network;

  before(async () => {
    cloud = await cloudFixture();
    const admin = cloud.admin.client('network');
    external = await createNetwork(admin, { name: 'public', 'router:external': true });
    await createSubnet(admin, { network_id: external.id, name: 'public', cidr: '203.0.113.0/24', ip_version: 4 });
    const session = await cloud.projectSession('identity', ['member']);
    projectID = (await session.token()).project?.id ?? '';
    client = session.client('network') as IdentityClient<'network'>;
    tenant = await createNetwork(client, { name: 'tenant' });
    const subnet = await createSubnet(client, {
      network_id: tenant.id,
      name: 'tenant',
      cidr: '10.0.0.0/24',
      ip_version: 4,
    });
    const router = await createRouter(client, { name: 'tenant', external_gateway_info: { network_id: external.id } });
    await addRouterInterface(client, router.id, { subnet_id: subnet.id });
  });
  after(() => cloud.close());

  const port = (name: string) => createPort(client, { network_id: tenant.id, name });

  it("releases the project's floating IPs whose port went, keeps attached ones, and attaches the new one", async () => {
    const kept = await port('server-kept');
    const keptIP = await createFloatingIP(client, { floating_network_id: external.id, port_id: kept.id });
    const lost = await port('server-lost');
    const lostIP = await createFloatingIP(client, { floating_network_id: external.id, port_id: lost.id });
    // Deleted out of band: Neutron detaches the floating IP and keeps it.
    await deletePort(client, lost.id);
    const replacement = await port('server-lost');

    const made = await allocateFloatingIP(client, projectID, external.id, replacement.id);

    const held = await listFloatingIPs(client, { projectID: projectID });
    assert.deepEqual(held.map((ip) => ip.id).sort(), [keptIP.id, made.id].sort());
    assert.ok(!held.some((ip) => ip.id === lostIP.id), 'the orphan is released');
    assert.equal(held.find((ip) => ip.id === made.id)?.port_id, replacement.id);
    assert.equal(held.find((ip) => ip.id === keptIP.id)?.port_id, kept.id);
  });
});

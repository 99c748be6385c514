import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getNode, getNodeByInstanceUuid, type BaremetalClient } from '../openstack/baremetal.ts';
import { NotFoundError } from '../openstack/errors.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Ironic emulation and its controls', () => {
  let cloud: CloudFixture;
  let ironic: BaremetalClient;
  let uuid = '';

  before(async () => {
    cloud = await cloudFixture();
    ironic = cloud.admin.client('baremetal');
    const { body } = await ironic.request<{ uuid: string; provision_state: string }>({
      method: 'POST',
      path: '/nodes',
      body: { name: 'n1', driver: 'fake-hardware' },
    });
    uuid = body.uuid;
  });
  after(() => cloud.close());

  const provision = (target: string) =>
    ironic.request({ method: 'PUT', path: '/nodes/{id}/states/provision', params: { id: uuid }, body: { target } });

  it('enroll → manageable → available → active → available, each through its transient state', async () => {
    assert.equal((await getNode(ironic, uuid)).provision_state, 'enroll');
    for (const [target, via, to] of [
      ['manage', 'verifying', 'manageable'],
      ['provide', 'cleaning', 'available'],
      ['active', 'deploying', 'active'],
      ['deleted', 'deleting', 'available'],
    ] as const) {
      await provision(target);
      const during = await getNode(ironic, uuid);
      assert.deepEqual([during.provision_state, during.target_provision_state], [via, to]);
      cloud.emulator.control.advance(1000);
      assert.equal((await getNode(ironic, uuid)).provision_state, to);
    }
  });

  it('control: move a node to any state (POST /_emulator/ironic/nodes/{node}/state)', async () => {
    assert.equal(
      await cloud.control('POST', '/ironic/nodes/n1/state', { provision_state: 'deploy failed', last_error: 'boom' }),
      204,
    );
    const node = await getNode(ironic, uuid);
    assert.deepEqual([node.provision_state, node.last_error], ['deploy failed', 'boom']);
    assert.equal(await cloud.control('POST', '/ironic/nodes/absent/state', { provision_state: 'active' }), 404);
  });

  it('node detail needs admin or a system reader: a project member gets 404', async () => {
    const instance = '11111111-2222-3333-4444-555555555555';
    await ironic.request({
      method: 'PATCH',
      path: '/nodes/{id}',
      params: { id: uuid },
      body: [{ op: 'add', path: '/instance_uuid', value: instance }],
    });
    assert.equal((await getNodeByInstanceUuid(ironic, instance))?.uuid, uuid);
    const member = (await cloud.projectSession('tenant', ['member'])).client('baremetal');
    await assert.rejects(getNode(member, uuid), NotFoundError);
    assert.equal(await getNodeByInstanceUuid(member, instance), undefined);
  });
});

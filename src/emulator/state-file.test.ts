/**
 * A persistent emulator (stateFile): what one acknowledged is on disk before its answer, so a second emulator
 * opened on the file while the first still runs — the state a kill -9 leaves — resumes the same cloud: the same
 * records and ids, the same tokens, and the transitions that were still due.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createVolume, getVolume } from '../openstack/blockstorage.ts';
import { createServer, getServer } from '../openstack/compute.ts';
import { createProject } from '../openstack/identity.ts';
import { createImage, uploadImageData } from '../openstack/image.ts';
import { createLoadBalancer, getLoadBalancer } from '../openstack/loadbalancer.ts';
import { createNetwork, createSubnet } from '../openstack/network.ts';
import { Emulator } from './emulator.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';
import { StateFile, STATE_FORMAT } from './state-file.ts';

describe('a persistent emulator', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-emulator-state-'));
  const stateFile = join(dir, 'cloud.db');
  let cloud: CloudFixture;
  before(async () => {
    cloud = await cloudFixture({ stateFile });
  });
  after(async () => {
    await cloud.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the file holding the cloud’s passwords, and SQLite’s files beside it, are the owner’s alone', () => {
    for (const suffix of ['', '-wal', '-shm']) {
      assert.equal((statSync(`${stateFile}${suffix}`).mode & 0o777).toString(8), '600', `cloud.db${suffix}`);
    }
  });

  it('a second emulator on the file resumes the cloud as acknowledged: records, ids, tokens, pending work', async () => {
    const admin = cloud.admin;
    assert.equal(cloud.emulator.resumed, false);
    const project = await createProject(admin.client('identity'), { name: 'kept', domain_id: 'default' });
    const { body } = await admin.client('compute').request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: 'f1', vcpus: 1, ram: 512, disk: 1 } },
    });
    const image = await createImage(admin.client('image'), {
      name: 'img',
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
    });
    await uploadImageData(admin.client('image'), image.id, 'data');
    const network = await createNetwork(admin.client('network'), { name: 'net' });
    const subnet = await createSubnet(admin.client('network'), {
      network_id: network.id,
      name: 'subnet',
      cidr: '10.9.0.0/24',
      ip_version: 4,
    });
    // Accepted but not finished: each has a transition still due when the second emulator opens the file.
    const server = await createServer(admin.client('compute'), {
      name: 'vm',
      flavorRef: body.flavor.id,
      imageRef: image.id,
      networks: [{ uuid: network.id }],
    });
    const volume = await createVolume(admin.client('block-storage'), { size: 1, name: 'vol' });
    const lb = await createLoadBalancer(admin.client('load-balancer'), { name: 'lb', vip_subnet_id: subnet.id });
    const token = (await admin.token()).value;

    const resumed = await Emulator.start({ stateFile, clock: cloud.clock });
    try {
      assert.equal(resumed.resumed, true);
      assert.notEqual(resumed.url, cloud.emulator.url, 'the old port is taken: it listens on another');
      assert.deepEqual(resumed.control.dump(), cloud.emulator.control.dump(), 'the same records');
      const project2 = await fetch(`${resumed.authUrl}/projects/${project.id}`, { headers: { 'x-auth-token': token } });
      assert.equal(project2.status, 200, 'a token issued before is still valid');

      resumed.control.advance(1_000);
      const nova = resumed.nova.state.servers.get(server.id);
      assert.equal(nova?.vmState, 'active', 'the build that was due finished after the restart');
      const dump = resumed.control.dump() as {
        cinder: { volumes: { id: string; status: string }[] };
        octavia: { loadbalancers: { id: string; provisioning: string }[] };
      };
      assert.deepEqual(
        dump.cinder.volumes.map((v) => [v.id, v.status]),
        [[volume.id, 'available']],
      );
      assert.deepEqual(
        dump.octavia.loadbalancers.map((l) => [l.id, l.provisioning]),
        [[lb.id, 'ACTIVE']],
      );
    } finally {
      await resumed.close();
    }
    // The first one, meanwhile, still answers from memory as before.
    cloud.clock.advance(1_000);
    assert.equal((await getServer(admin.client('compute'), server.id)).status, 'ACTIVE');
    assert.equal((await getVolume(admin.client('block-storage'), volume.id)).status, 'available');
    assert.equal((await getLoadBalancer(admin.client('load-balancer'), lb.id)).provisioning_status, 'ACTIVE');
  });

  it('a file another format wrote is refused with what to do, not misread', async () => {
    const path = join(dir, 'other.db');
    const file = new StateFile(path);
    file.write(new Map());
    file.close();
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'format'").run(String(STATE_FORMAT + 1));
    db.close();
    await assert.rejects(Emulator.start({ stateFile: path }), /format .* remove the file to start a new cloud/);
  });
});

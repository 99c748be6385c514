/**
 * Contract: a volume attached to a server through the REST API, end to end on the region service in process
 * (service.ts) with the non-admin region credential: the server reads it in status.volumes and Nova holds the
 * attachment; a second server asking for it is refused (409) and the volume cannot be deleted while held; a PUT
 * that leaves it out detaches it; deleting the server with it attached again detaches first; deleting both (and the
 * network) leaves nothing in Nova or Cinder, listed as admin.
 *
 * Runs against the dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listVolumeTypes, type Volume as CinderVolume } from '../../src/openstack/blockstorage.ts';
import { listServers, type VolumeAttachment } from '../../src/openstack/compute.ts';
import { volumeName } from '../../src/region/openstack/names.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { contractService, expectStatus, type ContractService } from './service.ts';

const cloud = await contractCloud();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 300_000, intervalMs: cloudTarget === 'emulator' ? 100 : 2_000 };

interface Read {
  metadata: { id: string; name: string; provisioningStatus: string };
  status: {
    volumes?: { volumeId: string; provisioningStatus: string; device?: string; message?: string }[];
    serverId?: string;
  };
}

describe('volume attachments through the REST API', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  let s: ContractService;
  let volumeClass = '';
  const made: { kind: 'servers' | 'volumes' | 'networks'; id: string }[] = [];

  before(async () => {
    const [type] = await listVolumeTypes(c.admin.client('block-storage'));
    volumeClass = type?.id ?? assert.fail('a public volume type');
    s = await contractService(c, { blockStorage: { volumeClasses: { selector: { ids: [volumeClass] } } } });
  });

  after(async () => {
    // Whatever a failed test left, newest first, each waited for until gone.
    for (const { kind, id } of made.reverse()) {
      await s.call('DELETE', `/api/v2/${kind}/${id}`).catch(() => undefined);
      await waitFor(
        () => s.call('GET', `/api/v2/${kind}/${id}`),
        (r) => r.status === 404,
        SETTLE,
      ).catch(() => {});
    }
    await s.close();
    await c.close();
  });

  const create = async (kind: 'servers' | 'volumes' | 'networks', body: unknown): Promise<string> => {
    const { metadata } = expectStatus(await s.call<Read>('POST', `/api/v2/${kind}`, body), 201);
    made.push({ kind, id: metadata.id });
    return metadata.id;
  };
  const read = async (kind: 'servers' | 'volumes', id: string) =>
    expectStatus(await s.call<Read>('GET', `/api/v2/${kind}/${id}`), 200);
  const settled = (kind: 'servers' | 'volumes', id: string, done: (r: Read) => boolean, what: string) =>
    waitFor(() => read(kind, id), done, { ...SETTLE, what });
  const deleted = async (kind: 'servers' | 'volumes' | 'networks', id: string) => {
    expectStatus(await s.call('DELETE', `/api/v2/${kind}/${id}`), 202);
    await waitFor(
      () => s.call('GET', `/api/v2/${kind}/${id}`),
      (r) => r.status === 404,
      { ...SETTLE, what: `${kind} gone` },
    );
  };

  /** The Nova server of this display name and its attachments, as the admin sees them. */
  const nova = async (name: string) => {
    const compute = c.admin.client('compute');
    const servers = (await listServers(compute, { allTenants: true })).filter((server) => server.name === name);
    const attachments = await Promise.all(
      servers.map(async (server) => {
        const { body } = await compute.request<{ volumeAttachments: VolumeAttachment[] }>({
          method: 'GET',
          path: '/servers/{server_id}/os-volume_attachments',
          params: { server_id: server.id },
        });
        return body.volumeAttachments.map((a) => a.volumeId);
      }),
    );
    return { ids: servers.map((server) => server.id), attachments: attachments.flat() };
  };
  /** The Cinder volumes behind a Volume, as the admin sees them. */
  const cinder = async (id: string): Promise<CinderVolume[]> => {
    const { body } = await c.admin.client('block-storage').request<{ volumes: CinderVolume[] }>({
      method: 'GET',
      path: '/volumes/detail',
      query: { all_tenants: 1, name: volumeName(id) },
    });
    return body.volumes.filter((v) => v.name === volumeName(id));
  };

  it('attach, see it in status.volumes and in Nova; refuse it elsewhere; detach; delete with it on; nothing left', async () => {
    const region = `/api/v2/regions/${s.regionID}`;
    const flavors = expectStatus(await s.call<Read[]>('GET', `${region}/flavors`), 200);
    const images = expectStatus(await s.call<Read[]>('GET', `${region}/images`), 200);
    const flavorID = flavors.find((f) => f.metadata.name === 'or.small')?.metadata.id ?? assert.fail('or.small');
    const imageID = images.find((i) => i.metadata.name === 'or-image-a')?.metadata.id ?? assert.fail('or-image-a');

    const network = await create('networks', {
      metadata: { name: c.name('att-net') },
      spec: {
        organizationId: s.organizationID,
        projectId: s.projectID,
        regionId: s.regionID,
        prefix: '10.41.0.0/24',
        dnsNameservers: [],
      },
    });
    const volume = await create('volumes', {
      metadata: { name: c.name('att-vol') },
      spec: { networkId: network, volumeClassId: volumeClass, sizeGiB: 1 },
    });
    const name = c.name('att-server');
    const server = await create('servers', {
      metadata: { name },
      spec: { networkId: network, flavorId: flavorID, imageId: imageID, volumes: [{ volumeId: volume }] },
    });

    const attached = await settled(
      'servers',
      server,
      (r) =>
        r.metadata.provisioningStatus === 'provisioned' && r.status.volumes?.[0]?.provisioningStatus === 'provisioned',
      'the server provisioned with its volume attached',
    );
    const [row] = attached.status.volumes ?? [];
    assert.equal(row?.volumeId, volume);
    assert.match(row.device ?? '', /^\/dev\//, 'the device the cloud chose');
    const [cinderVolume] = await cinder(volume);
    assert.ok(cinderVolume, 'the Cinder volume');
    const inNova = await nova(name);
    assert.equal(inNova.ids.length, 1, 'one Nova server');
    assert.deepEqual(inNova.attachments, [cinderVolume.id], 'Nova holds the attachment');
    assert.equal((await read('volumes', volume)).status.serverId, server, 'the volume names its server');

    // Held: another server cannot have it, and it cannot be deleted.
    const second = await s.call<{ errors?: { field: string }[] }>('POST', '/api/v2/servers', {
      metadata: { name: c.name('att-other') },
      spec: { networkId: network, flavorId: flavorID, imageId: imageID, volumes: [{ volumeId: volume }] },
    });
    assert.equal(second.status, 409);
    assert.deepEqual(
      second.body.errors?.map((e) => e.field),
      ['spec.volumes[0].volumeId'],
    );
    assert.equal((await s.call('DELETE', `/api/v2/volumes/${volume}`)).status, 409);

    // Detach: a PUT that leaves it out.
    expectStatus(
      await s.call('PUT', `/api/v2/servers/${server}`, {
        metadata: { name },
        spec: { flavorId: flavorID, imageId: imageID },
      }),
      202,
    );
    await settled(
      'servers',
      server,
      (r) => r.metadata.provisioningStatus === 'provisioned' && r.status.volumes === undefined,
      'the volume detached',
    );
    assert.deepEqual((await nova(name)).attachments, [], 'Nova holds no attachment');
    assert.deepEqual(
      (await cinder(volume)).map((v) => [v.status, v.attachments.length]),
      [['available', 0]],
    );
    assert.equal((await read('volumes', volume)).status.serverId, undefined, 'the claim is released');

    // Attached again, then the server deleted with it on: the delete detaches first and releases the claim.
    expectStatus(
      await s.call('PUT', `/api/v2/servers/${server}`, {
        metadata: { name },
        spec: { flavorId: flavorID, imageId: imageID, volumes: [{ volumeId: volume }] },
      }),
      202,
    );
    await settled(
      'servers',
      server,
      (r) => r.status.volumes?.[0]?.provisioningStatus === 'provisioned',
      'the volume attached again',
    );
    assert.deepEqual((await nova(name)).attachments, [cinderVolume.id]);
    await deleted('servers', server);
    assert.deepEqual((await nova(name)).ids, [], 'no Nova server left');
    assert.deepEqual(
      (await cinder(volume)).map((v) => [v.status, v.attachments.length]),
      [['available', 0]],
    );
    assert.equal((await read('volumes', volume)).status.serverId, undefined, 'the claim went with the server');

    await deleted('volumes', volume);
    await deleted('networks', network);
    assert.deepEqual(await cinder(volume), [], 'no Cinder volume left');
  });
});

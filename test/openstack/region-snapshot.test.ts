/**
 * Contract: a server snapshot through the REST API, end to end on the region service in process (service.ts) with
 * the non-admin region credential: the image Glance holds carries the organization, identity and OS properties and
 * is public (published by the region credential, deploy/policies/glance.yaml); it appears in the region's image list
 * for its organization only; a second server boots from it; everything is deleted after.
 *
 * One step plays the hypervisor's part on the dev cloud: Nova's fake driver takes a snapshot without uploading any
 * data (nova/virt/fake.py `snapshot` only moves the task state), so the image would stay `queued` forever. Once Nova
 * reports the snapshot done, the test uploads a few bytes as the admin, as libvirt would upload the disk. The
 * emulator models a real hypervisor and uploads on its own; the step then finds the image active and does nothing.
 * Deleting the network then deletes its identity, and with it the snapshot (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
 *
 * Runs against the dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getServer, listServers } from '../../src/openstack/compute.ts';
import { isNotFound } from '../../src/openstack/errors.ts';
import { deleteImage, getImage, updateImage, uploadImageData } from '../../src/openstack/image.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { contractService, expectStatus, type ContractService } from './service.ts';

const cloud = await contractCloud();
/** A bound on waiting for the cloud (and the image list's one-minute refresh), not an assertion about speed. */
const SETTLE = { timeoutMs: 300_000, intervalMs: cloudTarget === 'emulator' ? 200 : 2_000 };

interface Read {
  metadata: { id: string; name: string; provisioningStatus: string };
  status: { state?: string; powerState?: string };
}

describe('server snapshots through the REST API', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  let s: ContractService;
  const made: { kind: 'servers' | 'networks'; id: string }[] = [];
  const images: string[] = [];

  before(async () => {
    s = await contractService(c);
  });

  after(async () => {
    for (const { kind, id } of made.reverse()) {
      await s.call('DELETE', `/api/v2/${kind}/${id}`).catch(() => undefined);
      await waitFor(
        () => s.call('GET', `/api/v2/${kind}/${id}`),
        (r) => r.status === 404,
        SETTLE,
      ).catch(() => {});
    }
    for (const id of images) await deleteImage(c.admin.client('image'), id).catch(() => {});
    await s.close();
    await c.close();
  });

  const create = async (kind: 'servers' | 'networks', body: unknown): Promise<string> => {
    const { metadata } = expectStatus(await s.call<Read>('POST', `/api/v2/${kind}`, body), 201);
    made.push({ kind, id: metadata.id });
    return metadata.id;
  };
  const provisioned = (id: string, what: string) =>
    waitFor(
      async () => expectStatus(await s.call<Read>('GET', `/api/v2/servers/${id}`), 200),
      // Provisioned is the spec realised; Nova takes a snapshot only once the server runs.
      (r) => r.metadata.provisioningStatus === 'provisioned' && r.status.powerState === 'Running',
      { ...SETTLE, what },
    );
  const novaServer = async (name: string) => {
    const [found, ...more] = (await listServers(c.admin.client('compute'), { allTenants: true })).filter(
      (server) => server.name === name,
    );
    assert.ok(found !== undefined && more.length === 0, `one Nova server ${name}`);
    return getServer(c.admin.client('compute'), found.id);
  };
  const regionImages = async () =>
    expectStatus(await s.call<Read[]>('GET', `/api/v2/regions/${s.regionID}/images`), 200);

  it('snapshot a server: the image is public with its owners, listed for its organization, and boots a server', async () => {
    const flavors = expectStatus(await s.call<Read[]>('GET', `/api/v2/regions/${s.regionID}/flavors`), 200);
    const flavorID = flavors.find((f) => f.metadata.name === 'or.small')?.metadata.id ?? assert.fail('or.small');
    const source = (await regionImages()).find((i) => i.metadata.name === 'or-image-a') ?? assert.fail('or-image-a');
    const network = await create('networks', {
      metadata: { name: c.name('snap-net') },
      spec: {
        organizationId: s.organizationID,
        projectId: s.projectID,
        regionId: s.regionID,
        prefix: '10.43.0.0/24',
        dnsNameservers: [],
      },
    });
    const name = c.name('snap-source');
    const server = await create('servers', {
      metadata: { name },
      spec: { networkId: network, flavorId: flavorID, imageId: source.metadata.id },
    });
    await provisioned(server, 'the source server provisioned');

    const snapshotName = c.name('snapshot');
    const taken = expectStatus(
      await s.call<Read>('POST', `/api/v2/servers/${server}/snapshot`, { metadata: { name: snapshotName }, spec: {} }),
      201,
    );
    const imageID = taken.metadata.id;
    images.push(imageID);
    assert.equal(taken.metadata.name, snapshotName);

    const glance = c.admin.client('image');
    const held = (await getImage(glance, imageID)) as unknown as Record<string, unknown>;
    assert.equal(held.visibility, 'public', 'published');
    assert.equal(held['unikorn:organization:id'], s.organizationID);
    assert.ok(typeof held['unikorn:identity_id'] === 'string' && held['unikorn:identity_id'] !== '');
    assert.equal(held['unikorn:os:distro'], 'ubuntu', "the source image's OS");
    assert.equal(held['unikorn:virtualization'], 'virtualized');

    // The hypervisor's part (see the header): wait for Nova to finish the snapshot, then upload if nothing did.
    await waitFor(
      () => novaServer(name),
      (n) => n['OS-EXT-STS:task_state'] === null || n['OS-EXT-STS:task_state'] === undefined,
      { ...SETTLE, what: 'the snapshot task done' },
    );
    const pending = await getImage(glance, imageID);
    if (pending.status === 'queued') {
      // libvirt sets the formats as it uploads; the fake driver set nothing.
      if (pending.disk_format === null || pending.container_format === null) {
        await updateImage(glance, imageID, [
          { op: 'replace', property: 'disk_format', value: 'raw' },
          { op: 'replace', property: 'container_format', value: 'bare' },
        ]);
      }
      await uploadImageData(glance, imageID, `snapshot of ${name}\n`.repeat(64));
    }

    const listed = await waitFor(
      async () => (await regionImages()).find((i) => i.metadata.id === imageID),
      (i) => i?.status.state === 'ready',
      { ...SETTLE, what: "the snapshot ready in the region's image list" },
    );
    assert.equal(listed?.metadata.name, snapshotName);

    const booted = c.name('snap-booted');
    const second = await create('servers', {
      metadata: { name: booted },
      spec: { networkId: network, flavorId: flavorID, imageId: imageID },
    });
    await provisioned(second, 'the server booted from the snapshot');
    const nova = await novaServer(booted);
    assert.equal(nova.status, 'ACTIVE');
    assert.equal(typeof nova.image === 'string' ? '' : nova.image.id, imageID, 'Nova booted it from the snapshot');
  });

  it('the snapshot image goes with its identity: deleting the network (and so its identity) deletes it', async () => {
    const imageID = images[0] ?? assert.fail('the snapshot test made an image');
    // A v2 network is its own identity's: its delete cascades to the servers, then deletes the identity.
    for (const { kind, id } of [...made].reverse()) {
      assert.equal((await s.call('DELETE', `/api/v2/${kind}/${id}`)).status, 202, `delete ${kind} ${id}`);
    }
    const network = made.find((m) => m.kind === 'networks') ?? assert.fail('a network');
    await waitFor(
      () => s.call('GET', `/api/v2/networks/${network.id}`),
      (r) => r.status === 404,
      { ...SETTLE, what: 'the network and its identity deleted' },
    );
    const gone = await waitFor(
      () =>
        getImage(c.admin.client('image'), imageID).then(
          () => false,
          (e: unknown) => isNotFound(e),
        ),
      (notFound) => notFound,
      { ...SETTLE, what: 'the snapshot image deleted with its identity' },
    );
    assert.ok(gone, 'Glance no longer holds the snapshot');
    // At once in one process (the teardown tells the image cache); otherwise by the next refresh.
    await waitFor(
      async () => (await regionImages()).map((i) => i.metadata.id),
      (listed) => !listed.includes(imageID),
      { ...SETTLE, what: "the region's image list without the snapshot" },
    );
    made.length = 0;
  });
});

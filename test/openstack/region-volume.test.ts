/**
 * Contract: the region provider's Volume lifecycle and server attachment (src/region/openstack/volume/) with the
 * region's non-admin credential from `region configure`, through a real identity the provider creates: volume
 * create → attach to a server → detach → delete, and nothing left behind as the admin lists it.
 *
 * The server is made directly with Nova as the identity's own user (the smallest server the dev cloud boots:
 * `or.small`, `or-image-a`, no network): the server provider is another slice.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { listVolumeTypes, type Volume } from '../../src/openstack/blockstorage.ts';
import { createServer, deleteServer, getServer, listFlavors, type ComputeClient } from '../../src/openstack/compute.ts';
import { NotFoundError } from '../../src/openstack/errors.ts';
import { listImages } from '../../src/openstack/image.ts';
import { openstackIdentityType } from '../../src/region/apis/index.ts';
import type { IdentityInput, ServerInput, VolumeInput } from '../../src/region/provider/inputs.ts';
import type { Outcome } from '../../src/region/provider/outcome.ts';
import { createIdentity, deleteIdentity } from '../../src/region/openstack/identity/lifecycle.ts';
import { SystemMetadata, volumeName } from '../../src/region/openstack/names.ts';
import type { RegionRegistry } from '../../src/region/openstack/registry.ts';
import { volumeProviderFor } from '../../src/region/openstack/volume/provider.ts';
import { contractCloud, waitFor } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();
const PATIENCE = { timeoutMs: 120_000, intervalMs: 500 };

/** Repeats a provider pass until it stops yielding, as the controller's 10 s re-check would (faster). */
async function untilSettled<T>(pass: () => Promise<Outcome<T>>, what: string): Promise<Outcome<T>> {
  return waitFor(pass, (o) => o.kind !== 'yield', { ...PATIENCE, what });
}

describe('region volumes (the region credential from `region configure`)', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let registry: RegionRegistry;
  const ctx = { signal: new AbortController().signal };
  const identity: IdentityInput = {
    id: randomUUID(),
    organizationID: 'ct-org',
    projectID: 'ct-project',
    regionID: REGION,
  };
  const cleanups: (() => Promise<unknown>)[] = [];

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
    ({ store, registry } = regions);
  });
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await regions.close();
    await c.close();
  });

  it('creates a volume, attaches it to a server, detaches it and deletes it, leaving nothing behind', async () => {
    const region = await registry.lookup(REGION);
    const deps = { kube: store };
    assert.equal((await createIdentity(region, deps, ctx, identity)).kind, 'done');
    cleanups.push(() => deleteIdentity(region, deps, ctx, identity));
    const { spec } = await store.get(openstackIdentityType, NS, identity.id);
    const own = c.sessionFor(
      { type: 'password', user: { id: spec.userID ?? '' }, password: spec.password ?? '' },
      { kind: 'project', project: { id: spec.projectID ?? '' } },
    );
    const volumes = volumeProviderFor(region, deps);
    const [volumeType] = await listVolumeTypes(own.client('block-storage'));
    const volume: VolumeInput = {
      id: randomUUID(),
      organizationID: identity.organizationID,
      projectID: identity.projectID,
      regionID: REGION,
      networkID: 'ct-network',
      volumeClassID: volumeType?.id ?? assert.fail('a public volume type'),
      sizeGiB: 1,
      tags: [{ name: 'contract.example.com/run', value: c.name('volume') }],
    };
    cleanups.push(() => untilSettled(() => volumes.deleteVolume(ctx, identity, volume), 'cleanup volume'));

    assert.equal((await volumes.createVolume(ctx, identity, volume)).kind, 'yield', 'an accepted create yields');
    assert.equal((await untilSettled(() => volumes.createVolume(ctx, identity, volume), 'volume')).kind, 'done');
    const made = await adminVolumesNamed(volumeName(volume.id));
    const [first, ...others] = made;
    assert.ok(first && others.length === 0, 'one volume');
    assert.equal(first.metadata['region:volume_id'], volume.id);
    assert.equal(first.metadata['contract:run'], c.name('volume'));
    assert.equal(first.metadata.serverID, undefined, 'no legacy keys on volumes');

    const compute = own.client('compute');
    const serverName = c.name(`server-${volume.id.slice(0, 8)}`);
    // A server as the provider makes it: its linkage metadata names the Server (docs/adr/0034).
    const regionServerID = randomUUID();
    const serverID = await bootServer(compute, serverName, regionServerID);
    cleanups.push(() => removeServer(compute, serverID));
    const server: ServerInput = {
      ...identity,
      id: regionServerID,
      name: serverName,
      flavorID: 'unused',
      networkID: 'unused',
      allowedAddressPairs: [],
      securityGroupIDs: [],
      publicIP: false,
      sshInjection: 'none',
      tags: [],
    };

    const attached = await untilSettled(() => volumes.attachVolume(ctx, identity, server, volume), 'attach');
    assert.ok(attached.kind === 'done' && attached.value.device?.startsWith('/dev/'), 'done, with the guest device');
    const detached = await untilSettled(() => volumes.detachVolume(ctx, identity, server, volume), 'detach');
    assert.equal(detached.kind, 'done');
    assert.equal((await untilSettled(() => volumes.deleteVolume(ctx, identity, volume), 'delete')).kind, 'done');
    assert.deepEqual(await adminVolumesNamed(volumeName(volume.id)), [], 'nothing left behind');

    await removeServer(compute, serverID);
    assert.equal((await deleteIdentity(region, deps, ctx, identity)).kind, 'done');
  });

  /** Every project's volumes under the exact name, as the cloud admin sees them. */
  async function adminVolumesNamed(name: string): Promise<Volume[]> {
    const { body } = await c.admin.client('block-storage').request<{ volumes: Volume[] }>({
      method: 'GET',
      path: '/volumes/detail',
      query: { all_tenants: 1, name },
    });
    return body.volumes.filter((v) => v.name === name);
  }

  async function bootServer(compute: ComputeClient, name: string, regionServerID: string): Promise<string> {
    const flavor = (await listFlavors(compute)).find((f) => f.name === 'or.small');
    const image = (await listImages(c.admin.client('image'), { name: 'or-image-a' }))[0];
    const created = await createServer(compute, {
      name,
      flavorRef: flavor?.id ?? assert.fail('flavor or.small'),
      imageRef: image?.id ?? assert.fail('image or-image-a'),
      networks: 'none',
      metadata: { [SystemMetadata.serverID]: regionServerID },
    });
    await waitFor(
      () => getServer(compute, created.id),
      (s) => s.status === 'ACTIVE' || s.status === 'ERROR',
      { ...PATIENCE, what: 'server ACTIVE' },
    ).then((s) => {
      assert.equal(s.status, 'ACTIVE');
    });
    return created.id;
  }

  async function removeServer(compute: ComputeClient, id: string): Promise<void> {
    await deleteServer(compute, id).catch((e: unknown) => {
      if (!(e instanceof NotFoundError)) throw e;
    });
    await waitFor(
      () =>
        getServer(compute, id).then(
          () => false,
          (e: unknown) => e instanceof NotFoundError,
        ),
      (gone) => gone,
      { ...PATIENCE, what: 'server gone' },
    );
  }
});

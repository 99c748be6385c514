/**
 * Contract (issue 7, Done means 2): servers through the region provider with the region's non-admin credential
 * from `region configure`, against the real dev cloud (Nova's fake driver) or the emulator. An identity, its
 * network and security group are made the way the region service makes them; then a server is created and reads
 * Running, an image change rebuilds it onto the new image, a rebuild Nova refuses (an image too big for the flavor)
 * surfaces as the pass's error, an ERROR on the spec image parks (R3′), a rebuild toward a deleted image parks, and deleting it leaves no server, port or floating IP (listed as admin).
 *
 * Runs against the dev cloud (`node --import tsx --test test/openstack/region-server.test.ts`) and the emulator
 * (the same with OPENREGION_CONTRACT_TARGET=emulator).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { findCondition } from '../../src/kube/conditions.ts';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { getServer, listFlavors, listServers } from '../../src/openstack/compute.ts';
import { BadRequestError } from '../../src/openstack/errors.ts';
import { createImage, deleteImage, listImages, updateImage, uploadImageData } from '../../src/openstack/image.ts';
import { listFloatingIPs, listPorts } from '../../src/openstack/network.ts';
import { systemClock } from '../../src/util/clock.ts';
import type { ServerStatus } from '../../src/region/apis/server.ts';
import { provisionVerdict, RECHECK_MS } from '../../src/region/controllers/decide.ts';
import { RequestRefusedError } from '../../src/region/provider/errors.ts';
import type { IdentityInput, ServerInput } from '../../src/region/provider/inputs.ts';
import type { Outcome } from '../../src/region/provider/outcome.ts';
import { identityProviderFor } from '../../src/region/openstack/identity/provider.ts';
import { IdentityRecords } from '../../src/region/openstack/identity/record.ts';
import { serverPortName } from '../../src/region/openstack/names.ts';
import { createNetwork, deleteNetwork } from '../../src/region/openstack/network/lifecycle.ts';
import type { RegionContext } from '../../src/region/openstack/registry.ts';
import { createSecurityGroup, deleteSecurityGroup } from '../../src/region/openstack/security-group/lifecycle.ts';
import { IMAGE_NOT_FOUND_MESSAGE, IMAGE_NOT_REALIZED_MESSAGE } from '../../src/region/openstack/server/messages.ts';
import { serverProviderFor, type OpenstackServerProvider } from '../../src/region/openstack/server/provider.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 180_000, intervalMs: cloudTarget === 'emulator' ? 50 : 1_000 };

describe('region servers (the region credential from `region configure`)', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const ctx = { signal: new AbortController().signal };
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let region: RegionContext;
  let provider: OpenstackServerProvider;
  let identity: IdentityInput;
  let projectID: string;
  const networkInput = {
    id: randomUUID(),
    prefix: '10.30.0.0/24',
    reservations: { prefixLength: 25 },
    dnsNameservers: [],
    routes: [],
  };
  const groupInput = { id: randomUUID(), rules: [] };
  let server: ServerInput;
  let images: { a: string; b: string };
  let doomedImage: string;
  /** Active, public, and needing one MiB more memory than the flavor has. */
  let hungryImage: string;

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
    store = regions.store;
    region = await regions.lookup(REGION);
    provider = serverProviderFor(region, { kube: store, clock: systemClock });

    const admin = c.admin;
    const byName = async (name: string) =>
      (await listImages(admin.client('image'), { name })).find((i) => i.name === name)?.id ?? assert.fail(name);
    images = { a: await byName('or-image-a'), b: await byName('or-image-b') };
    const doomed = await createImage(admin.client('image'), {
      name: c.name('doomed'),
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
    });
    doomedImage = doomed.id;
    const flavor =
      (await listFlavors(admin.client('compute'))).find((f) => f.name === 'or.small') ?? assert.fail('or.small');
    const hungry = await createImage(admin.client('image'), {
      name: c.name('hungry'),
      disk_format: 'raw',
      container_format: 'bare',
      visibility: 'public',
      min_ram: flavor.ram + 1,
    });
    hungryImage = hungry.id;
    await uploadImageData(admin.client('image'), hungryImage, 'openregion hungry image\n'.repeat(64));

    const owner = { organizationID: 'ct-org', projectID: 'ct-project', regionID: REGION };
    identity = { ...owner, id: randomUUID() };
    done(await identityProviderFor(region, { kube: store }).createIdentity(ctx, identity));
    const realised = (await new IdentityRecords(store, NS).realised(identity.id)) ?? assert.fail('realised');
    projectID = realised.projectID;
    const deps = { clients: region.clients, config: region.config, signal: ctx.signal };
    done(await createNetwork(deps, realised, { ...owner, ...networkInput }));
    done(await createSecurityGroup(deps, realised, { ...owner, ...groupInput }));
    server = {
      ...owner,
      id: randomUUID(),
      name: c.name('server'),
      flavorID: flavor.id,
      imageID: images.a,
      networkID: networkInput.id,
      allowedAddressPairs: [{ cidr: '10.30.0.200/32' }],
      securityGroupIDs: [groupInput.id],
      publicIP: true,
      sshInjection: 'identityKeypair',
      tags: [],
    };
  });

  after(async () => {
    // Whatever a failed test left behind goes, whatever state it stopped in.
    const owner = { organizationID: 'ct-org', projectID: 'ct-project', regionID: REGION };
    const realised = await new IdentityRecords(store, NS).realised(identity.id).catch(() => undefined);
    const deps = { clients: region.clients, config: region.config, signal: ctx.signal };
    await waitFor(
      () => provider.deleteServer(ctx, identity, server),
      (o) => o.kind === 'done',
      SETTLE,
    ).catch(() => {});
    await deleteSecurityGroup(deps, realised, { ...owner, ...groupInput }).catch(() => {});
    await deleteNetwork(deps, realised, { ...owner, ...networkInput }).catch(() => {});
    await identityProviderFor(region, { kube: store })
      .deleteIdentity(ctx, identity)
      .catch(() => {});
    await deleteImage(c.admin.client('image'), doomedImage).catch(() => {});
    await deleteImage(c.admin.client('image'), hungryImage).catch(() => {});
    await regions.close();
    await c.close();
  });

  let status: ServerStatus | undefined;
  const poll = async () => {
    status = await provider.updateServerState(ctx, identity, { server, generation: 1, status });
    return status;
  };
  const converge = (input: ServerInput) =>
    waitFor(
      () => provider.createServer(ctx, identity, input),
      (o) => o.kind !== 'yield',
      { ...SETTLE, what: 'converged' },
    );
  const nova = async () => {
    const found = (await listServers(c.admin.client('compute'), { allTenants: true, projectID: projectID })).filter(
      (s) => s.name === server.name,
    );
    return found;
  };

  it('create → Running, with its port, floating IP and addresses', async () => {
    const addresses = done(await converge(server));
    assert.ok(addresses.privateIP?.startsWith('10.30.0.'), JSON.stringify(addresses));
    assert.ok(addresses.publicIP !== undefined);
    const running = await waitFor(poll, (s) => findCondition(s.conditions, 'Active')?.reason === 'Running', {
      ...SETTLE,
      what: 'Running',
    });
    assert.equal(findCondition(running.conditions, 'Healthy')?.reason, 'Healthy');
    assert.equal(running.observed?.image, images.a);
    assert.ok(running.provisionedAt !== undefined);
    assert.equal((await nova()).length, 1);
  });

  it('a console session is a noVNC URL with its own token each time, and the console output reads', async () => {
    const first = new URL(await provider.createConsoleSession(ctx, identity, server));
    const second = new URL(await provider.createConsoleSession(ctx, identity, server));
    assert.equal(first.pathname, '/vnc_auto.html');
    assert.ok((first.searchParams.get('path') ?? '').includes('token='), 'the session carries its token');
    assert.notEqual(first.href, second.href);
    assert.ok((await provider.getConsoleOutput(ctx, identity, server, 5)).length > 0);
  });

  it('an image change rebuilds the server and converges on the new image', async () => {
    server = { ...server, imageID: images.b };
    done(await converge(server));
    const [rebuilt] = await nova();
    assert.ok(rebuilt);
    const fresh = await getServer(c.admin.client('compute'), rebuilt.id);
    assert.equal(typeof fresh.image === 'string' ? '' : fresh.image.id, images.b);
    assert.equal(fresh.status, 'ACTIVE');
    const observed = await waitFor(poll, (s) => s.observed?.image === images.b, { ...SETTLE, what: 'observed' });
    assert.equal(findCondition(observed.conditions, 'Active')?.reason, 'Running');
  });

  // docs/spec/openstack-provider.md §Image rebuild: Nova's accept gate refuses an image whose min_ram exceeds the
  // flavor with a 400 that is not the image-not-found signature, so it surfaces as the pass's error and retries; the
  // operator fixing the image (no generation, no observed field moves) lets the retry converge.
  it('a rebuild real Nova refuses (image needs more memory than the flavor) reads refused, touches nothing, retries', async () => {
    const outcome = await provider.createServer(ctx, identity, { ...server, imageID: hungryImage });
    assert.ok(outcome.kind === 'yield' && outcome.reason === 'R4″/retry', JSON.stringify(outcome));
    assert.ok(outcome.error instanceof RequestRefusedError, String(outcome.error));
    const cause = outcome.error.cause;
    assert.ok(cause instanceof BadRequestError && cause.status === 400, String(cause));
    assert.equal(cause.fault.message, "Flavor's memory is too small for requested image.");
    const verdict = provisionVerdict(outcome);
    assert.ok(verdict.action === 'report' && verdict.requeueAfterMs === RECHECK_MS);
    assert.deepEqual(verdict.available, {
      status: 'False',
      reason: 'Errored',
      message: 'the cloud provider refused the requested change to this server; retrying',
    });
    const [still] = await nova();
    assert.ok(still);
    assert.deepEqual([still.status, typeof still.image === 'string' ? '' : still.image.id], ['ACTIVE', images.b]);

    await updateImage(c.admin.client('image'), hungryImage, [{ op: 'replace', property: 'min_ram', value: 0 }]);
    done(await converge({ ...server, imageID: hungryImage }));
    const [rebuilt] = await nova();
    assert.equal(rebuilt && typeof rebuilt.image !== 'string' ? rebuilt.image.id : '', hungryImage);
    done(await converge(server));
  });

  // The same spec section's deactivated image: a 400 that heals with no spec edit, on the operator's reactivation.
  it('a rebuild toward a deactivated image reads refused; after reactivation the retry converges', async () => {
    const glance = c.admin.client('image');
    const imageAction = (action: 'deactivate' | 'reactivate') =>
      glance.request({
        method: 'POST',
        path: `/images/{image_id}/actions/${action}`,
        params: { image_id: hungryImage },
      });
    await imageAction('deactivate');
    try {
      const outcome = await provider.createServer(ctx, identity, { ...server, imageID: hungryImage });
      assert.ok(outcome.kind === 'yield' && outcome.error instanceof RequestRefusedError, JSON.stringify(outcome));
      const cause = outcome.error.cause;
      assert.ok(cause instanceof BadRequestError, String(cause));
      assert.match(cause.fault.message ?? '', /is not active/);
      const [still] = await nova();
      assert.equal(still && typeof still.image !== 'string' ? still.image.id : '', images.b, 'touched nothing');
    } finally {
      await imageAction('reactivate');
    }
    done(await converge({ ...server, imageID: hungryImage }));
    done(await converge(server));
  });

  // R3′ as the dev cloud can show it. Nova's fake driver never fails a rebuild, and a rebuild its scheduler refuses
  // rolls the image ref back (R4's ground, not R3′'s), so the ERROR on the spec image is the admin's reset-state:
  // docs/spec/openstack-provider.md §Image rebuild has a host failure after a rebuild present exactly so.
  it('R3′: a launched server in ERROR on its spec image parks as not realized; back to ACTIVE it is done', async () => {
    const [found] = await nova();
    assert.ok(found);
    const reset = (state: 'error' | 'active') =>
      c.admin.client('compute').request({
        method: 'POST',
        path: '/servers/{id}/action',
        params: { id: found.id },
        body: { 'os-resetState': { state } },
      });
    await reset('error');
    try {
      const parked = await provider.createServer(ctx, identity, server);
      assert.ok(parked.kind === 'park', JSON.stringify(parked));
      assert.equal(parked.message, IMAGE_NOT_REALIZED_MESSAGE);
      const [still] = await nova();
      assert.equal(still?.id, found.id, 'parked, never recreated');
    } finally {
      await reset('active');
    }
    done(await provider.createServer(ctx, identity, server));
  });

  it('a rebuild toward a deleted image parks and touches nothing', async () => {
    await deleteImage(c.admin.client('image'), doomedImage);
    const outcome = await provider.createServer(ctx, identity, { ...server, imageID: doomedImage });
    assert.ok(outcome.kind === 'park', JSON.stringify(outcome));
    assert.equal(outcome.message, IMAGE_NOT_FOUND_MESSAGE);
    const [still] = await nova();
    assert.ok(still);
    assert.equal(still.status, 'ACTIVE');
    assert.equal(typeof still.image === 'string' ? '' : still.image.id, images.b);
  });

  // docs/adr/0034-server-identity-and-delete-blast-radius.md: what two Servers of one display name left before names
  // were unique on a network converges, each Server on its own Nova server.
  it("a Nova server of the same name another Server made is not this one's: each converges and deletes its own", async () => {
    const twin: ServerInput = { ...server, id: randomUUID(), publicIP: false, allowedAddressPairs: [] };
    try {
      done(await converge(twin));
      assert.equal((await nova()).length, 2, 'Nova holds two servers of the name');
      done(await provider.createServer(ctx, identity, server));
      const polled = await provider.pollServers(ctx, identity, [
        { server, generation: 1, status },
        { server: twin, generation: 1, status: undefined },
      ]);
      assert.deepEqual(
        polled.map((p) => [p.id, p.found]),
        [
          [server.id, true],
          [twin.id, true],
        ],
      );
    } finally {
      await waitFor(
        () => provider.deleteServer(ctx, identity, twin),
        (o) => o.kind === 'done',
        { ...SETTLE, what: 'the twin deleted' },
      );
    }
    const left = await nova();
    assert.equal(left.length, 1, 'the twin deleted exactly its own');
    assert.equal(left[0]?.metadata['region:server_id'], server.id);
  });

  it('a display name changed behind the API: the server is found by its port and renamed to follow', async () => {
    const [before] = await nova();
    assert.ok(before);
    server = { ...server, name: c.name('renamed') };
    done(await converge(server));
    const after = await nova();
    assert.deepEqual(
      after.map((s) => s.id),
      [before.id],
      'the same Nova server, under the new name',
    );
  });

  it('delete leaves no server, port or floating IP', async () => {
    const [port] = (await listPorts(c.admin.client('network'), { name: serverPortName(server.id) })).filter(
      (p) => p.name === serverPortName(server.id),
    );
    assert.ok(port !== undefined, 'the server had its port');
    await waitFor(
      () => provider.deleteServer(ctx, identity, server),
      (o) => o.kind === 'done',
      {
        ...SETTLE,
        what: 'deleted',
      },
    );
    assert.deepEqual(await nova(), []);
    const ports = await listPorts(c.admin.client('network'), { name: serverPortName(server.id) });
    assert.deepEqual(
      ports.filter((p) => p.name === serverPortName(server.id)),
      [],
    );
    assert.deepEqual(await listFloatingIPs(c.admin.client('network'), { portID: port.id }), []);
    await assert.rejects(provider.updateServerState(ctx, identity, { server, generation: 1, status }), {
      name: 'ServerGoneError',
    });
  });
});

function done<T>(outcome: Outcome<T>): T {
  assert.equal(outcome.kind, 'done', JSON.stringify(outcome));
  return (outcome as { value: T }).value;
}

/**
 * Contract: the rebuild rows that need the Server controller and the monitor together (docs/spec/openstack-provider.md
 * §Image rebuild), on real Nova: the region controllers in a Manager over an embedded store with the region's
 * non-admin credential from `region configure`, and the server monitor, polled here as its loop would once a period.
 *
 * - R3′ un-parked through the monitor: an admin's reset-state puts the server in ERROR on its spec image (what a host
 *   failure after a rebuild presents; the fake driver never fails one) and the controller parks; back to ACTIVE, the
 *   monitor's observed write wakes it and it reads Provisioned, with no spec edit and the same Nova server throughout.
 *   Measured here first: the pass the previous poll's write woke ran on the fresh ERROR and parked, its status write
 *   beat the monitor's, whose conflicting write was dropped; the server recovered, nothing observed ever changed, and
 *   the park never woke. The monitor now puts a conflicting poll's changes on top of the reconciler's write.
 * - A foreign rebuild onto another image (an admin's, through Nova): the monitor observes the ref flip, the wake runs
 *   a pass, and R4″ rebuilds the server back onto the spec image as the identity's user.
 *
 * Runs against the real dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { findCondition } from '../../src/kube/conditions.ts';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { KubeNotFoundError } from '../../src/kube/errors.ts';
import type { Condition, KubeObject } from '../../src/kube/object.ts';
import type { ResourceType } from '../../src/kube/resource-type.ts';
import { getServer, listFlavors, listServers, type Server as NovaServer } from '../../src/openstack/compute.ts';
import { listImages } from '../../src/openstack/image.ts';
import { deleteSecurityGroup, listSecurityGroups } from '../../src/openstack/network.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemScheduler } from '../../src/runtime/scheduler.ts';
import { systemClock } from '../../src/util/clock.ts';
import {
  API_VERSION,
  identityType,
  labels,
  networkType,
  openstackIdentityType,
  serverType,
} from '../../src/region/apis/index.ts';
import { registerRegionControllers } from '../../src/region/controllers/index.ts';
import { ServerMonitor } from '../../src/region/monitor/server.ts';
import { openstackLookup } from '../../src/region/openstack/provider.ts';
import { IMAGE_NOT_REALIZED_MESSAGE } from '../../src/region/openstack/server/messages.ts';
import { serverProviderFor } from '../../src/region/openstack/server/provider.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 240_000, intervalMs: cloudTarget === 'emulator' ? 50 : 1_000 };

describe('rebuild rows through the Server controller and the monitor, on real Nova', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const logLines: string[] = [];
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let manager: Manager;
  let monitor: ServerMonitor;
  const ids = { identity: randomUUID(), network: randomUUID(), server: randomUUID() };
  const serverName = `ct-rebuild-${ids.server.slice(0, 8)}`;
  const images = { a: '', b: '' };
  let projectID = '';
  let novaID = '';

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
    store = regions.store;
    const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
    const lookup = openstackLookup((regionID) => regions.lookup(regionID), { kube: store, log });
    manager = new Manager({ client: store, clock: systemClock, log });
    registerRegionControllers(manager, lookup, { groups: ['identities', 'networks', 'servers'] });
    await manager.start();
    monitor = new ServerMonitor({
      client: store,
      namespace: NS,
      lookup: async (regionID) =>
        serverProviderFor(await regions.lookup(regionID), { kube: store, clock: systemClock, log }),
      scheduler: systemScheduler(systemClock),
      log,
    });
    const imageID = async (name: string) =>
      (await listImages(c.admin.client('image'), { name })).find((i) => i.name === name)?.id ?? assert.fail(name);
    images.a = await imageID('or-image-a');
    images.b = await imageID('or-image-b');
  });

  after(async () => {
    // Whatever a failed test left: the Server, the Network and the Identity go through their controllers.
    for (const [type, name] of [
      [serverType, ids.server],
      [networkType, ids.network],
      [identityType, ids.identity],
    ] as const) {
      await store.delete(type, NS, name).catch(() => {});
      await waitFor(
        () => exists(type, name),
        (present) => !present,
        { ...SETTLE, what: `${type.kind} ${name} deleted` },
      ).catch(() => {});
    }
    // Neutron keeps the project's default security group from any credential but an admin's (region-cascade.test.ts).
    if (projectID !== '') {
      const neutron = c.admin.client('network');
      const left = (await listSecurityGroups(neutron, { name: 'default' })).filter((g) => g.project_id === projectID);
      for (const group of left) await deleteSecurityGroup(neutron, group.id).catch(() => {});
    }
    await manager.stop();
    await regions.close();
    await c.close();
  });

  const owner = (extra: Record<string, string> = {}) => ({
    [labels.organization]: 'ct-org',
    [labels.project]: 'ct-project',
    [labels.regionID]: REGION,
    ...extra,
  });
  const object = (kind: string, name: string, objectLabels: Record<string, string>, spec: object): KubeObject => ({
    apiVersion: API_VERSION,
    kind,
    metadata: { name, namespace: NS, labels: objectLabels },
    spec,
  });

  async function exists(type: ResourceType, name: string): Promise<boolean> {
    try {
      await store.get(type, NS, name);
      return true;
    } catch (error) {
      if (error instanceof KubeNotFoundError) return false;
      throw error;
    }
  }
  const conditionOf = async (type: string) =>
    findCondition(
      ((await store.get(serverType, NS, ids.server))['status'] as { conditions?: Condition[] } | undefined)?.conditions,
      type,
    );
  const generation = async () => (await store.get(serverType, NS, ids.server)).metadata.generation;
  /** The Nova server, as admin. */
  const nova = async (): Promise<NovaServer> => getServer(c.admin.client('compute'), novaID);
  const imageOf = (s: NovaServer) => (typeof s.image === 'string' ? '' : s.image.id);
  const action = (body: object) =>
    c.admin.client('compute').request({ method: 'POST', path: '/servers/{id}/action', params: { id: novaID }, body });
  /** One monitor poll (its loop's once a period), then the Server's Available condition. */
  const polled = async () => {
    await monitor.poll();
    return conditionOf('Available');
  };
  /** The provider's log lines about this Nova server since `from`. */
  const linesAbout = (from: number, what: string) =>
    logLines.slice(from).filter((line) => line.includes(novaID) && line.includes(what));

  it('a server reaches Provisioned, and the monitor reads it Running', async () => {
    const flavor =
      (await listFlavors(c.admin.client('compute'))).find((f) => f.name === 'or.small') ?? assert.fail('or.small');
    const inIdentity = owner({ [labels.identityID]: ids.identity });
    const onNetwork = owner({ [labels.identityID]: ids.identity, [labels.networkID]: ids.network });
    await store.create(identityType, object('Identity', ids.identity, owner(), { provider: 'openstack' }) as never);
    await store.create(networkType, object('Network', ids.network, inIdentity, { prefix: '10.41.0.0/24' }) as never);
    await store.create(
      serverType,
      object(
        'Server',
        ids.server,
        { ...onNetwork, [labels.name]: serverName },
        { flavorID: flavor.id, image: { id: images.a }, networks: [{ id: ids.network }] },
      ) as never,
    );
    await waitFor(
      () => conditionOf('Available'),
      (condition) => condition?.reason === 'Provisioned',
      { ...SETTLE, what: 'Server Provisioned' },
    );
    projectID = (await store.get(openstackIdentityType, NS, ids.identity)).spec.projectID ?? '';
    const [found] = (await listServers(c.admin.client('compute'), { allTenants: true, projectId: projectID })).filter(
      (s) => s.name === serverName,
    );
    novaID = found?.id ?? assert.fail('the Nova server');
    await monitor.poll();
    assert.equal((await conditionOf('Active'))?.reason, 'Running');
  });

  it('R3′ through the monitor: ERROR on the spec image parks; ACTIVE again un-parks on the observed write, no spec edit', async () => {
    const edited = await generation();
    const from = logLines.length;
    await action({ 'os-resetState': { state: 'error' } });
    const parked = await waitFor(polled, (a) => a?.reason === 'Errored', { ...SETTLE, what: 'parked' });
    assert.equal(parked?.message, IMAGE_NOT_REALIZED_MESSAGE);
    assert.ok(linesAbout(from, 'R3′').length > 0, 'the controller took R3′');
    assert.deepEqual([(await nova()).status, imageOf(await nova())], ['ERROR', images.a], 'parked, never touched');

    await action({ 'os-resetState': { state: 'active' } });
    await waitFor(polled, (a) => a?.reason === 'Provisioned', { ...SETTLE, what: 'un-parked' });
    assert.equal(await generation(), edited, 'no spec edit');
    assert.equal((await nova()).id, novaID, 'the same Nova server throughout');
    assert.equal((await conditionOf('Active'))?.reason, 'Running');
  });

  it('a foreign rebuild onto another image is observed by the monitor and reverted by R4″', async () => {
    const from = logLines.length;
    await action({ rebuild: { imageRef: images.b } });
    // The monitor observes the ref flip; its write wakes the controller, whose pass rebuilds onto the spec image.
    const observedImage = async () => {
      await monitor.poll();
      const status = (await store.get(serverType, NS, ids.server)).status;
      return status?.observed?.image;
    };
    await waitFor(observedImage, (image) => image === images.b, { ...SETTLE, what: 'the foreign image observed' });
    const back = await waitFor(
      nova,
      (s) => imageOf(s) === images.a && s.status === 'ACTIVE' && s['OS-EXT-STS:task_state'] == null,
      { ...SETTLE, what: 'rebuilt onto the spec image' },
    );
    assert.equal(back.id, novaID, 'rebuilt in place, not replaced');
    assert.ok(linesAbout(from, 'R4″/accepted').length > 0, 'the corrective rebuild was ours');
    await waitFor(polled, (a) => a?.reason === 'Provisioned', { ...SETTLE, what: 'Provisioned again' });
    await waitFor(observedImage, (image) => image === images.a, { ...SETTLE, what: 'the spec image observed' });
  });
});

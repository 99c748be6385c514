/**
 * Contract: deleting a network that has things on it finishes. The region controllers in a Manager over an
 * embedded store (garbage collection off, so nothing but the controllers cascades), driving the OpenStack provider
 * with the region's non-admin credential from `region configure`: an identity, its network, a security group the
 * REST API would own by the network, and a server on the network reach Available; the network and then its
 * identity are deleted as `DELETE /api/v2/networks/{id}` does, and everything goes: no server, port, security
 * group, network, router, project or user is left (listed as admin). The project's `default` security group, which
 * Neutron keeps from any credential but an admin's, is named in the operator log and removed here as admin.
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
import { listFlavors, listServers } from '../../src/openstack/compute.ts';
import { listProjects, listUsers } from '../../src/openstack/identity.ts';
import { listImages } from '../../src/openstack/image.ts';
import {
  deleteSecurityGroup,
  listNetworks,
  listPorts,
  listRouters,
  listSecurityGroups,
} from '../../src/openstack/network.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemClock } from '../../src/util/clock.ts';
import {
  API_VERSION,
  identityType,
  labels,
  networkType,
  openstackIdentityType,
  securityGroupType,
  serverType,
} from '../../src/region/apis/index.ts';
import { registerRegionControllers } from '../../src/region/controllers/index.ts';
import { identityName, networkName, securityGroupName } from '../../src/region/openstack/names.ts';
import { openstackLookup } from '../../src/region/openstack/provider.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const REGION = randomUUID();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 240_000, intervalMs: cloudTarget === 'emulator' ? 50 : 1_000 };

describe('deleting a network with a server and a security group on it finishes', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const logLines: string[] = [];
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let manager: Manager;
  const ids = { identity: randomUUID(), network: randomUUID(), group: randomUUID(), server: randomUUID() };
  const serverName = `ct-cascade-${ids.server.slice(0, 8)}`;
  let projectID = '';

  before(async () => {
    regions = await contractRegions(c, [{ id: REGION }]);
    store = regions.store;
    const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
    const lookup = openstackLookup((regionID) => regions.lookup(regionID), { kube: store, log });
    manager = new Manager({ client: store, clock: systemClock, log });
    registerRegionControllers(manager, lookup, { groups: ['identities', 'networks', 'servers'] });
    await manager.start();
  });

  after(async () => {
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
  const availableOf = async (type: ResourceType, name: string) =>
    findCondition(
      ((await store.get(type, NS, name))['status'] as { conditions?: Condition[] } | undefined)?.conditions,
      'Available',
    );

  it('every resource reaches Available', async () => {
    const admin = c.admin;
    const image =
      (await listImages(admin.client('image'), { name: 'or-image-a' })).find((i) => i.name === 'or-image-a') ??
      assert.fail('or-image-a');
    const flavor =
      (await listFlavors(admin.client('compute'))).find((f) => f.name === 'or.small') ?? assert.fail('or.small');
    const inIdentity = owner({ [labels.identityID]: ids.identity });
    const onNetwork = owner({ [labels.identityID]: ids.identity, [labels.networkID]: ids.network });

    await store.create(identityType, object('Identity', ids.identity, owner(), { provider: 'openstack' }) as never);
    const network = await store.create(
      networkType,
      object('Network', ids.network, inIdentity, { prefix: '10.40.0.0/24' }) as never,
    );
    const ownedByNetwork = {
      apiVersion: API_VERSION,
      kind: 'Network',
      name: ids.network,
      uid: network.metadata.uid ?? '',
      blockOwnerDeletion: true,
    };
    const group = object('SecurityGroup', ids.group, onNetwork, {
      rules: [{ direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' }],
    });
    await store.create(securityGroupType, {
      ...group,
      metadata: { ...group.metadata, ownerReferences: [ownedByNetwork] },
    } as never);
    const server = object(
      'Server',
      ids.server,
      { ...onNetwork, [labels.name]: serverName },
      {
        flavorID: flavor.id,
        image: { id: image.id },
        networks: [{ id: ids.network }],
        securityGroups: [{ id: ids.group }],
      },
    );
    await store.create(serverType, {
      ...server,
      metadata: { ...server.metadata, ownerReferences: [ownedByNetwork] },
    } as never);

    for (const [type, name] of [
      [identityType, ids.identity],
      [networkType, ids.network],
      [securityGroupType, ids.group],
      [serverType, ids.server],
    ] as const) {
      await waitFor(
        () => availableOf(type, name),
        (condition) => condition?.status === 'True',
        { ...SETTLE, what: `${type.kind} ${name} Available` },
      );
    }
    projectID = (await store.get(openstackIdentityType, NS, ids.identity)).spec.projectID ?? '';
    assert.notEqual(projectID, '');
  });

  it('deleting the network, then its identity, removes everything from OpenStack', async () => {
    // What DELETE /api/v2/networks/{id} does: the network, then the identity made for it, both in the background.
    await store.delete(networkType, NS, ids.network);
    await store.delete(identityType, NS, ids.identity);
    for (const [type, name] of [
      [serverType, ids.server],
      [securityGroupType, ids.group],
      [networkType, ids.network],
      [identityType, ids.identity],
    ] as const) {
      await waitFor(
        () => exists(type, name),
        (present) => !present,
        { ...SETTLE, what: `${type.kind} ${name} deleted` },
      );
    }

    const compute = c.admin.client('compute');
    const neutron = c.admin.client('network');
    const keystone = c.admin.client('identity');
    const servers = await listServers(compute, { allTenants: true, projectID: projectID });
    assert.deepEqual(
      servers.filter((s) => s.name === serverName),
      [],
      'no server',
    );
    assert.deepEqual(await listPorts(neutron, { projectID: projectID }), [], 'no port');
    assert.deepEqual(await listSecurityGroups(neutron, { name: securityGroupName(ids.group) }), [], 'no group');
    assert.deepEqual(await listNetworks(neutron, { name: networkName(ids.network) }), [], 'no network');
    assert.deepEqual(await listRouters(neutron, { name: networkName(ids.network) }), [], 'no router');
    const name = identityName(ids.identity);
    const domainID = regions.credentials.domainID;
    assert.deepEqual(await listProjects(keystone, { domainID, name }), [], 'no project');
    assert.deepEqual(await listUsers(keystone, { domainID, name }), [], 'no user');
  });

  it("the project's default security group: only an admin may remove it; the operator log names it", async () => {
    const neutron = c.admin.client('network');
    // Listed without a project filter, which would make the group again.
    const left = (await listSecurityGroups(neutron, { name: 'default' })).filter((g) => g.project_id === projectID);
    for (const group of left) {
      assert.ok(
        logLines.some((line) => line.includes(group.id) && line.includes("the project's default security group")),
        `the operator log names ${group.id}`,
      );
      await deleteSecurityGroup(neutron, group.id);
    }
    assert.ok(left.length <= 1, 'at most the one default group');
  });
});

/**
 * Contract (issue 6, Done means 1 and 4): the region service end to end — the Identity, Network and SecurityGroup
 * controllers in a Manager over an embedded store, driving the OpenStack provider with the region's non-admin
 * credential from `region configure` and regions written by `region register`. An identity, a plain network, a VLAN provider network and a security group
 * reach Available; deleting them leaves nothing in OpenStack, checked by listing as admin; and no secret appears in
 * a log line, a status field or a condition message on the way.
 *
 * Runs against the real dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { findCondition } from '../../src/kube/conditions.ts';
import type { EmbeddedStore } from '../../src/kube/embedded/store.ts';
import { KubeNotFoundError } from '../../src/kube/errors.ts';
import type { Condition, Resource } from '../../src/kube/object.ts';
import type { ResourceType } from '../../src/kube/resource-type.ts';
import { listProjects, listUsers } from '../../src/openstack/identity.ts';
import { listNetworks, listRouters, listSecurityGroups } from '../../src/openstack/network.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { Manager } from '../../src/runtime/manager.ts';
import { systemClock } from '../../src/util/clock.ts';
import {
  API_VERSION,
  identityType,
  labels,
  networkType,
  openstackIdentityType,
  regionKinds,
  securityGroupType,
  vlanAllocationType,
} from '../../src/region/apis/index.ts';
import { registerRegionControllers } from '../../src/region/controllers/index.ts';
import { identityName, networkName, securityGroupName, vlanAllocationName } from '../../src/region/openstack/names.ts';
import type { RegionCredentials } from '../../src/region/openstack/principals.ts';
import { openstackLookup } from '../../src/region/openstack/provider.ts';
import { contractCloud, waitFor } from './cloud.ts';
import { contractRegions, REGION_NAMESPACE, type ContractRegions } from './region.ts';

const cloud = await contractCloud();
const NS = REGION_NAMESPACE;
const PLAIN_REGION = randomUUID();
const VLAN_REGION = randomUUID();
/** The dev cloud's ML2 VLAN range (scripts/devcloud.py), which the emulator is seeded to match. */
const PHYSNET = 'physnet1';
const VLAN_SEGMENT = { startId: 100, endId: 200 };
/** How long a resource may take to settle; a bound on waiting, not an assertion about speed. */
const SETTLE_MS = 120_000;

describe('region lifecycle: identity → networks → security group → deleted', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const logLines: string[] = [];
  let regions: ContractRegions;
  let store: EmbeddedStore;
  let credentials: RegionCredentials;
  let manager: Manager;
  const run = randomUUID().slice(0, 8);
  const owner = { organization: `ct-org-${run}`, project: `ct-project-${run}` };
  const ids = { plain: randomUUID(), vlan: randomUUID(), net: randomUUID(), vnet: randomUUID(), sg: randomUUID() };
  /** Every secret this run could leak: the region password and each identity's record, read before deletion. */
  const secrets: string[] = [];

  before(async () => {
    const vlan = { network: { providerNetworks: { physicalNetwork: PHYSNET, vlan: { segments: [VLAN_SEGMENT] } } } };
    regions = await contractRegions(c, [{ id: PLAIN_REGION }, { id: VLAN_REGION, services: vlan }]);
    ({ store, credentials } = regions);
    secrets.push(credentials.password);
    const log = createLogger({ level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
    const lookup = openstackLookup((regionID) => regions.lookup(regionID), { kube: store, log });
    manager = new Manager({ client: store, clock: systemClock, log });
    registerRegionControllers(manager, lookup);
    await manager.start();
  });

  after(async () => {
    await manager.stop();
    await regions.close();
    await c.close();
  });

  const ownership = (region: string, extra: Record<string, string> = {}) => ({
    [labels.organization]: owner.organization,
    [labels.project]: owner.project,
    [labels.regionID]: region,
    ...extra,
  });
  const object = <T extends Resource<unknown, unknown>>(
    type: ResourceType<T>,
    name: string,
    objectLabels: Record<string, string>,
    spec: T['spec'],
  ): T =>
    ({
      apiVersion: API_VERSION,
      kind: type.kind,
      metadata: { name, namespace: NS, labels: objectLabels },
      spec,
    }) as T;

  it('every resource reaches Available', async () => {
    await store.create(
      identityType,
      object(identityType, ids.plain, ownership(PLAIN_REGION), { provider: 'openstack' }),
    );
    await store.create(identityType, object(identityType, ids.vlan, ownership(VLAN_REGION), { provider: 'openstack' }));
    const under = (region: string, identity: string) => ownership(region, { [labels.identityID]: identity });
    await store.create(
      networkType,
      object(networkType, ids.net, under(PLAIN_REGION, ids.plain), {
        prefix: '10.10.0.0/24',
        dnsNameservers: ['192.0.2.53'],
      }),
    );
    await store.create(
      networkType,
      object(networkType, ids.vnet, under(VLAN_REGION, ids.vlan), { prefix: '10.20.0.0/24' }),
    );
    await store.create(
      securityGroupType,
      object(securityGroupType, ids.sg, under(PLAIN_REGION, ids.plain), {
        rules: [
          { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '0.0.0.0/0' },
          { direction: 'ingress', protocol: 'udp', port: { range: { start: 5000, end: 5100 } }, cidr: '10.0.0.0/8' },
        ],
      }),
    );
    const available: [ResourceType, string][] = [
      [identityType, ids.plain],
      [identityType, ids.vlan],
      [networkType, ids.net],
      [networkType, ids.vnet],
      [securityGroupType, ids.sg],
    ];
    for (const [type, name] of available) {
      await waitFor(
        async () => (await store.get(type, NS, name))['status'] as { conditions?: Condition[] } | undefined,
        (status) => findCondition(status?.conditions, 'Available')?.status === 'True',
        { what: `${type.kind} ${name} Available`, timeoutMs: SETTLE_MS },
      );
    }

    const vnet = await store.get(networkType, NS, ids.vnet);
    const realised = (vnet['status'] as { openstack?: { vlanID?: number; networkID?: string } }).openstack;
    assert.ok(realised?.vlanID !== undefined && realised.vlanID >= 100 && realised.vlanID <= 200, 'a VLAN in range');
    const neutron = c.admin.client('network');
    const [created] = await listNetworks(neutron, { name: networkName(ids.vnet) });
    assert.ok(created !== undefined, 'the VLAN network exists');
    assert.equal(created['provider:segmentation_id'], realised.vlanID);
    assert.equal(created['provider:physical_network'], PHYSNET);

    for (const identity of [ids.plain, ids.vlan]) {
      const { spec } = await store.get(openstackIdentityType, NS, identity);
      for (const secret of [spec.password, spec.applicationCredentialSecret, spec.sshPrivateKey])
        if (secret !== undefined) secrets.push(secret);
    }
    assert.equal(secrets.length, 1 + 2 * 3, 'both identity records hold their three secrets');
  });

  it('deleting every resource leaves nothing behind in OpenStack, listed as admin', async () => {
    await store.delete(securityGroupType, NS, ids.sg);
    await store.delete(networkType, NS, ids.net);
    await store.delete(networkType, NS, ids.vnet);
    await store.delete(identityType, NS, ids.plain);
    await store.delete(identityType, NS, ids.vlan);
    for (const [type, name] of [
      [securityGroupType, ids.sg],
      [networkType, ids.net],
      [networkType, ids.vnet],
      [identityType, ids.plain],
      [identityType, ids.vlan],
    ] as const) {
      await waitFor(
        () => exists(type, name),
        (present) => !present,
        { what: `${type.kind} ${name} released`, timeoutMs: SETTLE_MS },
      );
    }

    const neutron = c.admin.client('network');
    const keystone = c.admin.client('identity');
    for (const id of [ids.net, ids.vnet]) {
      assert.deepEqual(await listNetworks(neutron, { name: networkName(id) }), [], 'no network');
      assert.deepEqual(await listRouters(neutron, { name: networkName(id) }), [], 'no router');
    }
    assert.deepEqual(await listSecurityGroups(neutron, { name: securityGroupName(ids.sg) }), [], 'no security group');
    for (const id of [ids.plain, ids.vlan]) {
      const name = identityName(id);
      assert.deepEqual(await listProjects(keystone, { domainID: credentials.domainID, name }), [], 'no project');
      assert.deepEqual(await listUsers(keystone, { domainID: credentials.domainID, name }), [], 'no user');
      assert.equal(await exists(openstackIdentityType, id), false, 'no OpenstackIdentity record');
    }
    const allocations = (await exists(vlanAllocationType, vlanAllocationName(VLAN_REGION)))
      ? (await store.get(vlanAllocationType, NS, vlanAllocationName(VLAN_REGION))).spec.allocations
      : [];
    assert.deepEqual(allocations, [], 'the VLAN is free again');
  });

  it('no password, application credential secret or private key reached a log line or a status', async () => {
    const statuses: string[] = [];
    for (const kind of regionKinds) {
      const { items } = await store.list(kind.type, { namespace: NS });
      for (const item of items) statuses.push(JSON.stringify(item['status'] ?? {}));
    }
    assert.ok(logLines.length >= 10, 'the run logged enough to be worth scanning');
    const forbidden = secrets.flatMap((s) => [s, Buffer.from(s).toString('base64')]);
    for (const text of [...logLines, ...statuses])
      for (const secret of forbidden) assert.ok(!text.includes(secret), `a secret leaked into: ${text.slice(0, 200)}`);
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
});

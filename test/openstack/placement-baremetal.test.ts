/**
 * Contract: Placement (placement.ts, microversion 1.22) and Ironic (baremetal.ts, microversion 1.11) against a
 * real cloud. The fixtures (resource providers with inventory and traits, a fake-hardware node) are admin-only and
 * made with raw requests; the queries go through the client. The monitor's Ironic lookup runs as it does in the
 * service: the registered region credential scoped to an identity project of its domain, which sees every node only
 * through deploy/policies/ironic.yaml and the `baremetal_observer` role `region configure` grants (a tenant of the
 * same project, without that role, sees none).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { getNode, getNodeByInstanceUuid, listNodes, NODE_FIELDS, type Node } from '../../src/openstack/baremetal.ts';
import { ForbiddenError, NotFoundError } from '../../src/openstack/errors.ts';
import {
  createProject,
  createUser,
  deleteProject,
  deleteUser,
  ensureRole,
  findRoleByName,
  grantRole,
} from '../../src/openstack/identity.ts';
import {
  getResourceProviderTraits,
  listResourceProviders,
  type PlacementClient,
  type ResourceProvider,
} from '../../src/openstack/placement.ts';
import type { ServiceClient } from '../../src/openstack/session.ts';
import { mapServerActive } from '../../src/region/openstack/server/decide-monitor.ts';
import { contractCloud, waitFor } from './cloud.ts';
import { Cleanup } from './cleanup.ts';

const cloud = await contractCloud();

const GOLD = 'CUSTOM_BAREMETAL_GOLD';
const TRAIT_GOLD = 'CUSTOM_GOLD';
const TRAIT_MAINTENANCE = 'CUSTOM_MAINTENANCE';

describe('placement contract (1.22)', { skip: cloud === undefined }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let placement: PlacementClient;
  let gold: ResourceProvider;
  let maintenance: ResourceProvider;

  /** A provider with one unit of CUSTOM_BAREMETAL_GOLD and the given traits, as Ironic's nodes appear in Placement. */
  async function provider(what: string, traits: readonly string[]): Promise<ResourceProvider> {
    const name = c.name(what);
    const { body: created } = await placement.request<ResourceProvider>({
      method: 'POST',
      path: '/resource_providers',
      body: { name },
    });
    cleanup.add(`resource provider ${name}`, () =>
      placement.request({ method: 'DELETE', path: '/resource_providers/{uuid}', params: { uuid: created.uuid } }),
    );
    const { body: inventories } = await placement.request<{ resource_provider_generation: number }>({
      method: 'PUT',
      path: '/resource_providers/{uuid}/inventories',
      params: { uuid: created.uuid },
      body: { resource_provider_generation: created.generation, inventories: { [GOLD]: { total: 1 } } },
    });
    await placement.request({
      method: 'PUT',
      path: '/resource_providers/{uuid}/traits',
      params: { uuid: created.uuid },
      body: { resource_provider_generation: inventories.resource_provider_generation, traits },
    });
    return created;
  }

  before(async () => {
    placement = c.admin.client('placement');
    // Custom resource classes and traits are global and idempotent to create (201 new, 204 existing).
    await placement.request({ method: 'PUT', path: '/resource_classes/{name}', params: { name: GOLD } });
    for (const trait of [TRAIT_GOLD, TRAIT_MAINTENANCE]) {
      await placement.request({ method: 'PUT', path: '/traits/{name}', params: { name: trait } });
    }
    gold = await provider('rp-gold', [TRAIT_GOLD]);
    maintenance = await provider('rp-maintenance', [TRAIT_GOLD, TRAIT_MAINTENANCE]);
  });

  after(async () => {
    await cleanup.run();
  });

  const ours = (providers: ResourceProvider[]) =>
    providers
      .filter((p) => p.uuid === gold.uuid || p.uuid === maintenance.uuid)
      .map((p) => p.name)
      .sort();

  it('resources + required + forbidden traits select exactly the provider without the forbidden trait', async (t) => {
    const found = await listResourceProviders(placement, {
      resources: { [GOLD]: 1 },
      requiredTraits: [TRAIT_GOLD],
      forbiddenTraits: [TRAIT_MAINTENANCE],
    });
    assert.deepEqual(ours(found), [gold.name]);
    const others = found.filter((p) => p.uuid !== gold.uuid);
    if (others.length > 0)
      t.diagnostic(`other providers on this cloud match too: ${others.map((p) => p.name).join(', ')}`);
    const exact = found.find((p) => p.uuid === gold.uuid);
    assert.equal(exact?.root_provider_uuid, gold.uuid);
    assert.equal(exact.parent_provider_uuid, null);
  });

  it('without the forbidden trait both match; requiring it selects the other; too much capacity matches none', async () => {
    assert.deepEqual(
      ours(await listResourceProviders(placement, { resources: { [GOLD]: 1 }, requiredTraits: [TRAIT_GOLD] })),
      [gold.name, maintenance.name].sort(),
    );
    assert.deepEqual(
      ours(await listResourceProviders(placement, { requiredTraits: [TRAIT_GOLD, TRAIT_MAINTENANCE] })),
      [maintenance.name],
    );
    assert.deepEqual(ours(await listResourceProviders(placement, { resources: { [GOLD]: 2 } })), []);
    assert.deepEqual(ours(await listResourceProviders(placement, { forbiddenTraits: [TRAIT_GOLD] })), []);
  });

  it('filters by name, uuid and tree; reads a provider’s traits', async () => {
    assert.deepEqual(
      (await listResourceProviders(placement, { name: gold.name })).map((p) => p.uuid),
      [gold.uuid],
    );
    assert.deepEqual(
      (await listResourceProviders(placement, { uuid: maintenance.uuid })).map((p) => p.name),
      [maintenance.name],
    );
    assert.deepEqual(
      (await listResourceProviders(placement, { inTree: gold.uuid })).map((p) => p.uuid),
      [gold.uuid],
    );
    const traits = await getResourceProviderTraits(placement, maintenance.uuid);
    assert.deepEqual([...traits.traits].sort(), [TRAIT_GOLD, TRAIT_MAINTENANCE]);
    assert.equal(typeof traits.resource_provider_generation, 'number');
    await assert.rejects(getResourceProviderTraits(placement, randomUUID()), NotFoundError);
  });
});

describe('baremetal contract (Ironic 1.11)', { skip: cloud === undefined }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  let ironic: ServiceClient<'baremetal', 'project'>;
  /** The region credential scoped to an identity project of its domain: the monitor's privileged client. */
  let monitorView: ServiceClient<'baremetal', 'project'>;
  /** A tenant user with `member` in that same project: what the project itself may see. */
  let tenantView: ServiceClient<'baremetal', 'project'>;
  let node: Node;
  const instanceUuid = randomUUID();

  before(async () => {
    ironic = c.admin.client('baremetal');
    const admin = c.admin.client('identity');
    const region = c.region.client('identity');
    const token = await c.region.token();
    assert.ok(!token.roles.some((r) => r.name === 'admin'), 'the region credential is not an admin');
    const domainId = token.domain?.id ?? assert.fail('a domain-scoped region token');
    // As the region service makes an identity's project and user: the region account, in its own domain.
    const project = await createProject(region, { name: c.name('bm-identity'), domain_id: domainId });
    cleanup.add(`project ${project.name}`, () => deleteProject(admin, project.id));
    const password = 'ct-Secret-1';
    const user = await createUser(region, { name: c.name('bm-tenant'), domain_id: domainId, password });
    cleanup.add(`user ${user.name}`, () => deleteUser(admin, user.id));
    await grantRole(region, { userId: user.id, projectId: project.id, roleId: await ensureRole(admin, 'member') });
    // The region account cannot hand its Ironic visibility to a tenant: not a role a domain manager may grant.
    const observer = (await findRoleByName(admin, 'baremetal_observer')) ?? assert.fail('region configure made it');
    await assert.rejects(
      grantRole(region, { userId: user.id, projectId: project.id, roleId: observer.id }),
      ForbiddenError,
    );
    const scope = { kind: 'project', project: { id: project.id } } as const;
    monitorView = c.sessionFor(c.regionAuth, scope).client('baremetal');
    tenantView = c.sessionFor({ type: 'password', user: { id: user.id }, password }, scope).client('baremetal');
    const name = c.name('node');
    const { body } = await ironic.request<Node>({
      method: 'POST',
      path: '/nodes',
      body: { name, driver: 'fake-hardware' },
    });
    node = body;
    cleanup.add(`node ${name}`, () =>
      ironic.request({ method: 'DELETE', path: '/nodes/{node_ident}', params: { node_ident: body.uuid } }),
    );
    // A node that claims an instance cannot be deleted: release it first.
    cleanup.add(`node ${name} instance_uuid`, () =>
      ironic.request({
        method: 'PATCH',
        path: '/nodes/{node_ident}',
        params: { node_ident: body.uuid },
        body: [{ op: 'remove', path: '/instance_uuid' }],
      }),
    );
    await ironic.request({
      method: 'PATCH',
      path: '/nodes/{node_ident}',
      params: { node_ident: body.uuid },
      body: [{ op: 'add', path: '/instance_uuid', value: instanceUuid }],
    });
  });

  after(async () => {
    await cleanup.run();
    await c.close();
  });

  it('a new fake-hardware node is enrolled', () => {
    assert.equal(node.provision_state, 'enroll');
    assert.equal(node.driver, 'fake-hardware');
    assert.equal(node.instance_uuid, null);
  });

  it('getNodeByInstanceUuid finds the node that claims the instance; undefined for an unknown one', async () => {
    const found = await getNodeByInstanceUuid(ironic, instanceUuid);
    assert.equal(found?.uuid, node.uuid);
    assert.equal(found.instance_uuid, instanceUuid);
    assert.equal(found.provision_state, 'enroll');
    assert.equal(found.maintenance, false);
    assert.equal(found.driver, 'fake-hardware');
    assert.ok('target_provision_state' in found && 'last_error' in found, 'the fields asked for come back');
    assert.equal(await getNodeByInstanceUuid(ironic, randomUUID()), undefined);
  });

  it('lists nodes (all, by instance, with fields) and reads one by uuid and by name', async () => {
    assert.ok((await listNodes(ironic)).some((n) => n.uuid === node.uuid));
    const byInstance = await listNodes(ironic, { instanceUuid: instanceUuid, fields: ['uuid', 'instance_uuid'] });
    // Ironic returns the fields asked for, plus its links.
    assert.deepEqual(
      byInstance.map((n) =>
        Object.keys(n)
          .filter((k) => k !== 'links')
          .sort(),
      ),
      [['instance_uuid', 'uuid']],
    );
    assert.deepEqual(
      byInstance.map((n) => [n.uuid, n.instance_uuid]),
      [[node.uuid, instanceUuid]],
    );
    const onePage = await listNodes(ironic, {}, { pageSize: 1 });
    assert.ok(
      onePage.some((n) => n.uuid === node.uuid),
      'paging follows the next links',
    );

    const byUuid = await getNode(ironic, node.uuid);
    assert.equal(byUuid.instance_uuid, instanceUuid);
    assert.equal(byUuid.power_state, null);
    const byName = await getNode(ironic, node.name ?? '', NODE_FIELDS);
    assert.equal(byName.uuid, node.uuid);
    assert.deepEqual(
      Object.keys(byName)
        .filter((k) => k !== 'links')
        .sort(),
      [...NODE_FIELDS].sort(),
    );
    await assert.rejects(getNode(ironic, randomUUID()), NotFoundError);
  });

  // The monitor's Ironic phases (docs/spec/openstack-provider.md §Baremetal progress) on a real node's states. What
  // cannot run here: the monitor consults Ironic only while Nova reports BUILD for a flavor marked baremetal, and the
  // dev cloud's Nova runs the fake virt driver, not Ironic's, so no Nova server is ever backed by a node, and its
  // builds settle in about 4 s with nothing that can hold one in BUILD. The read the monitor makes (the node by
  // instance uuid) and its mapping are exercised below on a fake-hardware node driven through its provision states;
  // the monitor's own path, Nova BUILD included, runs on the emulator (src/region/monitor/server.test.ts).
  it('the monitor, with the region credential, reads Queued while the node waits (enroll, manageable, available) and Building once deployed', async () => {
    const phase = async () => {
      const found = await getNodeByInstanceUuid(monitorView, instanceUuid);
      const lookup =
        found === undefined
          ? ({ kind: 'absent' } as const)
          : ({ kind: 'node', provisionState: found.provision_state } as const);
      return {
        state: found?.provision_state,
        active: mapServerActive({ status: 'BUILD' }, { baremetal: true, ironic: lookup }).reason,
      };
    };
    const settled = async (target: string, state: string) => {
      await ironic.request({
        method: 'PUT',
        path: '/nodes/{node_ident}/states/provision',
        params: { node_ident: node.uuid },
        body: { target },
      });
      return waitFor(phase, (p) => p.state === state, { timeoutMs: 120_000, intervalMs: 500, what: state });
    };
    const seen = [await phase()];
    seen.push(await settled('manage', 'manageable'));
    seen.push(await settled('provide', 'available'));
    await ironic.request({
      method: 'PATCH',
      path: '/nodes/{node_ident}',
      params: { node_ident: node.uuid },
      body: [
        { op: 'add', path: '/instance_info/image_source', value: 'http://127.0.0.1/none.img' },
        { op: 'add', path: '/instance_info/root_gb', value: '1' },
      ],
    });
    cleanup.add(`node ${node.uuid} undeployed`, async () => {
      await ironic.request({
        method: 'PUT',
        path: '/nodes/{node_ident}/states/provision',
        params: { node_ident: node.uuid },
        body: { target: 'deleted' },
      });
      await waitFor(
        () => getNode(ironic, node.uuid),
        (n) => n.provision_state === 'available',
        { timeoutMs: 120_000, intervalMs: 500 },
      );
    });
    seen.push(await settled('active', 'active'));
    assert.deepEqual(seen, [
      { state: 'enroll', active: 'Queued' },
      { state: 'manageable', active: 'Queued' },
      { state: 'available', active: 'Queued' },
      { state: 'active', active: 'Building' },
    ]);
    const none = await getNodeByInstanceUuid(monitorView, randomUUID());
    assert.equal(none, undefined, 'no node yet reads as absent, which the monitor maps to Queued');
    // Narrow: the project's own tenant sees no node it does not own, deployed or not (Zed's project filter).
    assert.equal(await getNodeByInstanceUuid(tenantView, instanceUuid), undefined);
    assert.deepEqual(
      (await getNodeByInstanceUuid(ironic, instanceUuid))?.provision_state,
      'active',
      'the node is there for those who may see it',
    );
  });
});

/**
 * Contract: a server pinned to a host (spec.infrastructureRef) with the Placement preflight on, through the REST API
 * on the region service in process (service.ts) with the non-admin region credential (deploy/policies: Nova's
 * requested destination and Placement's provider list for a manager). The flavor asks for one unit of a custom
 * resource class of this run; the region requires the trait every Nova compute node carries (COMPUTE_NODE). While
 * the host's resource provider has none of that class the preflight misses: the server waits (provisioning) and
 * Nova holds nothing. Once the admin gives the provider one unit, the next re-check creates the server on exactly
 * that host, and it runs.
 *
 * On the dev cloud the host is Nova's fake compute node and its provider the one nova-compute reports to Placement.
 * The run's class goes on it and comes off again, and no trait is set there: nova-compute caches its provider's
 * traits and would put a trait the test removed back, while inventory of a class it does not report it removes
 * itself. On the emulator the provider is made under the emulated compute host's name.
 *
 * Runs against the dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getServer, listServers } from '../../src/openstack/compute.ts';
import { listResourceProviders, type PlacementClient } from '../../src/openstack/placement.ts';
import { HOST as EMULATED_HOST } from '../../src/emulator/nova/api.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { Cleanup } from './cleanup.ts';
import { contractService, expectStatus, type ContractService } from './service.ts';

const cloud = await contractCloud();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 180_000, intervalMs: cloudTarget === 'emulator' ? 200 : 1_000 };

interface Read {
  metadata: { id: string; name?: string; provisioningStatus: string };
  status: { powerState?: string };
}

interface Provider {
  uuid: string;
  generation: number;
}

describe('a pinned server with the Placement preflight, through the REST API', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  const suffix = c.name('pin').toUpperCase().replaceAll('-', '_');
  const resourceClass = `CUSTOM_${suffix}`;
  const trait = 'COMPUTE_NODE';
  let placement: PlacementClient;
  let host: string;
  let provider: string;
  let flavorID: string;
  let s: ContractService;

  /** Rewrites one part of the provider against its current generation, again if Nova's update (or a release) raced it. */
  const onProvider = async (what: 'inventories' | 'traits', change: (body: Record<string, unknown>) => unknown) => {
    for (let attempt = 0; ; attempt++) {
      const { body } = await placement.request<Record<string, unknown>>({
        method: 'GET',
        path: `/resource_providers/{uuid}/${what}`,
        params: { uuid: provider },
      });
      try {
        await placement.request({
          method: 'PUT',
          path: `/resource_providers/{uuid}/${what}`,
          params: { uuid: provider },
          body: change(body),
        });
        return;
      } catch (error) {
        if (attempt >= 10) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };
  const inventories = (change: (inv: Record<string, unknown>) => Record<string, unknown>) =>
    onProvider('inventories', (body) => ({
      resource_provider_generation: body.resource_provider_generation,
      inventories: change(body.inventories as Record<string, unknown>),
    }));
  const traits = (change: (all: string[]) => string[]) =>
    onProvider('traits', (body) => ({
      resource_provider_generation: body.resource_provider_generation,
      traits: change(body.traits as string[]),
    }));

  before(async () => {
    placement = c.admin.client('placement');
    await placement.request({ method: 'PUT', path: '/resource_classes/{name}', params: { name: resourceClass } });
    cleanup.add(`resource class ${resourceClass}`, () =>
      placement.request({ method: 'DELETE', path: '/resource_classes/{name}', params: { name: resourceClass } }),
    );

    const compute = c.admin.client('compute');
    if (cloudTarget === 'emulator') {
      host = EMULATED_HOST;
      const { body } = await placement.request<Provider>({
        method: 'POST',
        path: '/resource_providers',
        body: { name: host },
        headers: { 'OpenStack-API-Version': 'placement 1.20' },
      });
      provider = body.uuid;
      await traits(() => [trait]);
      cleanup.add(`resource provider ${host}`, () =>
        placement.request({ method: 'DELETE', path: '/resource_providers/{uuid}', params: { uuid: provider } }),
      );
    } else {
      const { body } = await compute.request<{ hypervisors: { hypervisor_hostname: string; id: string }[] }>({
        method: 'GET',
        path: '/os-hypervisors',
      });
      const [node] = body.hypervisors;
      assert.ok(node !== undefined, 'the dev cloud has a compute node');
      host = node.hypervisor_hostname;
      const [rp] = await listResourceProviders(placement, { name: host });
      provider = rp?.uuid ?? assert.fail(`no resource provider for ${host}`);
    }
    cleanup.add(`inventory ${resourceClass} on ${host}`, () => inventories(({ [resourceClass]: _, ...rest }) => rest));

    const { body } = await compute.request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: c.name('pinned'), vcpus: 1, ram: 256, disk: 2, 'os-flavor-access:is_public': true } },
    });
    flavorID = body.flavor.id;
    cleanup.add(`flavor ${flavorID}`, () =>
      compute.request({ method: 'DELETE', path: '/flavors/{id}', params: { id: flavorID } }),
    );
    await compute.request({
      method: 'POST',
      path: '/flavors/{flavor_id}/os-extra_specs',
      params: { flavor_id: flavorID },
      body: { extra_specs: { [`resources:${resourceClass}`]: '1' } },
    });
    s = await contractService(c, { compute: { placementPreflight: { enabled: true, requiredTraits: [trait] } } });
  });

  const made: { kind: 'servers' | 'networks'; id: string }[] = [];
  after(async () => {
    for (const { kind, id } of made.reverse()) {
      await s.call('DELETE', `/api/v2/${kind}/${id}`).catch(() => undefined);
      await waitFor(
        () => s.call('GET', `/api/v2/${kind}/${id}`),
        (r) => r.status === 404,
        SETTLE,
      ).catch(() => {});
    }
    await s.close();
    await cleanup.run();
    await c.close();
  });

  const create = async (kind: 'servers' | 'networks', body: unknown): Promise<string> => {
    const { metadata } = expectStatus(await s.call<Read>('POST', `/api/v2/${kind}`, body), 201);
    made.push({ kind, id: metadata.id });
    return metadata.id;
  };
  const novaServers = async (name: string) =>
    (await listServers(c.admin.client('compute'), { allTenants: true })).filter((server) => server.name === name);
  const preflights = (verdict: string) =>
    s.logLines.filter((l) => l.includes('"msg":"placement preflight"') && l.includes(`"verdict":"${verdict}"`));

  it('a miss waits with nothing in Nova; once the host has the resource it is created on exactly that host', async () => {
    const images = expectStatus(await s.call<Read[]>('GET', `/api/v2/regions/${s.regionID}/images`), 200);
    const image = images.find((i) => i.metadata.name === 'or-image-a') ?? assert.fail('or-image-a');
    const network = await create('networks', {
      metadata: { name: c.name('pinned-net') },
      spec: {
        organizationId: s.organizationID,
        projectId: s.projectID,
        regionId: s.regionID,
        prefix: '10.45.0.0/24',
        dnsNameservers: [],
      },
    });
    await waitFor(
      async () => expectStatus(await s.call<Read>('GET', `/api/v2/networks/${network}`), 200),
      (r) => r.metadata.provisioningStatus === 'provisioned',
      { ...SETTLE, what: 'the network provisioned' },
    );
    const name = c.name('pinned-server');
    const server = await create('servers', {
      metadata: { name },
      spec: {
        networkId: network,
        flavorId: flavorID,
        imageId: image.metadata.id,
        infrastructureRef: host,
        // A pinned server is created with the region's credential, which holds no keypair of the identity's.
        sshInjection: 'none',
      },
    });

    await waitFor(
      async () => ({
        misses: preflights('miss').length,
        server: (await s.call<Read>('GET', `/api/v2/servers/${server}`)).body,
      }),
      (seen) => seen.misses > 0 && seen.server.metadata.provisioningStatus === 'provisioning',
      { ...SETTLE, what: 'a preflight miss, the server provisioning' },
    );
    assert.deepEqual(await novaServers(name), [], 'nothing created on a miss');

    // One unit of the run's class on the pinned host: the next re-check finds it.
    await inventories((inv) => ({ ...inv, [resourceClass]: { total: 1 } }));
    const running = await waitFor(
      async () => expectStatus(await s.call<Read>('GET', `/api/v2/servers/${server}`), 200),
      (r) => r.metadata.provisioningStatus === 'provisioned' && r.status.powerState === 'Running',
      { ...SETTLE, what: 'the pinned server running' },
    );
    assert.equal(running.metadata.provisioningStatus, 'provisioned');
    assert.ok(preflights('available').length > 0, 'the preflight found the host');
    const [created, ...more] = await novaServers(name);
    assert.ok(created !== undefined && more.length === 0, `one Nova server ${name}`);
    const nova = await getServer(c.admin.client('compute'), created.id);
    assert.equal(nova['OS-EXT-SRV-ATTR:hypervisor_hostname'], host, 'on the pinned host');
  });
});

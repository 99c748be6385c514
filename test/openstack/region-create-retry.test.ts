/**
 * Contract: the bounded create-retry on a server the cloud cannot place, through the REST API on the region service
 * in process (service.ts) with the non-admin region credential. The flavor asks for one unit of a custom resource
 * class no resource provider has, so Nova's scheduler finds no host: on the dev cloud a real NoValidHost (Placement
 * returns no allocation candidates; the server goes ERROR with the fault), on the emulator its scheduler model.
 *
 * The service runs with two attempts (`serve --provider-create-max-attempts 2`) and the monitor every 2 s, so the
 * walk takes about a minute: the first create fails, the failed server is deleted and created again while the
 * server reads provisioning with the attempt, the second fails too, and the server reads error. The cause (Nova's
 * fault) reaches the operator log only; the tenant sees fixed text. Deleting the server leaves nothing in Nova.
 *
 * Runs against the dev cloud (`npm run test:openstack`) and the emulator (`npm run test:contract:emulator`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getServer, listServers } from '../../src/openstack/compute.ts';
import { cloudTarget, contractCloud, waitFor } from './cloud.ts';
import { Cleanup } from './cleanup.ts';
import { contractService, expectStatus, type ContractService } from './service.ts';

const cloud = await contractCloud();
/** A bound on waiting for the cloud, not an assertion about its speed. */
const SETTLE = { timeoutMs: 240_000, intervalMs: cloudTarget === 'emulator' ? 200 : 1_000 };
const ATTEMPTS = 2;

interface Read {
  metadata: {
    id: string;
    provisioningStatus: string;
    provisioningStatusDetail?: { reason: string; message: string };
    healthStatus: string;
  };
  status: { powerState?: string };
}

describe('create-retry on a server no host can take, through the REST API', { skip: !cloud }, () => {
  const c = cloud as NonNullable<typeof cloud>;
  const cleanup = new Cleanup();
  const resourceClass = `CUSTOM_${c.name('nowhere').toUpperCase().replaceAll('-', '_')}`;
  let flavorID: string;
  let s: ContractService;

  before(async () => {
    const placement = c.admin.client('placement');
    await placement.request({ method: 'PUT', path: '/resource_classes/{name}', params: { name: resourceClass } });
    cleanup.add(`resource class ${resourceClass}`, () =>
      placement.request({ method: 'DELETE', path: '/resource_classes/{name}', params: { name: resourceClass } }),
    );
    const compute = c.admin.client('compute');
    const { body } = await compute.request<{ flavor: { id: string } }>({
      method: 'POST',
      path: '/flavors',
      body: { flavor: { name: c.name('nowhere'), vcpus: 1, ram: 256, disk: 2, 'os-flavor-access:is_public': true } },
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
    // After the flavor, so the region's first flavor listing has it.
    s = await contractService(c, {}, { maxServerCreateAttempts: ATTEMPTS });
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
    await s.close();
    await cleanup.run();
    await c.close();
  });

  const made: { kind: 'servers' | 'networks'; id: string }[] = [];
  const create = async (kind: 'servers' | 'networks', body: unknown): Promise<string> => {
    const { metadata } = expectStatus(await s.call<Read>('POST', `/api/v2/${kind}`, body), 201);
    made.push({ kind, id: metadata.id });
    return metadata.id;
  };
  const novaServers = async (name: string) =>
    (await listServers(c.admin.client('compute'), { allTenants: true })).filter((server) => server.name === name);

  it('NoValidHost: bounded retries that read provisioning with the attempt, then the terminal error', async (t) => {
    const images = expectStatus(await s.call<Read[]>('GET', `/api/v2/regions/${s.regionID}/images`), 200);
    const image = images.find((i) => (i.metadata as { name?: string }).name === 'or-image-a');
    const network = await create('networks', {
      metadata: { name: c.name('retry-net') },
      spec: {
        organizationId: s.organizationID,
        projectId: s.projectID,
        regionId: s.regionID,
        prefix: '10.44.0.0/24',
        dnsNameservers: [],
      },
    });
    // The network first, as a tenant would: a server's port needs it in Neutron.
    await waitFor(
      async () => expectStatus(await s.call<Read>('GET', `/api/v2/networks/${network}`), 200),
      (r) => r.metadata.provisioningStatus === 'provisioned',
      { ...SETTLE, what: 'the network provisioned' },
    );
    const name = c.name('nowhere-server');
    const server = await create('servers', {
      metadata: { name },
      spec: { networkId: network, flavorId: flavorID, imageId: image?.metadata.id ?? assert.fail('or-image-a') },
    });

    const seen: string[] = [];
    const read = async () => {
      const body = expectStatus(await s.call<Read>('GET', `/api/v2/servers/${server}`), 200);
      const { provisioningStatus, provisioningStatusDetail } = body.metadata;
      const line = `${provisioningStatus}: ${provisioningStatusDetail?.message ?? '-'}`;
      if (seen.at(-1) !== line) seen.push(line);
      return body;
    };
    const final = await waitFor(read, (r) => r.metadata.provisioningStatus === 'error', {
      ...SETTLE,
      what: 'the terminal error',
    });
    t.diagnostic(`the server read, in order: ${seen.join(' | ')}`);
    const retrying = `provisioning: the server could not be created; retrying (attempt ${String(ATTEMPTS)} of ${String(ATTEMPTS)})`;
    const from = seen.indexOf(retrying);
    assert.ok(from >= 0, `the retry showed: ${seen.join(' | ')}`);
    assert.deepEqual(
      seen.slice(from).filter((line) => line.startsWith('provisioned')),
      [],
      `never provisioned once retrying: ${seen.join(' | ')}`,
    );
    assert.equal(
      final.metadata.provisioningStatusDetail?.message,
      `provider server create failed after ${String(ATTEMPTS)} attempts`,
    );
    assert.equal(final.metadata.healthStatus, 'error');
    assert.doesNotMatch(JSON.stringify(final), /valid host|fault/i, 'no cause on the tenant surface');

    // Nova: the second attempt's server, left in ERROR for the operator, with the scheduler's fault.
    const [left, ...more] = await novaServers(name);
    assert.ok(left !== undefined && more.length === 0, `one Nova server ${name}`);
    const nova = await getServer(c.admin.client('compute'), left.id);
    assert.equal(nova.status, 'ERROR');
    assert.match(JSON.stringify((nova as { fault?: unknown }).fault), /No valid host/);
    assert.ok(
      s.logLines.some((l) => l.includes('No valid host')),
      "the fault is in the operator's log",
    );

    expectStatus(await s.call('DELETE', `/api/v2/servers/${server}`), 202);
    await waitFor(
      () => s.call('GET', `/api/v2/servers/${server}`),
      (r) => r.status === 404,
      { ...SETTLE, what: 'the server deleted' },
    );
    assert.deepEqual(await novaServers(name), [], 'nothing left in Nova');
  });
});

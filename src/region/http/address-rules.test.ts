/**
 * The address rules a tenant's request must meet, each refusal naming its field, nothing stored: a network numbered
 * in usable unicast space, route next hops on the network, load-balancer members unicast hosts, tenancy ids that are label
 * values (refused at the field, not at `spec`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  apiFixture,
  createNetwork,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  violationsOf,
  type ApiFixture,
} from './testing/api.ts';

describe('address rules', () => {
  let f: ApiFixture;
  let network = '';
  let loadBalancer = '';
  const listener = (address: string) => ({
    name: 'web',
    protocol: 'tcp',
    port: 80,
    pool: { members: [{ address, port: 8080 }] },
  });
  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a); // 192.168.0.0/24
    const created = await send('POST', '/api/v2/loadbalancers', {
      metadata: { name: 'lb' },
      spec: { networkId: network, listeners: [listener('192.168.0.10')] },
    });
    assert.equal(created.statusCode, 201, created.body);
    loadBalancer = created.json<{ metadata: { id: string } }>().metadata.id;
  });
  after(() => f.close());

  const send = (method: 'POST' | 'PUT', url: string, payload: object) =>
    f.api.inject({
      method,
      url,
      headers: { authorization: `Bearer ${f.tokens.a}` },
      payload: payload as Record<string, unknown>,
    });

  const refused = async (method: 'POST' | 'PUT', url: string, payload: object, status: number, expected: string) => {
    const before = await f.snapshot();
    const response = await send(method, url, payload);
    assert.equal(response.statusCode, status, `${JSON.stringify(payload)}: ${response.body}`);
    const named = violationsOf(response.json());
    assert.ok(named.includes(expected), `${expected} in ${named.join()}`);
    assert.deepEqual(await f.snapshot(), before, 'nothing stored');
  };

  const spec = { organizationId: ORG_A, projectId: PROJECT_A, regionId: REGION_ID, dnsNameservers: [] };
  const v1 = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;

  it('a network lies in usable unicast space, v1 and v2', async () => {
    const unusable = [
      '0.0.0.0/24',
      '127.0.0.0/24',
      '169.254.0.0/24',
      '224.0.0.0/24',
      '240.0.0.0/8',
      '255.255.255.0/24',
    ];
    for (const prefix of unusable) {
      await refused(
        'POST',
        '/api/v2/networks',
        { metadata: { name: 'n' }, spec: { ...spec, prefix } },
        422,
        'spec.prefix:usableAddressSpace',
      );
    }
    const identity = await send('POST', `${v1}/identities`, { metadata: { name: 'i' }, spec: { regionId: REGION_ID } });
    assert.equal(identity.statusCode, 201, identity.body);
    const identityID = identity.json<{ metadata: { id: string } }>().metadata.id;
    await refused(
      'POST',
      `${v1}/identities/${identityID}/networks`,
      { metadata: { name: 'n' }, spec: { prefix: '127.0.0.0/24', dnsNameservers: [] } },
      400,
      'spec.prefix:usableAddressSpace',
    );
  });

  it("a route's next hop is a host of the network, on create and on update", async () => {
    const routes = (nexthop: string) => [{ prefix: '0.0.0.0/0', nexthop }];
    for (const nexthop of ['10.9.9.9', '10.0.0.0', '10.0.0.255']) {
      await refused(
        'POST',
        '/api/v2/networks',
        { metadata: { name: 'n' }, spec: { ...spec, prefix: '10.0.0.0/24', routes: routes(nexthop) } },
        422,
        'spec.routes[0].nexthop:inNetwork',
      );
    }
    const fine = await send('POST', '/api/v2/networks', {
      metadata: { name: 'n' },
      spec: { ...spec, prefix: '10.0.0.0/24', routes: routes('10.0.0.254') },
    });
    assert.equal(fine.statusCode, 201, fine.body);
    await refused(
      'PUT',
      `/api/v2/networks/${network}`,
      { metadata: { name: 'n' }, spec: { dnsNameservers: [], routes: routes('8.8.8.8') } },
      422,
      'spec.routes[0].nexthop:inNetwork',
    );
  });

  it('a load-balancer member is a unicast host (routed members off the network stay, as upstream), create and update', async () => {
    for (const address of ['127.0.0.1', '0.0.0.0', '224.0.0.5', '255.255.255.255']) {
      await refused(
        'POST',
        '/api/v2/loadbalancers',
        { metadata: { name: 'lb2' }, spec: { networkId: network, listeners: [listener(address)] } },
        422,
        'spec.listeners[0].pool.members[0].address:usableAddressSpace',
      );
    }
    await refused(
      'PUT',
      `/api/v2/loadbalancers/${loadBalancer}`,
      { metadata: { name: 'lb' }, spec: { listeners: [listener('169.254.169.254')] } },
      422,
      'spec.listeners[0].pool.members[0].address:usableAddressSpace',
    );
    const routed = await send('PUT', `/api/v2/loadbalancers/${loadBalancer}`, {
      metadata: { name: 'lb' },
      spec: { listeners: [listener('10.0.0.10')] },
    });
    assert.equal(routed.statusCode, 202, routed.body);
  });

  it('tenancy ids are label values, refused at their field', async () => {
    const network = (projectID: string) => ({
      metadata: { name: 'n' },
      spec: { ...spec, prefix: '10.1.0.0/24', projectId: projectID },
    });
    await refused('POST', '/api/v2/networks', network('p'.repeat(64)), 400, 'spec.projectId:maxLength');
    await refused('POST', '/api/v2/networks', network('x\n'), 400, 'spec.projectId:pattern');
    await refused(
      'POST',
      `/api/v1/organizations/${ORG_A}/projects/x%0A/identities`,
      { metadata: { name: 'i' }, spec: { regionId: REGION_ID } },
      400,
      'projectID:pattern',
    );
  });
});

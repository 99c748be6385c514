import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { identityType, labels, networkType, type Identity, type Network } from '../../apis/index.ts';
import { apiFixture, NAMESPACE, ORG_A, PROJECT_A, REGION_ID, type ApiFixture } from '../testing/api.ts';

describe('/api/v2/networks', () => {
  let f: ApiFixture;
  let auth: { authorization: string };
  before(async () => {
    f = await apiFixture();
    auth = { authorization: `Bearer ${f.tokens.a}` };
  });
  after(() => f.close());

  const create = (spec: Record<string, unknown> = {}, name = 'net-1') =>
    f.api.inject({
      method: 'POST',
      url: '/api/v2/networks',
      headers: auth,
      payload: {
        metadata: { name, description: 'first', tags: [{ name: 'team', value: 'a' }] },
        spec: {
          organizationId: ORG_A,
          projectId: PROJECT_A,
          regionId: REGION_ID,
          prefix: '192.168.0.0/24',
          dnsNameservers: ['8.8.8.8'],
          ...spec,
        },
      },
    });

  it('creates an identity for the network and the network owned by it, with upstream labels', async () => {
    const response = await create();
    assert.equal(response.statusCode, 201);
    const body = response.json<{ metadata: { id: string; provisioningStatus: string; tags: unknown } }>();
    assert.equal(body.metadata.provisioningStatus, 'pending');
    assert.deepEqual(body.metadata.tags, [{ name: 'team', value: 'a' }]);
    const network = await f.store.get<Network>(networkType, NAMESPACE, body.metadata.id);
    const identityID = network.metadata.labels?.[labels.identityID] ?? '';
    const identity = await f.store.get<Identity>(identityType, NAMESPACE, identityID);
    const identityLabels = identity.metadata.labels ?? {};
    assert.equal(identityLabels[labels.organization], ORG_A);
    assert.equal(identityLabels[labels.regionID], REGION_ID);
    assert.equal(network.metadata.ownerReferences?.[0]?.uid, identity.metadata.uid);
    assert.deepEqual(network.spec.reservations, { prefixLength: 25, providerReservedPrefixLength: 28 });
    assert.equal(network.metadata.labels?.[labels.name], 'net-1');
  });

  it('reads provisioning state from the Available condition', async () => {
    const id = (await create({}, 'net-2')).json<{ metadata: { id: string } }>().metadata.id;
    await f.store.patch(
      networkType,
      NAMESPACE,
      id,
      {
        type: 'merge',
        patch: {
          status: {
            conditions: [
              {
                type: 'Available',
                status: 'True',
                reason: 'Provisioned',
                message: 'Provisioned',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
            openstack: { networkID: 'neutron-secret-id' },
          },
        },
      },
      { subresource: 'status' },
    );
    const read = await f.api.inject({ method: 'GET', url: `/api/v2/networks/${id}`, headers: auth });
    assert.equal(read.statusCode, 200);
    assert.equal(read.json<{ metadata: { provisioningStatus: string } }>().metadata.provisioningStatus, 'provisioned');
    assert.ok(!read.body.includes('neutron-secret-id'), 'no OpenStack detail in a read');
  });

  it('updates the mutable fields (202) and keeps the prefix', async () => {
    const id = (await create({}, 'net-3')).json<{ metadata: { id: string } }>().metadata.id;
    const response = await f.api.inject({
      method: 'PUT',
      url: `/api/v2/networks/${id}`,
      headers: auth,
      payload: { metadata: { name: 'renamed' }, spec: { dnsNameservers: ['1.1.1.1'] } },
    });
    assert.equal(response.statusCode, 202);
    const network = await f.store.get<Network>(networkType, NAMESPACE, id);
    assert.deepEqual(network.spec.dnsNameservers, ['1.1.1.1']);
    assert.equal(network.spec.prefix, '192.168.0.0/24');
    assert.equal(network.metadata.labels?.[labels.name], 'renamed');
  });

  it('refuses a prefix smaller than /24 and a reservation not longer than the prefix, naming each field', async () => {
    const before = await f.snapshot();
    const response = await create({ prefix: '10.0.0.0/25', reservations: { prefixLength: 24 } });
    assert.equal(response.statusCode, 422);
    const fields = response
      .json<{ errors: { field: string; rule: string }[] }>()
      .errors.map((e) => `${e.field}:${e.rule}`);
    assert.deepEqual(fields, ['spec.prefix:minimumPrefixSize', 'spec.reservations.prefixLength:longerThanPrefix']);
    assert.deepEqual(await f.snapshot(), before);
  });

  it('refuses an unknown region without writing anything', async () => {
    const before = await f.snapshot();
    const response = await create({ regionId: 'no-such-region' });
    assert.equal(response.statusCode, 422);
    assert.equal(response.json<{ errors: { field: string }[] }>().errors[0]?.field, 'spec.regionId');
    assert.deepEqual(await f.snapshot(), before);
  });

  it('deletes the network and its identity (202), then it is not found', async () => {
    const id = (await create({}, 'net-4')).json<{ metadata: { id: string } }>().metadata.id;
    const identityID = (await f.store.get<Network>(networkType, NAMESPACE, id)).metadata.labels?.[labels.identityID];
    assert.equal(
      (await f.api.inject({ method: 'DELETE', url: `/api/v2/networks/${id}`, headers: auth })).statusCode,
      202,
    );
    assert.equal((await f.api.inject({ method: 'GET', url: `/api/v2/networks/${id}`, headers: auth })).statusCode, 404);
    await assert.rejects(f.store.get(identityType, NAMESPACE, identityID ?? ''));
  });
});

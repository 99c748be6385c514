import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { identityType, labels, networkType } from '../../apis/index.ts';
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
    const network = await f.store.get(networkType, NAMESPACE, body.metadata.id);
    const identityID = network.metadata.labels?.[labels.identityID] ?? '';
    const identity = await f.store.get(identityType, NAMESPACE, identityID);
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
    const network = await f.store.get(networkType, NAMESPACE, id);
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

  it('refuses 0.0.0.0/0, host bits and non-canonical octets in any prefix, naming the field and rule', async () => {
    const before = await f.snapshot();
    const refusal = async (spec: Record<string, unknown>) => {
      const response = await create(spec);
      const errors = response.json<{ errors: { field: string; rule: string }[] }>().errors;
      return [response.statusCode, ...errors.map((e) => `${e.field}:${e.rule}`)];
    };
    assert.deepEqual(await refusal({ prefix: '0.0.0.0/0' }), [422, 'spec.prefix:maximumPrefixSize']);
    assert.deepEqual(await refusal({ prefix: '10.50.0.5/24' }), [400, 'spec.prefix:canonicalPrefix']);
    assert.deepEqual(await refusal({ prefix: '010.050.000.000/24' }), [400, 'spec.prefix:pattern']);
    assert.deepEqual(await refusal({ routes: [{ prefix: '10.1.2.3/16', nexthop: '192.168.0.9' }] }), [
      400,
      'spec.routes[0].prefix:canonicalPrefix',
    ]);
    const message = (await create({ prefix: '10.50.0.5/24' })).json<{ errors: { message: string }[] }>().errors[0];
    assert.match(message?.message ?? '', /no host bits set/);
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
    const identityID = (await f.store.get(networkType, NAMESPACE, id)).metadata.labels?.[labels.identityID];
    assert.equal(
      (await f.api.inject({ method: 'DELETE', url: `/api/v2/networks/${id}`, headers: auth })).statusCode,
      202,
    );
    assert.equal((await f.api.inject({ method: 'GET', url: `/api/v2/networks/${id}`, headers: auth })).statusCode, 404);
    await assert.rejects(f.store.get(identityType, NAMESPACE, identityID ?? ''));
  });

  it('takes routes as upstream spells them (nexthop) and lists by tag', async () => {
    const response = await create({ routes: [{ prefix: '10.0.0.0/8', nexthop: '192.168.0.10' }] }, 'net-routes');
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json<{ metadata: { id: string }; spec: { routes: unknown } }>();
    assert.deepEqual(body.spec.routes, [{ prefix: '10.0.0.0/8', nexthop: '192.168.0.10' }]);
    const stored = await f.store.get(networkType, NAMESPACE, body.metadata.id);
    assert.deepEqual(stored.spec.routes, [{ prefix: '10.0.0.0/8', nextHop: '192.168.0.10' }]);
    const tagged = await f.api.inject({ method: 'GET', url: '/api/v2/networks?tag=team%3Da', headers: auth });
    assert.ok(tagged.json<unknown[]>().length > 0);
    const other = await f.api.inject({ method: 'GET', url: '/api/v2/networks?tag=team%3Db', headers: auth });
    assert.deepEqual(other.json(), []);
  });

  it('a malformed id in the path is a bad request naming the parameter', async () => {
    const response = await f.api.inject({ method: 'GET', url: '/api/v2/networks/not-a-uuid', headers: auth });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(
      response.json<{ errors: { field: string; rule: string }[] }>().errors.map((e) => `${e.field}:${e.rule}`),
      ['networkID:pattern'],
    );
  });

  describe('references', () => {
    const reference = 'clusters.kubernetes.unikorn-cloud.org/c1';
    const url = (id: string, ref = reference) => `/api/v2/networks/${id}/references/${encodeURIComponent(ref)}`;
    const send = (method: 'PUT' | 'DELETE', path: string) => f.api.inject({ method, url: path, headers: auth });

    it('a held reference is a finalizer; holding and releasing are idempotent (201, 204, no body)', async () => {
      const id = (await create({}, 'net-ref-1')).json<{ metadata: { id: string } }>().metadata.id;
      const added = await send('PUT', url(id));
      assert.equal(added.statusCode, 201);
      assert.equal(added.body, '');
      assert.equal((await send('PUT', url(id))).statusCode, 201, 'again: still 201');
      const held = await f.store.get(networkType, NAMESPACE, id);
      assert.deepEqual(held.metadata.finalizers, [reference], 'held once');
      const removed = await send('DELETE', url(id));
      assert.equal(removed.statusCode, 204);
      assert.equal(removed.body, '');
      assert.equal((await send('DELETE', url(id))).statusCode, 204, 'again: still 204');
      assert.equal((await f.store.get(networkType, NAMESPACE, id)).metadata.finalizers, undefined);
    });

    it('a referenced network refuses the v2 delete (403) until the reference is released', async () => {
      const id = (await create({}, 'net-ref-2')).json<{ metadata: { id: string } }>().metadata.id;
      await send('PUT', url(id));
      const refused = await send('DELETE', `/api/v2/networks/${id}`);
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json<{ error: string }>().error, 'forbidden');
      assert.equal((await f.store.get(networkType, NAMESPACE, id)).metadata.deletionTimestamp, undefined);
      await send('DELETE', url(id));
      assert.equal((await send('DELETE', `/api/v2/networks/${id}`)).statusCode, 202);
    });

    it("refuses a name that is no qualified reference, and never releases the provisioner's finalizer", async () => {
      const id = (await create({}, 'net-ref-3')).json<{ metadata: { id: string } }>().metadata.id;
      const bad = await send('PUT', url(id, 'not qualified'));
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json<{ errors: { field: string }[] }>().errors[0]?.field, 'reference');
      assert.equal((await send('PUT', url(id, 'unikorn'))).statusCode, 400);
      assert.equal((await send('DELETE', url(id, 'unikorn'))).statusCode, 403);
      assert.equal((await send('PUT', url('00000000-0000-4000-8000-00000000dead'))).statusCode, 404);
    });

    it('another organization cannot hold or release a reference (404, as for what does not exist)', async () => {
      const id = (await create({}, 'net-ref-4')).json<{ metadata: { id: string } }>().metadata.id;
      const b = { authorization: `Bearer ${f.tokens.b}` };
      assert.equal((await f.api.inject({ method: 'PUT', url: url(id), headers: b })).statusCode, 404);
      assert.equal((await f.api.inject({ method: 'DELETE', url: url(id), headers: b })).statusCode, 404);
    });
  });
});

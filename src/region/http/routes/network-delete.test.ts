/**
 * A v2 network delete removes the network (whose controller then removes what is on it) and its own identity only
 * when nothing else lives there (ADR 0034): a network, server or security group made through v1 in that identity is
 * not the delete's to remove. Creates on a network whose identity is on its way out are refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ResourceType } from '../../../kube/resource-type.ts';
import { identityType, labels, networkType, serverType } from '../../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  IMAGE,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string };
}

describe('DELETE /api/v2/networks/{id}: its blast radius', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture();
  });
  after(() => f.close());

  const identityOf = async (networkID: string) =>
    (await f.store.get(networkType, NAMESPACE, networkID)).metadata.labels?.[labels.identityID] ?? '';
  const exists = async (type: ResourceType, name: string) =>
    (await f.store.list(type, { namespace: NAMESPACE })).items.some((o) => o.metadata.name === name);

  it('a network alone in its identity takes the identity with it', async () => {
    const network = await createNetwork(f, f.tokens.a, undefined, undefined, 'alone');
    const identity = await identityOf(network);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/networks/${network}`)).status, 202);
    assert.equal(await exists(networkType, network), false);
    assert.equal(await exists(identityType, identity), false);
  });

  it('a v1 network and its server in the same identity survive the v2 delete, and so does the identity', async () => {
    const network = await createNetwork(f, f.tokens.a, undefined, undefined, 'shared');
    const identity = await identityOf(network);
    const base = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}/identities/${identity}`;
    const v1Network = await call<Read>(f, f.tokens.a, 'POST', `${base}/networks`, {
      metadata: { name: 'v1-net' },
      spec: { prefix: '10.30.0.0/24', dnsNameservers: [] },
    });
    assert.equal(v1Network.status, 201);
    const v1Server = await call<Read>(f, f.tokens.a, 'POST', `${base}/servers`, {
      metadata: { name: 'v1-server' },
      spec: { flavorId: FLAVOR, imageId: IMAGE, networks: [{ id: v1Network.body.metadata.id }] },
    });
    assert.equal(v1Server.status, 201);

    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/networks/${network}`)).status, 202);
    assert.equal(await exists(networkType, network), false);
    assert.equal(await exists(identityType, identity), true, 'the identity still holds the v1 network');
    assert.equal(await exists(networkType, v1Network.body.metadata.id), true);
    assert.equal(await exists(serverType, v1Server.body.metadata.id), true);
  });

  it('a create on a network whose identity is being deleted is a 409, writing nothing', async () => {
    const network = await createNetwork(f, f.tokens.a, undefined, undefined, 'doomed');
    const identityID = await identityOf(network);
    // A finalizer holds the identity while its delete is under way, as its controller's does.
    const identity = await f.store.get(identityType, NAMESPACE, identityID);
    await f.store.update(identityType, { ...identity, metadata: { ...identity.metadata, finalizers: ['test/hold'] } });
    await f.store.delete(identityType, NAMESPACE, identityID);
    const before = await f.snapshot();
    const refused = await call(f, f.tokens.a, 'POST', '/api/v2/volumes', {
      metadata: { name: 'late' },
      spec: { networkId: network, volumeClassId: 'class-fast', sizeGiB: 10 },
    });
    assert.equal(refused.status, 409);
    assert.match(JSON.stringify(refused.body), /identity is being deleted/);
    const server = await call(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name: 'late' },
      spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE },
    });
    assert.equal(server.status, 409);
    assert.deepEqual(await f.snapshot(), before, 'nothing written');
  });
});

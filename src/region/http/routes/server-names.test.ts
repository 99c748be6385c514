/**
 * A server's name is its identity on its network (ADR 0034, upstream's TestServerCreateV2ConflictOnDuplicateName and
 * TestServerUpdateV2RejectsRename): a second server of one name on one network is refused in both API generations,
 * the same name on another network is fine, and a rename or a flavor change is refused, writing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, serverType } from '../../apis/index.ts';
import { serverIDFor } from '../resources/server.ts';
import {
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  FLAVOR_BAREMETAL,
  IMAGE,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  violationsOf,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string };
}

describe('server names: unique on a network, immutable', () => {
  let f: ApiFixture;
  let network = '';
  let other = '';
  const create = (name: string, networkID = network) =>
    call<Read>(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name },
      spec: { networkId: networkID, flavorId: FLAVOR, imageId: IMAGE },
    });

  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a);
    other = await createNetwork(f, f.tokens.a, undefined, undefined, 'other');
  });
  after(() => f.close());

  it('v2: a second server of one name on one network is a 409; on another network it is a new server', async () => {
    const first = await create('web-1');
    assert.equal(first.status, 201);
    assert.equal(first.body.metadata.id, serverIDFor(network, 'web-1'));
    const before = await f.snapshot();
    const second = await create('web-1');
    assert.equal(second.status, 409);
    assert.match(JSON.stringify(second.body), /a server named web-1 already exists on this network/);
    assert.deepEqual(await f.snapshot(), before, 'nothing written');
    const elsewhere = await create('web-1', other);
    assert.equal(elsewhere.status, 201);
    assert.notEqual(elsewhere.body.metadata.id, first.body.metadata.id);
  });

  it('v2: a rename is a 422 naming metadata.name, a flavor change a 422 naming spec.flavorId; nothing written', async () => {
    const { body } = await create('web-2');
    const before = await f.snapshot();
    const renamed = await call(f, f.tokens.a, 'PUT', `/api/v2/servers/${body.metadata.id}`, {
      metadata: { name: 'web-renamed' },
      spec: { flavorId: FLAVOR, imageId: IMAGE },
    });
    assert.equal(renamed.status, 422);
    assert.deepEqual(violationsOf(renamed.body), ['metadata.name:immutable']);
    const reflavored = await call(f, f.tokens.a, 'PUT', `/api/v2/servers/${body.metadata.id}`, {
      metadata: { name: 'web-2' },
      spec: { flavorId: FLAVOR_BAREMETAL, imageId: IMAGE },
    });
    assert.equal(reflavored.status, 422);
    assert.deepEqual(violationsOf(reflavored.body), ['spec.flavorId:immutable']);
    assert.deepEqual(await f.snapshot(), before, 'nothing written');
    const kept = await call(f, f.tokens.a, 'PUT', `/api/v2/servers/${body.metadata.id}`, {
      metadata: { name: 'web-2', description: 'same name' },
      spec: { flavorId: FLAVOR, imageId: IMAGE },
    });
    assert.equal(kept.status, 202);
    const stored = await f.store.get(serverType, NAMESPACE, body.metadata.id);
    assert.equal(stored.metadata.labels?.[labels.name], 'web-2');
  });

  it('v1: a duplicate name on the network and a rename are 400s naming metadata.name; v2 and v1 share names', async () => {
    const project = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}`;
    const identity = await call<Read>(f, f.tokens.a, 'POST', `${project}/identities`, {
      metadata: { name: 'v1' },
      spec: { regionId: REGION_ID },
    });
    const base = `${project}/identities/${identity.body.metadata.id}`;
    const v1Network = await call<Read>(f, f.tokens.a, 'POST', `${base}/networks`, {
      metadata: { name: 'v1-net' },
      spec: { prefix: '10.20.0.0/24', dnsNameservers: [] },
    });
    const body = (name: string) => ({
      metadata: { name },
      spec: { flavorId: FLAVOR, imageId: IMAGE, networks: [{ id: v1Network.body.metadata.id }] },
    });
    const first = await call<Read>(f, f.tokens.a, 'POST', `${base}/servers`, body('app'));
    assert.equal(first.status, 201);
    const before = await f.snapshot();
    const again = await call(f, f.tokens.a, 'POST', `${base}/servers`, body('app'));
    assert.equal(again.status, 400);
    assert.deepEqual(violationsOf(again.body), ['metadata.name:unique']);
    // The same name through v2 on that network is the same server.
    const v2 = await create('app', v1Network.body.metadata.id);
    assert.equal(v2.status, 409);
    const renamed = await call(f, f.tokens.a, 'PUT', `${base}/servers/${first.body.metadata.id}`, body('app-2'));
    assert.equal(renamed.status, 400);
    assert.deepEqual(violationsOf(renamed.body), ['metadata.name:immutable']);
    assert.deepEqual(await f.snapshot(), before, 'nothing written');
  });
});

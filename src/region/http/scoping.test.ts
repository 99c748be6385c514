/**
 * Tenancy: organization A's token sees none of organization B's resources (lists leave them out, reads, updates,
 * deletes and actions answer 404, exactly as for something that does not exist) and cannot create in B; a token
 * limited to one project sees only that project. No token: 401.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  IMAGE,
  ORG_A,
  ORG_B,
  PROJECT_A,
  PROJECT_B,
  REGION_ID,
  type ApiFixture,
} from './testing/api.ts';

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';

describe('scoping by token', () => {
  let f: ApiFixture;
  const ids: Record<string, string> = {};
  const listeners = [{ name: 'web', protocol: 'tcp', port: 80, pool: { members: [] } }];

  before(async () => {
    f = await apiFixture();
    const b = f.tokens.b;
    ids['network'] = await createNetwork(f, b, ORG_B, PROJECT_B);
    const made = async (url: string, spec: Record<string, unknown>) => {
      const { status, body } = await call<{ metadata: { id: string } }>(f, b, 'POST', url, {
        metadata: { name: 'b' },
        spec,
      });
      assert.equal(status, 201, url);
      return body.metadata.id;
    };
    ids['securitygroup'] = await made('/api/v2/securitygroups', { networkId: ids['network'], rules: [] });
    ids['server'] = await made('/api/v2/servers', { networkId: ids['network'], flavorId: FLAVOR, imageId: IMAGE });
    ids['loadbalancer'] = await made('/api/v2/loadbalancers', { networkId: ids['network'], listeners });
    ids['volume'] = await made('/api/v2/volumes', {
      networkId: ids['network'],
      volumeClassId: 'class-fast',
      sizeGiB: 10,
    });
    ids['ca'] = await made('/api/v2/sshcertificateauthorities', {
      organizationId: ORG_B,
      projectId: PROJECT_B,
      publicKey: SSH_KEY,
    });
  });
  after(() => f.close());

  const collections = {
    network: '/api/v2/networks',
    securitygroup: '/api/v2/securitygroups',
    server: '/api/v2/servers',
    loadbalancer: '/api/v2/loadbalancers',
    volume: '/api/v2/volumes',
    ca: '/api/v2/sshcertificateauthorities',
  } as const;

  it("organization A's lists leave out every one of B's resources; B's own list holds them", async () => {
    for (const [kind, url] of Object.entries(collections)) {
      const mine = await call<unknown[]>(f, f.tokens.a, 'GET', url);
      assert.equal(mine.status, 200, url);
      assert.deepEqual(mine.body, [], `${kind} visible to A`);
      const filtered = await call<unknown[]>(f, f.tokens.a, 'GET', `${url}?organizationID=${ORG_B}`);
      assert.deepEqual(filtered.body, [], `${kind} visible to A through a filter`);
      const theirs = await call<unknown[]>(f, f.tokens.b, 'GET', url);
      assert.equal(theirs.body.length, 1, `${kind} not visible to B`);
    }
  });

  it("reads, updates, deletes and actions on B's resources answer A with 404, and nothing changes", async () => {
    const before = await f.snapshot();
    for (const [kind, url] of Object.entries(collections)) {
      const id = ids[kind] ?? '';
      assert.equal((await call(f, f.tokens.a, 'GET', `${url}/${id}`)).status, 404, `GET ${kind}`);
      assert.equal((await call(f, f.tokens.a, 'DELETE', `${url}/${id}`)).status, 404, `DELETE ${kind}`);
    }
    const put = await call(f, f.tokens.a, 'PUT', `/api/v2/networks/${ids['network'] ?? ''}`, {
      metadata: { name: 'mine' },
      spec: { dnsNameservers: [] },
    });
    assert.equal(put.status, 404);
    for (const action of ['start', 'stop', 'softreboot', 'hardreboot']) {
      assert.equal((await call(f, f.tokens.a, 'POST', `/api/v2/servers/${ids['server'] ?? ''}/${action}`)).status, 404);
    }
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/servers/${ids['server'] ?? ''}/sshkey`)).status, 404);
    assert.deepEqual(await f.snapshot(), before);
  });

  it('A cannot create in B: not in its project, nor on its network', async () => {
    const before = await f.snapshot();
    const network = await call(f, f.tokens.a, 'POST', '/api/v2/networks', {
      metadata: { name: 'x' },
      spec: {
        organizationId: ORG_B,
        projectId: PROJECT_B,
        regionId: REGION_ID,
        prefix: '10.0.0.0/24',
        dnsNameservers: [],
      },
    });
    assert.equal(network.status, 404);
    const sg = await call(f, f.tokens.a, 'POST', '/api/v2/securitygroups', {
      metadata: { name: 'x' },
      spec: { networkId: ids['network'], rules: [] },
    });
    assert.equal(sg.status, 422);
    const server = await call(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name: 'x' },
      spec: { networkId: ids['network'], flavorId: FLAVOR, imageId: IMAGE },
    });
    assert.equal(server.status, 422);
    const ca = await call(f, f.tokens.a, 'POST', '/api/v2/sshcertificateauthorities', {
      metadata: { name: 'x' },
      spec: { organizationId: ORG_B, projectId: PROJECT_B, publicKey: SSH_KEY },
    });
    assert.equal(ca.status, 404);
    assert.deepEqual(await f.snapshot(), before);
  });

  it("a project-limited token sees its project's network and not another project's of the same organization", async () => {
    const own = await createNetwork(f, f.tokens.a, ORG_A, PROJECT_A, 'own');
    const other = await createNetwork(f, f.tokens.a, ORG_A, 'project-other', 'other');
    const list = await call<{ metadata: { id: string } }[]>(f, f.tokens.aProjectOnly, 'GET', '/api/v2/networks');
    assert.deepEqual(
      list.body.map((n) => n.metadata.id),
      [own],
    );
    assert.equal((await call(f, f.tokens.aProjectOnly, 'GET', `/api/v2/networks/${other}`)).status, 404);
  });

  it('401 without a token, with a malformed one, and with one signed by another key', async () => {
    assert.equal((await f.api.inject({ method: 'GET', url: '/api/v2/networks' })).statusCode, 401);
    const garbage = await f.api.inject({
      method: 'GET',
      url: '/api/v2/networks',
      headers: { authorization: 'Bearer x.y.z' },
    });
    assert.equal(garbage.statusCode, 401);
    // RFC 9728: the challenge says where the protected resource metadata is, which names the token issuer.
    assert.equal(
      garbage.headers['www-authenticate'],
      'Bearer resource_metadata="http://localhost/.well-known/openid-protected-resource"',
    );
    const other = await apiFixture();
    try {
      const foreign = await f.api.inject({
        method: 'GET',
        url: '/api/v2/networks',
        headers: { authorization: `Bearer ${other.tokens.a}` },
      });
      assert.equal(foreign.statusCode, 401);
    } finally {
      await other.close();
    }
    // An unauthenticated request is refused before its body is even read.
    const unauthenticated = await f.api.inject({
      method: 'POST',
      url: '/api/v2/networks',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    assert.equal(unauthenticated.statusCode, 401);
  });

  it('organization A still sees its own region inventory, B sees none of A', async () => {
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/regions/${REGION_ID}/images`)).status, 200);
    assert.equal(
      (await call(f, f.tokens.b, 'GET', `/api/v2/regions/${REGION_ID}/images?organizationID=${ORG_A}`)).status,
      404,
    );
  });
});

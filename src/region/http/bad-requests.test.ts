/**
 * Bad requests get a problem document naming the field and the rule, and change nothing in the store: a schema
 * violation for every resource, immutable-field changes, unknown flavor and image, capacity bounds, malformed JSON,
 * a non-JSON body and an oversized one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serverType } from '../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  IMAGE,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  VOLUME_CLASS,
  refusedUnchanged,
  violationsOf,
  type ApiFixture,
} from './testing/api.ts';

const listener = (name: string, port: number, proxyProtocolV2 = false) => ({
  name,
  protocol: 'tcp',
  port,
  pool: { proxyProtocolV2, members: [{ address: '192.168.0.10', port: 8080 }] },
});

describe('bad requests', () => {
  let f: ApiFixture;
  let network = '';
  let server = '';
  let loadBalancer = '';
  let volume = '';
  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a);
    const make = async (url: string, spec: Record<string, unknown>) => {
      const { status, body } = await call<{ metadata: { id: string } }>(f, f.tokens.a, 'POST', url, {
        metadata: { name: 'ok' },
        spec: { networkId: network, ...spec },
      });
      assert.equal(status, 201, url);
      return body.metadata.id;
    };
    server = await make('/api/v2/servers', { flavorId: FLAVOR, imageId: IMAGE });
    loadBalancer = await make('/api/v2/loadbalancers', { listeners: [listener('web', 80)] });
    volume = await make('/api/v2/volumes', { volumeClassId: VOLUME_CLASS, sizeGiB: 20 });
  });
  after(() => f.close());

  /** A server create body, the valid one with `spec` laid over it. */
  const serverBody = (spec: Record<string, unknown>) => ({
    metadata: { name: 'v' },
    spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE, ...spec },
  });

  /** Sends the request, expects `status` and a problem naming `expected` (field:rule), and an unchanged store. */
  const refused = (method: 'POST' | 'PUT', url: string, payload: unknown, status: number, expected: string[]) =>
    refusedUnchanged(f, method, url, payload, status, expected);

  it('a schema violation for every resource (400)', async () => {
    const spec = { organizationId: ORG_A, projectId: PROJECT_A, regionId: REGION_ID, dnsNameservers: [] };
    await refused(
      'POST',
      '/api/v2/networks',
      { metadata: { name: 'n' }, spec: { ...spec, prefix: '10.0.0/24' } },
      400,
      ['spec.prefix:pattern'],
    );
    await refused(
      'POST',
      '/api/v2/securitygroups',
      { metadata: { name: 's' }, spec: { networkId: network, rules: [{ direction: 'sideways', protocol: 'tcp' }] } },
      400,
      ['spec.rules[0].direction:enum'],
    );
    await refused(
      'POST',
      '/api/v2/servers',
      { metadata: { name: 'v' }, spec: { networkId: network, imageId: IMAGE } },
      400,
      ['spec.flavorId:required'],
    );
    await refused(
      'POST',
      '/api/v2/loadbalancers',
      { metadata: { name: 'l' }, spec: { networkId: network, listeners: [{ ...listener('web', 80), port: 70000 }] } },
      400,
      ['spec.listeners[0].port:maximum'],
    );
    await refused(
      'POST',
      '/api/v2/volumes',
      { metadata: { name: 'd' }, spec: { networkId: network, volumeClassId: VOLUME_CLASS, sizeGiB: 'big' } },
      400,
      ['spec.sizeGiB:type'],
    );
    await refused(
      'POST',
      '/api/v2/sshcertificateauthorities',
      { metadata: { name: 'c' }, spec: { organizationId: ORG_A, projectId: PROJECT_A, publicKey: 'not a key' } },
      400,
      ['spec.publicKey:pattern'],
    );
    await refused(
      'POST',
      '/api/v2/networks',
      { metadata: { name: 'bad name!' }, spec: { ...spec, prefix: '10.0.0.0/24' } },
      400,
      ['metadata.name:pattern'],
    );
  });

  it("the spec's rules (422): ports on a layer 3 rule, listener uniqueness and timeouts, a VIP off the network", async () => {
    await refused(
      'POST',
      '/api/v2/securitygroups',
      {
        metadata: { name: 's' },
        spec: { networkId: network, rules: [{ direction: 'ingress', protocol: 'icmp', port: 22 }] },
      },
      422,
      ['spec.rules[0].port:layer4Only'],
    );
    await refused(
      'POST',
      '/api/v2/loadbalancers',
      {
        metadata: { name: 'l' },
        spec: {
          networkId: network,
          vipAddress: '10.9.9.9',
          listeners: [listener('web', 80), { ...listener('web', 80), protocol: 'udp', idleTimeoutSeconds: 5 }],
        },
      },
      422,
      ['spec.listeners[1].name:unique', 'spec.listeners[1].idleTimeoutSeconds:tcpOnly', 'spec.vipAddress:inNetwork'],
    );
  });

  it('immutable fields: the flavor, a listener protocol and port, proxyProtocolV2, a volume class; a volume never shrinks', async () => {
    await refused(
      'PUT',
      `/api/v2/servers/${server}`,
      { metadata: { name: 'ok' }, spec: { flavorId: 'flavor-metal', imageId: IMAGE } },
      422,
      ['spec.flavorId:immutable'],
    );
    await refused(
      'PUT',
      `/api/v2/loadbalancers/${loadBalancer}`,
      { metadata: { name: 'ok' }, spec: { listeners: [{ ...listener('web', 81), protocol: 'udp' }] } },
      422,
      ['spec.listeners[0].port:immutable', 'spec.listeners[0].protocol:immutable'],
    );
    await refused(
      'PUT',
      `/api/v2/loadbalancers/${loadBalancer}`,
      { metadata: { name: 'ok' }, spec: { listeners: [listener('web', 80, true)] } },
      422,
      ['spec.listeners[0].pool.proxyProtocolV2:immutable'],
    );
    await refused(
      'PUT',
      `/api/v2/volumes/${volume}`,
      { metadata: { name: 'ok' }, spec: { volumeClassId: 'other', sizeGiB: 20 } },
      422,
      ['spec.volumeClassId:immutable'],
    );
    await refused(
      'PUT',
      `/api/v2/volumes/${volume}`,
      { metadata: { name: 'ok' }, spec: { volumeClassId: VOLUME_CLASS, sizeGiB: 15 } },
      422,
      ['spec.sizeGiB:noShrink'],
    );
  });

  it('unknown flavor and image, an image not ready or of another architecture, capacity bounds, bad user data', async () => {
    await refused('POST', '/api/v2/servers', serverBody({ flavorId: 'no-such-flavor' }), 422, ['spec.flavorId:exists']);
    await refused('POST', '/api/v2/servers', serverBody({ imageId: 'no-such-image' }), 422, ['spec.imageId:exists']);
    await refused('POST', '/api/v2/servers', serverBody({ imageId: 'image-b-private' }), 422, ['spec.imageId:exists']);
    await refused('POST', '/api/v2/servers', serverBody({ imageId: 'image-pending' }), 422, ['spec.imageId:ready']);
    await refused('POST', '/api/v2/servers', serverBody({ imageId: 'image-arm' }), 422, ['spec.imageId:architecture']);
    await refused(
      'PUT',
      `/api/v2/servers/${server}`,
      { metadata: { name: 'ok' }, spec: { flavorId: FLAVOR, imageId: 'nope' } },
      422,
      ['spec.imageId:exists'],
    );
    await refused(
      'POST',
      '/api/v2/servers',
      serverBody({ userData: Buffer.from('echo hello\n').toString('base64') }),
      422,
      ['spec.userData:cloudInit'],
    );
    await refused(
      'POST',
      '/api/v2/servers',
      serverBody({ sshInjection: 'identityKeypair', sshCertificateAuthorityId: 'x' }),
      422,
      ['spec.sshInjection:exclusive'],
    );
    await refused(
      'POST',
      '/api/v2/volumes',
      { metadata: { name: 'd' }, spec: { networkId: network, volumeClassId: VOLUME_CLASS, sizeGiB: 500 } },
      422,
      ['spec.sizeGiB:maxCapacity'],
    );
    await refused(
      'POST',
      '/api/v2/volumes',
      { metadata: { name: 'd' }, spec: { networkId: network, volumeClassId: 'nope', sizeGiB: 20 } },
      422,
      ['spec.volumeClassId:exists'],
    );
  });

  it('SSH modes are checked as they resolve: ca needs a CA, none refuses one, a pinned server refuses the keypair', async () => {
    await refused('POST', '/api/v2/servers', serverBody({ sshInjection: 'ca' }), 422, [
      'spec.sshInjection:requiresCertificateAuthority',
    ]);
    await refused(
      'POST',
      '/api/v2/servers',
      serverBody({ sshInjection: 'none', sshCertificateAuthorityId: 'x' }),
      422,
      ['spec.sshInjection:exclusive'],
    );
    // Unset with no CA resolves to identityKeypair, whose key_name a pinned (region-credential) create cannot use.
    await refused('POST', '/api/v2/servers', serverBody({ infrastructureRef: 'host-1' }), 422, [
      'spec.infrastructureRef:exclusive',
    ]);
    await refused(
      'POST',
      '/api/v2/servers',
      serverBody({ infrastructureRef: 'host-1', sshInjection: 'identityKeypair' }),
      422,
      ['spec.infrastructureRef:exclusive'],
    );
  });

  it('user data PUT back unchanged is accepted even when it would not pass today; a change is checked', async () => {
    const legacy = Buffer.from('legacy payload').toString('base64');
    await f.store.patch(serverType, NAMESPACE, server, { type: 'merge', patch: { spec: { userData: legacy } } });
    const same = await call(f, f.tokens.a, 'PUT', `/api/v2/servers/${server}`, {
      metadata: { name: 'ok' },
      spec: { flavorId: FLAVOR, imageId: IMAGE, userData: legacy },
    });
    assert.equal(same.status, 202);
    await refused(
      'PUT',
      `/api/v2/servers/${server}`,
      {
        metadata: { name: 'ok' },
        spec: { flavorId: FLAVOR, imageId: IMAGE, userData: Buffer.from('changed').toString('base64') },
      },
      422,
      ['spec.userData:cloudInit'],
    );
  });

  it('malformed JSON, a non-JSON body and an oversized body', async () => {
    const before = await f.snapshot();
    const send = (payload: string, type = 'application/json') =>
      f.api.inject({
        method: 'POST',
        url: '/api/v2/networks',
        headers: { authorization: `Bearer ${f.tokens.a}`, 'content-type': type },
        payload,
      });
    const malformed = await send('{"metadata": {');
    assert.equal(malformed.statusCode, 400);
    assert.deepEqual(violationsOf(malformed.json()), [':json']);
    assert.equal((await send('name=x', 'text/plain')).statusCode, 415);
    const big = await send(JSON.stringify({ metadata: { name: 'x', description: 'x'.repeat(2 * 1024 * 1024) } }));
    assert.equal(big.statusCode, 413);
    assert.deepEqual(violationsOf(big.json()), [':maxBytes']);
    assert.deepEqual(await f.snapshot(), before);
  });

  it('a bodiless request is fine whatever content type it names; a route that takes a body still requires one', async () => {
    const bodiless = (method: 'DELETE' | 'POST', url: string, type: string) =>
      f.api.inject({
        method,
        url,
        headers: { authorization: `Bearer ${f.tokens.a}`, 'content-type': type, 'content-length': '0' },
      });
    for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded']) {
      const stop = await bodiless('POST', `/api/v2/servers/${server}/stop`, type);
      assert.notEqual(stop.statusCode, 400, `${type}: ${stop.body}`);
      assert.notEqual(stop.statusCode, 415, `${type}: ${stop.body}`);
    }
    const deleted = await bodiless('DELETE', `/api/v2/volumes/${volume}`, 'application/json');
    assert.equal(deleted.statusCode, 202, deleted.body);
    const create = await bodiless('POST', '/api/v2/networks', 'application/json');
    assert.equal(create.statusCode, 400);
    assert.deepEqual(violationsOf(create.json()), [':required']);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, networkType, securityGroupType } from '../../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  violationsOf,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string; name: string };
  spec: Record<string, unknown>;
}

describe('v1 networks and security groups (a view over the v2 objects)', () => {
  let f: ApiFixture;
  let identity = '';
  let other = '';
  const base = (id = identity) => `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}/identities/${id}`;
  const identityNamed = async (name: string) =>
    (
      await call<Read>(f, f.tokens.a, 'POST', `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}/identities`, {
        metadata: { name },
        spec: { regionId: REGION_ID },
      })
    ).body.metadata.id;

  before(async () => {
    f = await apiFixture();
    identity = await identityNamed('cluster-1');
    other = await identityNamed('cluster-2');
  });
  after(() => f.close());

  it('creates a network in the identity (201), owned by it; v2 reads the same object', async () => {
    const created = await call<Read>(f, f.tokens.a, 'POST', `${base()}/networks`, {
      metadata: { name: 'vlan-1' },
      spec: { prefix: '10.0.0.0/24', dnsNameservers: ['8.8.8.8'] },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.spec, { regionId: REGION_ID, prefix: '10.0.0.0/24', dnsNameservers: ['8.8.8.8'] });
    const id = created.body.metadata.id;
    const stored = await f.store.get(networkType, NAMESPACE, id);
    assert.equal(stored.metadata.labels?.[labels.identityID], identity);
    assert.equal(stored.metadata.ownerReferences?.[0]?.name, identity);
    assert.deepEqual(stored.spec.reservations, { prefixLength: 25, providerReservedPrefixLength: 28 });
    const v2 = await call<Read>(f, f.tokens.a, 'GET', `/api/v2/networks/${id}`);
    assert.equal(v2.status, 200);
    assert.equal(v2.body.metadata.name, 'vlan-1');
    assert.equal((await call(f, f.tokens.a, 'GET', `${base()}/networks/${id}`)).status, 200);
    assert.equal((await call(f, f.tokens.a, 'GET', `${base(other)}/networks/${id}`)).status, 404, 'another identity');
  });

  it('shows the Neutron ids a cluster provisioner needs once realised, as upstream v1 does', async () => {
    const id = (
      await call<Read>(f, f.tokens.a, 'POST', `${base()}/networks`, {
        metadata: { name: 'realised' },
        spec: { prefix: '10.1.0.0/24', dnsNameservers: [] },
      })
    ).body.metadata.id;
    await f.store.patch(
      networkType,
      NAMESPACE,
      id,
      { type: 'merge', patch: { status: { openstack: { networkID: 'neutron-net', subnetID: 'neutron-subnet' } } } },
      { subresource: 'status' },
    );
    const read = await call<Read>(f, f.tokens.a, 'GET', `${base()}/networks/${id}`);
    assert.deepEqual(read.body.spec['openstack'], { networkId: 'neutron-net', subnetId: 'neutron-subnet' });
  });

  it('refuses a prefix smaller than /24 with 400 naming the field, as the same controller realises it', async () => {
    const before = await f.snapshot();
    const refused = await call(f, f.tokens.a, 'POST', `${base()}/networks`, {
      metadata: { name: 'small' },
      spec: { prefix: '10.2.0.0/26', dnsNameservers: [] },
    });
    assert.equal(refused.status, 400);
    assert.deepEqual(violationsOf(refused.body), ['spec.prefix:minimumPrefixSize']);
    assert.deepEqual(await f.snapshot(), before);
  });

  it('refuses 0.0.0.0/0 and a prefix with host bits set, naming the field and rule', async () => {
    const before = await f.snapshot();
    const refusal = async (prefix: string) => {
      const refused = await call(f, f.tokens.a, 'POST', `${base()}/networks`, {
        metadata: { name: 'wrong' },
        spec: { prefix, dnsNameservers: [] },
      });
      return [refused.status, ...violationsOf(refused.body)];
    };
    assert.deepEqual(await refusal('0.0.0.0/0'), [400, 'spec.prefix:maximumPrefixSize']);
    assert.deepEqual(await refusal('10.2.0.9/24'), [400, 'spec.prefix:canonicalPrefix']);
    assert.deepEqual(await refusal('010.002.000.000/24'), [400, 'spec.prefix:pattern']);
    assert.deepEqual(await f.snapshot(), before);
  });

  it("lists the organization's networks, v2's among them, and deletes in the foreground (202)", async () => {
    const v2 = await createNetwork(f, f.tokens.a);
    const listed = await call<Read[]>(f, f.tokens.a, 'GET', `/api/v1/organizations/${ORG_A}/networks`);
    assert.ok(listed.body.some((n) => n.metadata.id === v2));
    const mine = listed.body.find((n) => n.metadata.name === 'vlan-1')?.metadata.id ?? '';
    assert.equal((await call(f, f.tokens.a, 'DELETE', `${base()}/networks/${mine}`)).status, 202);
    const left = await f.store.get(networkType, NAMESPACE, mine).catch(() => undefined);
    assert.ok(left === undefined || left.metadata.deletionTimestamp !== undefined);
  });

  it('security groups: v1 rules (port number or range, cidr) are the CRD rules; v2 reads them as port/portMax', async () => {
    const rules = [
      { direction: 'ingress', protocol: 'tcp', port: { number: 22 }, cidr: '10.0.0.0/8' },
      { direction: 'ingress', protocol: 'udp', port: { range: { start: 1000, end: 2000 } } },
      { direction: 'egress', protocol: 'any' },
    ];
    const created = await call<Read>(f, f.tokens.a, 'POST', `${base()}/securitygroups`, {
      metadata: { name: 'ssh' },
      spec: { rules },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.spec, { rules });
    const id = created.body.metadata.id;
    const stored = await f.store.get(securityGroupType, NAMESPACE, id);
    assert.equal(stored.metadata.labels?.[labels.identityID], identity);
    assert.ok(!Object.keys(stored.metadata.labels ?? {}).includes(labels.networkID), 'v1: on no network');
    const v2 = await call<{ spec: { rules: unknown[] } }>(f, f.tokens.a, 'GET', `/api/v2/securitygroups/${id}`);
    assert.deepEqual(v2.body.spec.rules[1], { direction: 'ingress', protocol: 'udp', port: 1000, portMax: 2000 });

    const updated = await call<Read>(f, f.tokens.a, 'PUT', `${base()}/securitygroups/${id}`, {
      metadata: { name: 'ssh' },
      spec: { rules: [rules[0]] },
    });
    assert.equal(updated.status, 202);
    assert.deepEqual(updated.body.spec, { rules: [rules[0]] });

    const bad = await call(f, f.tokens.a, 'PUT', `${base()}/securitygroups/${id}`, {
      metadata: { name: 'ssh' },
      spec: { rules: [{ direction: 'ingress', protocol: 'icmp', port: { number: 1 } }] },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(violationsOf(bad.body), ['spec.rules[0].port:layer4Only']);

    const listed = await call<Read[]>(f, f.tokens.a, 'GET', `/api/v1/organizations/${ORG_A}/securitygroups?tag=x%3Dy`);
    assert.deepEqual(listed.body, [], 'the tag selector filters');
    assert.equal((await call(f, f.tokens.a, 'DELETE', `${base()}/securitygroups/${id}`)).status, 202);
  });
});

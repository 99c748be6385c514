import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, loadBalancerType, sshCertificateAuthorityType, volumeType } from '../../apis/index.ts';
import {
  apiFixture,
  call,
  createNetwork,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  VOLUME_CLASS,
  violationsOf,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string; provisioningStatus: string };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

const SSH_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ca@example';

describe('load balancers, volumes and SSH certificate authorities', () => {
  let f: ApiFixture;
  let network = '';
  before(async () => {
    f = await apiFixture();
    network = await createNetwork(f, f.tokens.a);
  });
  after(() => f.close());

  it('creates a load balancer on the network, stores it in CRD terms and reads it back in v2 terms', async () => {
    const listener = {
      name: 'web',
      protocol: 'tcp',
      port: 443,
      allowedCidrs: ['0.0.0.0/0'],
      idleTimeoutSeconds: 120,
      pool: {
        proxyProtocolV2: true,
        members: [{ address: '192.168.0.10', port: 8443 }],
        healthCheck: { intervalSeconds: 10, timeoutSeconds: 5 },
      },
    };
    const created = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/loadbalancers', {
      metadata: { name: 'lb' },
      spec: { networkId: network, vipAddress: '192.168.0.50', publicIP: true, listeners: [listener] },
    });
    assert.equal(created.status, 201);
    const stored = await f.store.get(loadBalancerType, NAMESPACE, created.body.metadata.id);
    const storedLabels = stored.metadata.labels ?? {};
    assert.equal(storedLabels[labels.networkID], network);
    assert.equal(stored.spec.requestedVIPAddress, '192.168.0.50');
    assert.deepEqual(stored.spec.listeners[0]?.allowedCIDRs, ['0.0.0.0/0']);
    assert.deepEqual(created.body.spec, { publicIP: true, listeners: [listener] });
    assert.deepEqual(created.body.status, { regionId: storedLabels[labels.regionID], networkId: network });

    // A new listener may join; an existing one may change its members.
    const updated = await call<Read>(f, f.tokens.a, 'PUT', `/api/v2/loadbalancers/${created.body.metadata.id}`, {
      metadata: { name: 'lb' },
      spec: {
        listeners: [
          { ...listener, pool: { ...listener.pool, members: [] } },
          { name: 'dns', protocol: 'udp', port: 53, pool: { members: [] } },
        ],
      },
    });
    assert.equal(updated.status, 202);
    const after = await f.store.get(loadBalancerType, NAMESPACE, created.body.metadata.id);
    assert.deepEqual(
      after.spec.listeners.map((l) => l.name),
      ['web', 'dns'],
    );
    assert.equal(after.spec.requestedVIPAddress, '192.168.0.50', 'the VIP is kept');
  });

  it("refuses a VIP that is the network's network, gateway or broadcast address, or outside it", async () => {
    const before = await f.snapshot();
    for (const [vipAddress, rule] of [
      ['192.168.0.0', 'usableAddress'],
      ['192.168.0.1', 'usableAddress'],
      ['192.168.0.255', 'usableAddress'],
      ['192.168.1.10', 'inNetwork'],
    ] as const) {
      const refused = await call(f, f.tokens.a, 'POST', '/api/v2/loadbalancers', {
        metadata: { name: 'lb-vip' },
        spec: {
          networkId: network,
          vipAddress,
          listeners: [{ name: 'web', protocol: 'tcp', port: 80, pool: { members: [] } }],
        },
      });
      assert.equal(refused.status, 422, vipAddress);
      assert.deepEqual(violationsOf(refused.body), [`spec.vipAddress:${rule}`], vipAddress);
    }
    assert.deepEqual(await f.snapshot(), before);
  });

  it('creates a volume with its size as a quantity, grows it, and deletes it', async () => {
    const created = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/volumes', {
      metadata: { name: 'data' },
      spec: { networkId: network, volumeClassId: VOLUME_CLASS, sizeGiB: 20 },
    });
    assert.equal(created.status, 201);
    const id = created.body.metadata.id;
    assert.equal((await f.store.get(volumeType, NAMESPACE, id)).spec.size, '20Gi');
    const grown = await call<Read>(f, f.tokens.a, 'PUT', `/api/v2/volumes/${id}`, {
      metadata: { name: 'data' },
      spec: { volumeClassId: VOLUME_CLASS, sizeGiB: 40 },
    });
    assert.equal(grown.status, 202);
    assert.deepEqual(grown.body.spec, { volumeClassId: VOLUME_CLASS, sizeGiB: 40 });
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/volumes/${id}`)).status, 202);
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/volumes/${id}`)).status, 404);
  });

  it('creates, lists, reads and deletes an SSH certificate authority in a project', async () => {
    const created = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/sshcertificateauthorities', {
      metadata: { name: 'ca' },
      spec: { organizationId: ORG_A, projectId: PROJECT_A, publicKey: SSH_KEY },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.spec, { publicKey: SSH_KEY });
    const id = created.body.metadata.id;
    const stored = await f.store.get(sshCertificateAuthorityType, NAMESPACE, id);
    assert.equal(stored.metadata.labels?.[labels.project], PROJECT_A);
    const listed = await call<Read[]>(f, f.tokens.a, 'GET', `/api/v2/sshcertificateauthorities?projectID=${PROJECT_A}`);
    assert.deepEqual(
      listed.body.map((c) => c.metadata.id),
      [id],
    );
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/sshcertificateauthorities/${id}`)).status, 202);
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/sshcertificateauthorities/${id}`)).status, 404);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, openstackIdentityType, securityGroupType, serverType } from '../../apis/index.ts';
import type { Capabilities, ServerActions } from '../context.ts';
import {
  allCapabilities,
  apiFixture,
  call,
  createNetwork,
  FLAVOR,
  IMAGE,
  IMAGE_2,
  NAMESPACE,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string; provisioningStatus: string; healthStatus: string };
  spec: { imageId: string; flavorId: string; networking?: { securityGroups?: string[]; publicIP?: boolean } };
  status: { networkId: string; sshInjection: string; powerState?: string; privateIP?: string };
}

const condition = (type: string, status: string, reason: string) => ({
  type,
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

describe('/api/v2/servers', () => {
  const actions: string[] = [];
  const fakeActions: ServerActions = {
    start: () => Promise.resolve(void actions.push('start')),
    stop: () => Promise.resolve(void actions.push('stop')),
    reboot: (hard) => Promise.resolve(void actions.push(hard ? 'hard' : 'soft')),
    consoleOutput: (lines) => Promise.resolve(`boot log (${String(lines)} lines)`),
  };
  const capabilities: Capabilities = { ...allCapabilities, serverActions: () => Promise.resolve(fakeActions) };
  let f: ApiFixture;
  let network = '';
  let sg = '';
  let server = '';
  const setStatus = (status: Record<string, unknown>) =>
    f.store.patch(serverType, NAMESPACE, server, { type: 'merge', patch: { status } }, { subresource: 'status' });

  before(async () => {
    f = await apiFixture(capabilities);
    network = await createNetwork(f, f.tokens.a);
    sg = (
      await call<Read>(f, f.tokens.a, 'POST', '/api/v2/securitygroups', {
        metadata: { name: 'sg' },
        spec: { networkId: network, rules: [] },
      })
    ).body.metadata.id;
    const created = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name: 'web-1' },
      spec: {
        networkId: network,
        flavorId: FLAVOR,
        imageId: IMAGE,
        networking: { securityGroups: [sg], publicIP: true, allowedSourceAddresses: ['10.0.0.0/8'] },
        userData: Buffer.from('#cloud-config\n').toString('base64'),
      },
    });
    assert.equal(created.status, 201);
    server = created.body.metadata.id;
  });
  after(() => f.close());

  it('stores the Server as the controllers read it: labels from the network, spec in CRD terms', async () => {
    const stored = await f.store.get(serverType, NAMESPACE, server);
    const storedLabels = stored.metadata.labels ?? {};
    assert.equal(storedLabels[labels.networkID], network);
    assert.ok((storedLabels[labels.identityID] ?? '') !== '');
    assert.equal(stored.spec.flavorID, FLAVOR);
    assert.deepEqual(stored.spec.image, { id: IMAGE });
    assert.deepEqual(stored.spec.networks, [{ id: network, allowedAddressPairs: [{ cidr: '10.0.0.0/8' }] }]);
    assert.deepEqual(stored.spec.securityGroups, [{ id: sg }]);
    assert.deepEqual(stored.spec.publicIPAllocation, { enabled: true });
  });

  it('reads the provisioning, health and lifecycle axes from status, and provisioning while an image change is unsettled', async () => {
    await setStatus({
      conditions: [
        condition('Available', 'True', 'Provisioned'),
        condition('Healthy', 'True', 'Healthy'),
        condition('Active', 'True', 'Running'),
      ],
      observed: { image: IMAGE },
      privateIP: '192.168.0.200',
    });
    const read = (await call<Read>(f, f.tokens.a, 'GET', `/api/v2/servers/${server}`)).body;
    assert.equal(read.metadata.provisioningStatus, 'provisioned');
    assert.equal(read.metadata.healthStatus, 'healthy');
    assert.equal(read.status.powerState, 'Running');
    assert.equal(read.status.privateIP, '192.168.0.200');
    assert.equal(read.status.sshInjection, 'identityKeypair');
    const changed = await call<Read>(f, f.tokens.a, 'PUT', `/api/v2/servers/${server}`, {
      metadata: { name: 'web-1' },
      spec: { flavorId: FLAVOR, imageId: IMAGE_2, networking: { securityGroups: [sg] } },
    });
    assert.equal(changed.status, 202);
    assert.equal(changed.body.metadata.provisioningStatus, 'provisioning');
    assert.equal(
      (await f.store.get(serverType, NAMESPACE, server)).spec.userData,
      undefined,
      'omitted user data clears',
    );
    await setStatus({ observed: { image: IMAGE_2 }, rebuild: { targetImageID: IMAGE_2, state: 'Rebuilding' } });
    assert.equal(
      (await call<Read>(f, f.tokens.a, 'GET', `/api/v2/servers/${server}`)).body.metadata.provisioningStatus,
      'provisioning',
    );
    await setStatus({ rebuild: null });
    assert.equal(
      (await call<Read>(f, f.tokens.a, 'GET', `/api/v2/servers/${server}`)).body.metadata.provisioningStatus,
      'provisioned',
    );
  });

  it('runs start, stop, soft and hard reboot (202) and reads the console output', async () => {
    for (const action of ['start', 'stop', 'softreboot', 'hardreboot']) {
      assert.equal((await call(f, f.tokens.a, 'POST', `/api/v2/servers/${server}/${action}`)).status, 202);
    }
    assert.deepEqual(actions, ['start', 'stop', 'soft', 'hard']);
    const output = await call<{ contents: string }>(
      f,
      f.tokens.a,
      'GET',
      `/api/v2/servers/${server}/consoleoutput?length=20`,
    );
    assert.deepEqual(output.body, { contents: 'boot log (20 lines)' });
  });

  it('answers 501 for what the actions capability lacks (console sessions, snapshots)', async () => {
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/servers/${server}/consolesessions`)).status, 501);
    const snapshot = await call(f, f.tokens.a, 'POST', `/api/v2/servers/${server}/snapshot`, {
      metadata: { name: 'snap' },
      spec: {},
    });
    assert.equal(snapshot.status, 501);
  });

  it("downloads the identity keypair's private key from the identity record", async () => {
    const identityID = (await f.store.get(serverType, NAMESPACE, server)).metadata.labels?.[labels.identityID] ?? '';
    assert.equal((await call(f, f.tokens.a, 'GET', `/api/v2/servers/${server}/sshkey`)).status, 404, 'no key yet');
    await f.store.create(openstackIdentityType, {
      apiVersion: 'region.unikorn-cloud.org/v1alpha1',
      kind: 'OpenstackIdentity',
      metadata: { name: identityID, namespace: NAMESPACE },
      spec: { sshPrivateKey: Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nx\n').toString('base64') },
    });
    const key = await call<{ privateKey: string }>(f, f.tokens.a, 'GET', `/api/v2/servers/${server}/sshkey`);
    assert.equal(key.status, 200);
    assert.match(key.body.privateKey, /^-----BEGIN OPENSSH PRIVATE KEY-----/);
  });

  it('refuses a security group of another network (422)', async () => {
    const other = await createNetwork(f, f.tokens.a, undefined, undefined, 'other');
    const response = await call(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name: 'web-2' },
      spec: { networkId: other, flavorId: FLAVOR, imageId: IMAGE, networking: { securityGroups: [sg] } },
    });
    assert.equal(response.status, 422);
    assert.match(JSON.stringify(response.body), /sameNetwork/);
  });

  it('refuses to delete a security group a server names (403 naming the server), and deletes it once dropped', async () => {
    const group = (
      await call<Read>(f, f.tokens.a, 'POST', '/api/v2/securitygroups', {
        metadata: { name: 'held' },
        spec: { networkId: network, rules: [] },
      })
    ).body.metadata.id;
    const user = await call<Read>(f, f.tokens.a, 'POST', '/api/v2/servers', {
      metadata: { name: 'holder' },
      spec: { networkId: network, flavorId: FLAVOR, imageId: IMAGE, networking: { securityGroups: [group] } },
    });
    assert.equal(user.status, 201);
    const refused = await call<{ detail: string }>(f, f.tokens.a, 'DELETE', `/api/v2/securitygroups/${group}`);
    assert.equal(refused.status, 403);
    assert.match(refused.body.detail, new RegExp(`in use .*server ${user.body.metadata.id}`));
    const stored = await f.store.get(securityGroupType, NAMESPACE, group);
    assert.equal(stored.metadata.deletionTimestamp, undefined, 'the refusal wrote nothing');
    const dropped = await call(f, f.tokens.a, 'PUT', `/api/v2/servers/${user.body.metadata.id}`, {
      metadata: { name: 'holder' },
      spec: { flavorId: FLAVOR, imageId: IMAGE },
    });
    assert.equal(dropped.status, 202);
    assert.equal((await call(f, f.tokens.a, 'DELETE', `/api/v2/securitygroups/${group}`)).status, 202);
  });

  it('answers 501 for server writes and actions when neither the controller nor the actions run', async () => {
    const bare = await apiFixture({ controllers: { servers: false, loadBalancers: false, volumes: false } });
    try {
      const net = await createNetwork(bare, bare.tokens.a);
      const create = await call(bare, bare.tokens.a, 'POST', '/api/v2/servers', {
        metadata: { name: 'x' },
        spec: { networkId: net, flavorId: FLAVOR, imageId: IMAGE },
      });
      assert.equal(create.status, 501);
      assert.equal((await call(bare, bare.tokens.a, 'GET', '/api/v2/servers')).status, 200, 'reads still work');
      const lb = await call(bare, bare.tokens.a, 'POST', '/api/v2/loadbalancers', {
        metadata: { name: 'x' },
        spec: { networkId: net, listeners: [{ name: 'a', protocol: 'tcp', port: 80, pool: { members: [] } }] },
      });
      assert.equal(lb.status, 501);
      assert.equal(
        (await call(bare, bare.tokens.a, 'GET', '/api/v2/regions/00000000-0000-4000-8000-0000000000aa/flavors')).status,
        404,
        'unknown region first',
      );
    } finally {
      await bare.close();
    }
  });
});

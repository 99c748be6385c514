import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { labels, serverType } from '../../apis/index.ts';
import { ResourceConflictError, ResourceKind } from '../../provider/errors.ts';
import type { Capabilities, ServerActions } from '../context.ts';
import {
  allCapabilities,
  apiFixture,
  call,
  FLAVOR,
  FLAVOR_BAREMETAL,
  IMAGE,
  IMAGE_2,
  NAMESPACE,
  ORG_A,
  PROJECT_A,
  REGION_ID,
  violationsOf,
  VOLUME_CLASS,
  type ApiFixture,
} from '../testing/api.ts';

interface Read {
  metadata: { id: string; provisioningStatus: string };
  spec: { imageId: string; flavorId: string; networks: unknown[]; securityGroups?: unknown[] };
  status: { phase?: string };
}

describe('v1 servers (the v2 Server object, the v2 rules)', () => {
  const actions: string[] = [];
  let busy = false;
  const fakeActions: ServerActions = {
    start: () =>
      busy
        ? Promise.reject(new ResourceConflictError('busy', { resource: ResourceKind.Server }))
        : Promise.resolve(void actions.push('start')),
    stop: () => Promise.resolve(void actions.push('stop')),
    reboot: (hard) => Promise.resolve(void actions.push(hard ? 'hard' : 'soft')),
    consoleSession: () => Promise.resolve('https://console.example.com/vnc?token=t'),
    consoleOutput: (lines) => Promise.resolve(`boot log (${String(lines)} lines)`),
  };
  const capabilities: Capabilities = { ...allCapabilities, serverActions: () => Promise.resolve(fakeActions) };
  let f: ApiFixture;
  let identity = '';
  let other = '';
  let network = '';
  let sg = '';
  let server = '';
  const base = (id = identity) => `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}/identities/${id}`;
  const body = (spec: Record<string, unknown> = {}) => ({
    metadata: { name: 'web-1' },
    spec: {
      flavorId: FLAVOR,
      imageId: IMAGE,
      securityGroups: [{ id: sg }],
      publicIPAllocation: { enabled: true },
      networks: [{ id: network, allowedAddressPairs: [{ cidr: '10.9.0.0/16', macAddress: 'fa:16:3e:00:00:01' }] }],
      ...spec,
    },
  });
  const post = (path: string, payload: unknown) => call<Read>(f, f.tokens.a, 'POST', path, payload);

  before(async () => {
    f = await apiFixture(capabilities);
    const identities = `/api/v1/organizations/${ORG_A}/projects/${PROJECT_A}/identities`;
    identity = (await post(identities, { metadata: { name: 'c1' }, spec: { regionId: REGION_ID } })).body.metadata.id;
    other = (await post(identities, { metadata: { name: 'c2' }, spec: { regionId: REGION_ID } })).body.metadata.id;
    network = (
      await post(`${base()}/networks`, { metadata: { name: 'n' }, spec: { prefix: '10.0.0.0/24', dnsNameservers: [] } })
    ).body.metadata.id;
    sg = (await post(`${base()}/securitygroups`, { metadata: { name: 'sg' }, spec: { rules: [] } })).body.metadata.id;
    const created = await post(`${base()}/servers`, body());
    assert.equal(created.status, 201, JSON.stringify(created.body));
    server = created.body.metadata.id;
  });
  after(() => f.close());

  it('stores the Server the server controller reads: labels from the network, pairs with their MAC', async () => {
    const stored = await f.store.get(serverType, NAMESPACE, server);
    const l = stored.metadata.labels ?? {};
    assert.deepEqual([l[labels.identityID], l[labels.networkID]], [identity, network]);
    assert.deepEqual(stored.spec.networks, [
      { id: network, allowedAddressPairs: [{ cidr: '10.9.0.0/16', macAddress: 'fa:16:3e:00:00:01' }] },
    ]);
    assert.deepEqual(stored.spec.securityGroups, [{ id: sg }]);
    assert.deepEqual(stored.spec.image, { id: IMAGE });
    const v1 = await call<Read>(f, f.tokens.a, 'GET', `${base()}/servers/${server}`);
    assert.deepEqual(v1.body.spec, body().spec);
    const v2 = await call<{ spec: { imageId: string } }>(f, f.tokens.a, 'GET', `/api/v2/servers/${server}`);
    assert.equal(v2.body.spec.imageId, IMAGE, 'the same object through v2');
  });

  it('reads the phase from the Active condition', async () => {
    await f.store.patch(
      serverType,
      NAMESPACE,
      server,
      {
        type: 'merge',
        patch: {
          status: {
            conditions: [
              {
                type: 'Active',
                status: 'True',
                reason: 'Running',
                message: '',
                lastTransitionTime: '2026-01-01T00:00:00Z',
              },
            ],
            privateIP: '10.0.0.130',
          },
        },
      },
      { subresource: 'status' },
    );
    const read = await call<Read & { status: { privateIP?: string } }>(
      f,
      f.tokens.a,
      'GET',
      `${base()}/servers/${server}`,
    );
    assert.deepEqual(read.body.status, { phase: 'Running', privateIP: '10.0.0.130' });
  });

  it('an update keeps the image (v1 cannot rebuild) and refuses a flavor or network change (400)', async () => {
    const kept = await call<Read>(f, f.tokens.a, 'PUT', `${base()}/servers/${server}`, body({ imageId: IMAGE_2 }));
    assert.equal(kept.status, 202);
    assert.equal(kept.body.spec.imageId, IMAGE, 'the stored image is preserved');
    const refused = await call(
      f,
      f.tokens.a,
      'PUT',
      `${base()}/servers/${server}`,
      body({
        flavorId: FLAVOR_BAREMETAL,
        networks: [{ id: '00000000-0000-4000-8000-0000000000ff' }],
      }),
    );
    assert.equal(refused.status, 400);
    assert.deepEqual(violationsOf(refused.body).sort(), ['spec.flavorId:immutable', 'spec.networks[0].id:immutable']);
  });

  it('an update keeps the volumes a v2 client attached (upstream v1 has no field for them)', async () => {
    const volume = await post('/api/v2/volumes', {
      metadata: { name: 'data' },
      spec: { networkId: network, volumeClassId: VOLUME_CLASS, sizeGiB: 10 },
    });
    assert.equal(volume.status, 201, JSON.stringify(volume.body));
    const stored = await f.store.get(serverType, NAMESPACE, server);
    const volumes = [{ id: volume.body.metadata.id, device: '/dev/vdc' }];
    await f.store.update(serverType, { ...stored, spec: { ...stored.spec, volumes } });
    const kept = await call<Read>(f, f.tokens.a, 'PUT', `${base()}/servers/${server}`, body());
    assert.equal(kept.status, 202, JSON.stringify(kept.body));
    assert.deepEqual((await f.store.get(serverType, NAMESPACE, server)).spec.volumes, volumes);
  });

  it("refuses another identity's network or security group, naming the v1 field (400), writing nothing", async () => {
    const before = await f.snapshot();
    const theirs = (await post(`${base(other)}/securitygroups`, { metadata: { name: 'theirs' }, spec: { rules: [] } }))
      .body.metadata.id;
    const after1 = await f.snapshot();
    const sgRefused = await post(`${base()}/servers`, body({ securityGroups: [{ id: theirs }] }));
    assert.equal(sgRefused.status, 400);
    assert.deepEqual(violationsOf(sgRefused.body), ['spec.securityGroups[0].id:sameIdentity']);
    const netRefused = await post(`${base(other)}/servers`, body({ securityGroups: [] }));
    assert.equal(netRefused.status, 400);
    assert.deepEqual(violationsOf(netRefused.body), ['spec.networks[0].id:sameIdentity']);
    assert.deepEqual(await f.snapshot(), after1);
    assert.notDeepEqual(before, after1);
  });

  it('power actions and the console on the v1 paths; a busy server is a bad request, as upstream', async () => {
    const path = `${base()}/servers/${server}`;
    for (const action of ['start', 'stop', 'softreboot', 'hardreboot']) {
      const response = await call(f, f.tokens.a, 'POST', `${path}/${action}`);
      assert.equal(response.status, 202, action);
    }
    assert.deepEqual(actions.slice(-4), ['start', 'stop', 'soft', 'hard']);
    const output = await call<{ contents: string }>(f, f.tokens.a, 'GET', `${path}/consoleoutput?length=5`);
    assert.deepEqual(output.body, { contents: 'boot log (5 lines)' });
    const session = await call<{ url: string }>(f, f.tokens.a, 'GET', `${path}/consolesessions`);
    assert.equal(session.body.url, 'https://console.example.com/vnc?token=t');
    busy = true;
    assert.equal((await call(f, f.tokens.a, 'POST', `${path}/start`)).status, 400);
    busy = false;
    assert.equal((await call(f, f.tokens.a, 'POST', `${base(other)}/servers/${server}/start`)).status, 404);
  });

  it("lists the organization's servers and deletes one (202)", async () => {
    const listed = await call<Read[]>(f, f.tokens.a, 'GET', `/api/v1/organizations/${ORG_A}/servers`);
    assert.deepEqual(
      listed.body.map((s) => s.metadata.id),
      [server],
    );
    assert.equal((await call(f, f.tokens.a, 'DELETE', `${base()}/servers/${server}`)).status, 202);
  });
});

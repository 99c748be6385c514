import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createProject, getProject, listProjects } from '../openstack/identity.ts';
import { ServerError } from '../openstack/errors.ts';
import { Emulator } from './emulator.ts';
import { isObject } from './json.ts';
import type { ServiceModule } from './context.ts';
import { novaFault } from './faults.ts';
import { cloudFixture, type CloudFixture } from './testing/cloud.ts';

describe('Emulator', () => {
  let cloud: CloudFixture;
  before(async () => {
    cloud = await cloudFixture();
  });
  after(() => cloud.close());

  const raw = (path: string, init: RequestInit = {}) => fetch(`${cloud.emulator.url}${path}`, init);

  it('advertises its services in RegionOne; Cinder under both of its types with the project id filled in', async () => {
    const token = await cloud.admin.token();
    const types = token.catalog.map((e) => e.type).sort();
    assert.deepEqual(types, [
      'baremetal',
      'block-storage',
      'compute',
      'identity',
      'image',
      'load-balancer',
      'network',
      'placement',
      'volumev3',
    ]);
    for (const entry of token.catalog) {
      assert.deepEqual(entry.endpoints.map((e) => e.interface).sort(), ['admin', 'internal', 'public']);
      assert.ok(entry.endpoints.every((e) => e.region_id === 'RegionOne' && e.url.startsWith(cloud.emulator.url)));
    }
    const withVolume = await Emulator.start({
      services: [cinderStub],
    });
    try {
      const response = await fetch(`${withVolume.authUrl}/auth/tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(ADMIN_AUTH),
      });
      const body: unknown = await response.json();
      const catalog = (
        isObject(body) && isObject(body.token) && Array.isArray(body.token.catalog) ? body.token.catalog : []
      ) as { type: string; endpoints: { url: string }[] }[];
      const project =
        isObject(body) && isObject(body.token) && isObject(body.token.project) ? body.token.project.id : '';
      for (const type of ['block-storage', 'volumev3']) {
        const entry = catalog.find((e) => e.type === type);
        assert.equal(entry?.endpoints[0]?.url, `${withVolume.url}/volume/v3/${String(project)}`);
      }
    } finally {
      await withVolume.close();
    }
  });

  it('answers every request with x-openstack-request-id, and unknown routes 404 in the service shape', async () => {
    const compute = await raw('/compute/v2.1/no-such-thing');
    assert.equal(compute.status, 404);
    assert.match(compute.headers.get('x-openstack-request-id') ?? '', /^req-/);
    assert.ok(isObject(await compute.json()));
    const image = await raw('/image/v2/nothing');
    assert.equal(image.status, 404);
    assert.match(await image.text(), /<h1>404 Not Found<\/h1>/);
    const network = await raw('/network/v2.0/networks');
    assert.deepEqual(Object.keys((await network.json()) as object), ['NeutronError']);
  });

  it('route faults: a status burst in the service shape, then normal answers; a reset drops the connection', async () => {
    const identity = cloud.admin.client('identity');
    const token = await cloud.admin.token();
    const projectID = token.project?.id ?? '';
    assert.equal(
      await cloud.control('POST', '/faults', {
        route: '/identity/v3/projects/{project_id}',
        method: 'GET',
        status: 503,
        count: 1,
      }),
      201,
    );
    await assert.rejects(getProject(identity, projectID), (e: unknown) => e instanceof ServerError && e.status === 503);
    assert.equal((await getProject(identity, projectID)).id, projectID);

    await cloud.control('POST', '/faults', { route: '/identity/v3', reset: true, count: 1 });
    await assert.rejects(raw('/identity/v3'));
    assert.equal((await raw('/identity/v3')).status, 200);

    await cloud.control('POST', '/faults', { route: '/identity/v3', latencyMs: 120, count: 1 });
    const started = performance.now();
    await raw('/identity/v3');
    assert.ok(performance.now() - started >= 100);
    assert.equal(await cloud.control('DELETE', '/faults'), 204);
  });

  it('reset forgets all but the bootstrap; the dump shows state as JSON', async () => {
    const identity = cloud.admin.client('identity');
    await createProject(identity, { name: 'ephemeral', domain_id: 'default' });
    const dump = cloud.emulator.control.dump();
    assert.ok(JSON.stringify(dump.keystone).includes('ephemeral'));
    assert.equal(await cloud.control('POST', '/reset'), 204);
    // The old token went with the reset: the session authenticates again on its 401.
    assert.deepEqual((await listProjects(identity, { name: 'ephemeral' })).length, 0);
    const state = await raw('/_emulator/state');
    assert.ok(isObject(await state.json()));
  });

  it('advances a manual clock over HTTP, and refuses on a real clock', async () => {
    const before = cloud.clock.now();
    assert.equal(await cloud.control('POST', '/clock/advance', { ms: 5000 }), 204);
    assert.equal(cloud.clock.now(), before + 5000);
    const real = await Emulator.start();
    try {
      const response = await fetch(`${real.url}/_emulator/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"ms":1}',
      });
      assert.equal(response.status, 409);
    } finally {
      await real.close();
    }
  });

  it('writes a clouds.yaml for admin in project admin', () => {
    const yaml: unknown = parse(cloud.emulator.cloudsYaml('mine'));
    assert.ok(isObject(yaml) && isObject(yaml.clouds) && isObject(yaml.clouds.mine));
    assert.deepEqual(yaml.clouds.mine.auth, {
      auth_url: cloud.emulator.authUrl,
      username: 'admin',
      password: 'secret',
      user_domain_name: 'Default',
      project_name: 'admin',
      project_domain_name: 'Default',
    });
  });
});

const ADMIN_AUTH = {
  auth: {
    identity: {
      methods: ['password'],
      password: { user: { name: 'admin', domain: { id: 'default' }, password: 'secret' } },
    },
    scope: { project: { name: 'admin', domain: { id: 'default' } } },
  },
};
/** A service that only advertises itself, as Cinder's module will. */
const cinderStub: ServiceModule = {
  name: 'cinder-stub',
  prefix: '/volume',
  catalog: [
    { type: 'block-storage', name: 'cinder', path: '/volume/v3/%(project_id)s' },
    { type: 'volumev3', name: 'cinderv3', path: '/volume/v3/%(project_id)s' },
  ],
  fault: novaFault,
  create: () => ({
    name: 'cinder-stub',
    reset: () => undefined,
    dump: () => ({}),
    records: () => ({}),
    restore: () => undefined,
  }),
};

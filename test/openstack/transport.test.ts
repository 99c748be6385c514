/**
 * Transport, session and accounting contract against the real services: uwsgi (Keystone, Cinder, Octavia)
 * closes connections after each response, eventlet (Neutron) keeps them; neither may surface as a TransportError.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { RequestAccounting } from '../../src/openstack/accounting.ts';
import type { AuthMethod } from '../../src/openstack/auth.ts';
import { getVolume, listVolumeTypes } from '../../src/openstack/blockstorage.ts';
import { NotFoundError, TransportError, UnauthorizedError } from '../../src/openstack/errors.ts';
import { getApiVersion, getLoadBalancer } from '../../src/openstack/loadbalancer.ts';
import {
  createSecurityGroup,
  deleteSecurityGroup,
  findNetworkByName,
  getNetwork,
  listSecurityGroups,
} from '../../src/openstack/network.ts';
import { paginate } from '../../src/openstack/pagination.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';
import { systemClock } from '../../src/util/clock.ts';
import { cloudTarget, contractCloud } from './cloud.ts';

const cloud = await contractCloud();

/** The region account's seeded password credential (seeds: user openregion-region, password secret). */
const regionAuth: AuthMethod = {
  type: 'password',
  user: { name: 'openregion-region', domain: { name: 'openregion' } },
  password: 'secret',
};
const regionProjectScope = {
  kind: 'project',
  project: { name: 'openregion-region', domain: { name: 'openregion' } },
} as const;

const cleanups: (() => Promise<void>)[] = [];

describe('transport and session against the real services', { skip: cloud === undefined }, () => {
  if (cloud === undefined) return;

  after(async () => {
    for (const run of cleanups.reverse()) {
      try {
        await run();
      } catch (error) {
        process.stderr.write(`cleanup failed: ${(error as Error).message}\n`);
      }
    }
    await cloud.close();
  });

  /** A transport of the test's own, so its accounting holds exactly what the test sent. */
  function ownTransport(): { transport: Transport; accounting: RequestAccounting } {
    const accounting = new RequestAccounting();
    const transport = new Transport({ clock: systemClock, random: Math.random, observer: accounting.observe });
    cleanups.push(() => transport.close());
    return { transport, accounting };
  }

  const regionSession = (transport: Transport): Session<'project'> =>
    new Session<'project'>({
      authUrl: cloud.authUrl,
      auth: regionAuth,
      scope: regionProjectScope,
      transport,
      clock: systemClock,
      region: 'RegionOne',
    });

  it('100+ back-to-back requests alternating GETs and POSTs across uwsgi and eventlet: no TransportError, exact counts', async () => {
    const { transport, accounting } = ownTransport();
    const session = regionSession(transport);
    const neutron = session.client('network');
    const cinder = session.client('block-storage');
    const octavia = session.client('load-balancer');
    const external = await findNetworkByName(neutron, 'or-external');
    assert.ok(external);
    accounting.reset();

    const expected = new Map<string, number>();
    const count = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1);
    const prefix = cloud.name('burst');
    for (let i = 0; i < 50; i++) {
      // A GET, rotating over Neutron (eventlet), Cinder and Octavia (uwsgi).
      switch (i % 3) {
        case 0:
          await getNetwork(neutron, external.id);
          count('network GET /networks/{network_id}');
          break;
        case 1:
          await listVolumeTypes(cinder);
          count('block-storage GET /types');
          break;
        default:
          // The version document: the region project holds no load-balancer role in its project (lists are 403).
          assert.equal((await getApiVersion(octavia)).major, 2);
          count('load-balancer GET /');
      }
      // Then a POST: a fresh session's token from Keystone (uwsgi), or a security group made and removed (eventlet).
      if (i % 2 === 0) {
        const token = await regionSession(transport).token();
        assert.ok(token.project);
        count('identity POST /auth/tokens');
      } else {
        const group = await createSecurityGroup(neutron, { name: `${prefix}-${String(i)}` });
        count('network POST /security-groups');
        await deleteSecurityGroup(neutron, group.id);
        count('network DELETE /security-groups/{security_group_id}');
      }
    }
    const sent = [...expected.values()].reduce((a, b) => a + b, 0);
    assert.ok(sent >= 100, `sent ${String(sent)}`);

    const counts = accounting.counts();
    const got = new Map(counts.map((c) => [`${c.serviceType} ${c.method} ${c.urlTemplate}`, c]));
    assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort(), 'one count per path template sent');
    let retries = 0;
    for (const [key, n] of expected) {
      const c = got.get(key);
      assert.ok(c, key);
      // Attempts = requests sent + retries of a reused connection the server had closed; never a lost request.
      assert.equal(c.requests - c.retries, n, key);
      assert.ok(c.failures <= c.retries, `${key}: every failed attempt was retried to success`);
      retries += c.retries;
    }
    process.stderr.write(`transport burst: ${String(sent)} requests, ${String(retries)} retried attempts\n`);
    assert.equal(accounting.total(), sent + retries);
    assert.deepEqual(await listSecurityGroups(neutron, { name: `${prefix}-1` }), []);
  });

  it('the request id of a real error rides on the NotFoundError (Neutron, Cinder, Octavia)', async () => {
    const neutron = cloud.regionProject.client('network');
    await assert.rejects(getNetwork(neutron, randomUUID()), (error: unknown) => {
      assert.ok(error instanceof NotFoundError, String(error));
      assert.equal(error.status, 404);
      assert.equal(error.serviceType, 'network');
      assert.equal(error.method, 'GET');
      assert.equal(error.urlTemplate, '/networks/{network_id}');
      assert.match(error.requestID ?? '', /^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.ok(error.message.includes(error.requestID ?? '<none>'), error.message);
      assert.equal(error.fault.type, 'NetworkNotFound');
      return true;
    });
    await assert.rejects(getVolume(cloud.regionProject.client('block-storage'), randomUUID()), (error: unknown) => {
      assert.ok(error instanceof NotFoundError, String(error));
      assert.match(error.requestID ?? '', /^req-[0-9a-f-]{36}$/);
      return true;
    });
    await assert.rejects(
      getLoadBalancer(cloud.regionProject.client('load-balancer'), randomUUID()),
      (error: unknown) => {
        assert.ok(error instanceof NotFoundError, String(error));
        assert.match(error.requestID ?? '', /^req-[0-9a-f-]{36}$/);
        assert.match(error.fault.message ?? '', /not found/i);
        return true;
      },
    );
  });

  it('a token revoked behind the session is renewed once on the 401, and the request succeeds', async () => {
    const { transport, accounting } = ownTransport();
    const session = regionSession(transport);
    const neutron = session.client('network');
    const first = await session.token();
    assert.equal(await session.token(), first, 'the token is cached');
    // Revoke it in Keystone before Neutron has ever seen (and cached) it.
    await cloud.admin
      .client('identity')
      .request({ method: 'DELETE', path: '/auth/tokens', headers: { 'x-subject-token': first.value } });

    const external = await findNetworkByName(neutron, 'or-external');
    assert.ok(external);
    const second = await session.token();
    assert.notEqual(second.value, first.value, 'a new token was issued');
    const lists = accounting.counts().find((c) => c.urlTemplate === '/networks' && c.method === 'GET');
    assert.equal(lists?.requests, 2, 'the list was sent twice: refused, then with the new token');
    assert.equal(lists.failures, 1);
    assert.equal(accounting.total({ serviceType: 'identity', method: 'POST', urlTemplate: '/auth/tokens' }), 2);

    // A wrong password is refused outright: one 401, no loop.
    const bad = new Session<'project'>({
      authUrl: cloud.authUrl,
      auth: { ...regionAuth, password: 'not-the-password' },
      scope: regionProjectScope,
      transport,
      clock: systemClock,
    });
    await assert.rejects(bad.token(), (error: unknown) => {
      assert.ok(error instanceof UnauthorizedError, String(error));
      assert.equal(error.urlTemplate, '/auth/tokens');
      assert.ok(!error.message.includes('not-the-password'));
      return true;
    });
  });

  it('session base URLs come from the catalog with the version segment and project id filled in', async () => {
    const token = await cloud.regionProject.token();
    const project = token.project?.id;
    assert.ok(project);
    // The dev cloud gives each service its own port; the emulator serves them all on one, each below a prefix.
    const origin = new URL(cloud.authUrl).origin;
    const [network, volume, lb] =
      cloudTarget === 'emulator'
        ? [`${origin}/network`, `${origin}/volume`, `${origin}/load-balancer`]
        : ['http://127.0.0.1:9696', 'http://127.0.0.1:8776', 'http://127.0.0.1:9876'];
    assert.equal(await cloud.regionProject.client('network').baseUrl(), `${network}/v2.0`);
    assert.equal(await cloud.regionProject.client('block-storage').baseUrl(), `${volume}/v3/${project}`);
    assert.equal(await cloud.regionProject.client('load-balancer').baseUrl(), `${lb}/v2`);
    // paginate() is lazy: breaking out after the first item sends one request only.
    const { transport, accounting } = ownTransport();
    const neutron = regionSession(transport).client('network');
    for await (const item of paginate<{ id: string }>(
      neutron,
      { method: 'GET', path: '/networks' },
      { kind: 'links', items: 'networks' },
      { pageSize: 1 },
    )) {
      assert.ok(item.id);
      break;
    }
    assert.equal(accounting.total({ serviceType: 'network' }), 1);
  });

  it('a refused connection is retried for a GET and then surfaces as a TransportError naming the request', async () => {
    const accounting = new RequestAccounting();
    const fast = new Transport({
      clock: systemClock,
      random: Math.random,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
      observer: accounting.observe,
    });
    cleanups.push(() => fast.close());
    const session = new Session<'project'>({
      authUrl: cloud.authUrl,
      auth: regionAuth,
      scope: regionProjectScope,
      transport: fast,
      clock: systemClock,
      region: 'RegionOne',
      // Port 9 (discard) has no listener on the dev cloud.
      endpointOverrides: { network: 'http://127.0.0.1:9' },
    });
    await assert.rejects(getNetwork(session.client('network'), randomUUID()), (error: unknown) => {
      assert.ok(error instanceof TransportError, String(error));
      assert.equal(error.urlTemplate, '/networks/{network_id}');
      assert.match(error.message, /ECONNREFUSED/);
      return true;
    });
    const c = accounting.counts().find((x) => x.serviceType === 'network');
    assert.equal(c?.requests, 3);
    assert.equal(c.retries, 2);
    assert.equal(c.failures, 3);
    // A POST is retried too, because a refused connection proves it was never sent.
    await assert.rejects(createSecurityGroup(session.client('network'), { name: 'never' }), TransportError);
    assert.equal(accounting.total({ serviceType: 'network', method: 'POST' }), 3);
  });
});

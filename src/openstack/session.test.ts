import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import type { AuthMethod, ScopeKind } from './auth.ts';
import { ConfigError, NotFoundError, TransportError, UnauthorizedError } from './errors.ts';
import { Session, type ServiceClient, type SessionOptions } from './session.ts';
import { FakeCloud } from './testing/fake-cloud.ts';
import { Transport } from './transport.ts';

describe('Session', () => {
  let cloud: FakeCloud;
  let clock: ManualClock;
  let transport: Transport;
  before(async () => {
    cloud = await FakeCloud.start();
    clock = new ManualClock();
    cloud.tokens.now = () => clock.now();
    transport = new Transport({ clock, random: () => 0 });
  });
  after(async () => {
    await transport.close();
    await cloud.close();
  });
  beforeEach(() => {
    cloud.authRequests.length = 0;
    cloud.requests.length = 0;
    cloud.on('GET', '/compute/v2.1/servers', (req) => ({ body: { servers: [], token: req.headers['x-auth-token'] } }));
  });

  const password: AuthMethod = {
    type: 'password',
    user: { name: 'admin', domain: { name: 'Default' } },
    password: 'p4ss',
  };
  const session = <K extends ScopeKind>(options: Partial<SessionOptions<K>> & Pick<SessionOptions<K>, 'scope'>) =>
    new Session<K>({ authUrl: cloud.authUrl, auth: password, transport, clock, ...options });
  const servers = (c: ServiceClient<'compute'>) => c.request({ method: 'GET', path: '/servers' });

  it('authenticates with each method and scope, and sends the token it got', async () => {
    const cases: [AuthMethod, SessionOptions<ScopeKind>['scope']][] = [
      [password, { kind: 'project', project: { name: 'demo', domain: { name: 'Default' } } }],
      [
        { type: 'password', user: { id: 'u-1' }, password: 'p' },
        { kind: 'domain', domain: { name: 'managed' } },
      ],
      [password, { kind: 'system' }],
      [{ type: 'application_credential', id: 'ac', secret: 'sec' }, { kind: 'unscoped' }],
      [
        { type: 'token', token: 'gAAAAAprevious-token-0000000000000' },
        { kind: 'project', project: { id: 'p-1' } },
      ],
    ];
    for (const [auth, scope] of cases) {
      const s = session({ auth, scope });
      await servers(s.client('compute'));
      const sent = cloud.authRequests.at(-1)?.json() as { auth: { identity: { methods: string[] }; scope?: unknown } };
      assert.deepEqual(sent.auth.identity.methods, [auth.type]);
      assert.equal(sent.auth.scope === undefined, scope.kind === 'unscoped');
      assert.equal(cloud.last('GET').headers['x-auth-token'], cloud.issuedTokens.at(-1));
    }
  });

  it('caches the token until shortly before it expires, then renews it', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    await servers(s.client('compute'));
    clock.advance(3_600_000 - 5 * 60_000 - 1);
    await servers(s.client('compute'));
    assert.equal(cloud.authRequests.length, 1);
    clock.advance(1);
    await servers(s.client('compute'));
    assert.equal(cloud.authRequests.length, 2);
    assert.notEqual(cloud.requests[1]?.headers['x-auth-token'], cloud.requests[2]?.headers['x-auth-token']);
  });

  it('shares one authentication among concurrent callers', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    let release = () => {};
    cloud.authGate = new Promise((r) => (release = r));
    const calls = Array.from({ length: 20 }, () => servers(s.client('compute')));
    await new Promise((r) => setTimeout(r, 20));
    release();
    await Promise.all(calls);
    cloud.authGate = undefined;
    assert.equal(cloud.authRequests.length, 1);
    assert.equal(new Set(cloud.requests.map((r) => r.headers['x-auth-token'])).size, 1);
  });

  it('re-authenticates exactly once on a 401, then succeeds with the new token', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    await servers(s.client('compute'));
    const revoked = cloud.issuedTokens.at(-1);
    cloud.on('GET', '/compute/v2.1/servers', (req) =>
      req.headers['x-auth-token'] === revoked
        ? { status: 401, body: { error: { code: 401 } } }
        : { body: { servers: [] } },
    );
    await servers(s.client('compute'));
    assert.equal(cloud.authRequests.length, 2);
    assert.equal(cloud.requests.length, 3);
  });

  it('gives up with UnauthorizedError when the fresh token is refused too, after one re-authentication', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.on('GET', '/compute/v2.1/servers', { status: 401, body: { error: { code: 401, message: 'no' } } });
    await assert.rejects(servers(s.client('compute')), UnauthorizedError);
    assert.equal(cloud.authRequests.length, 2);
    assert.equal(cloud.requests.length, 2);
  });

  it('reports a refused authentication as UnauthorizedError without the password', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.authFailures = [
      { status: 401, body: { error: { code: 401, message: 'The request you have made requires authentication.' } } },
    ];
    await assert.rejects(servers(s.client('compute')), (e: unknown) => {
      assert.ok(e instanceof UnauthorizedError);
      assert.equal(e.urlTemplate, '/auth/tokens');
      assert.doesNotMatch(`${e.message}${e.body}${e.stack ?? ''}`, /p4ss/);
      return true;
    });
    assert.equal(cloud.authRequests.length, 1, 'a refused password is not retried');
  });

  it('reports an authentication answered 404 (a deleted application credential) as UnauthorizedError', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.authFailures = [
      { status: 404, body: { error: { code: 404, message: 'Could not find Application Credential: a-1.' } } },
    ];
    await assert.rejects(servers(s.client('compute')), (e: unknown) => {
      assert.ok(e instanceof UnauthorizedError);
      assert.ok(!(e instanceof NotFoundError));
      assert.equal(e.status, 404);
      assert.equal(e.urlTemplate, '/auth/tokens');
      return true;
    });
  });

  it('maps error statuses to typed errors carrying the template, status and request id', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.on('GET', '/compute/v2.1/servers/:id', {
      status: 404,
      body: { itemNotFound: { code: 404, message: 'Instance x could not be found.' } },
    });
    await assert.rejects(
      s.client('compute').request({ method: 'GET', path: '/servers/{server_id}', params: { server_id: 'x/../y' } }),
      (e: unknown) => {
        assert.ok(e instanceof NotFoundError);
        assert.equal(e.code, 'OS_NOT_FOUND');
        assert.equal(e.urlTemplate, '/servers/{server_id}');
        assert.equal(e.requestID, 'req-fake');
        assert.match(e.message, /Instance x could not be found/);
        return true;
      },
    );
    assert.equal(cloud.last('GET').path, '/compute/v2.1/servers/x%2F..%2Fy', 'path parameters are encoded');
  });

  it('keeps the token out of errors even when a service echoes it', async () => {
    // A token in no format the redactor knows: only scrubbing by value can catch it.
    cloud.tokenFormat = (n) => `opaque${String(n)}xyz`;
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.on('POST', '/compute/v2.1/servers', (req) => ({
      status: 400,
      body: { badRequest: { code: 400, message: `bad token ${String(req.headers['x-auth-token'])}` } },
    }));
    await assert.rejects(s.client('compute').request({ method: 'POST', path: '/servers', body: {} }), (e: unknown) => {
      const token = cloud.issuedTokens.at(-1) ?? 'missing';
      assert.ok(e instanceof Error);
      assert.ok(token.startsWith('opaque'));
      assert.ok(!e.message.includes(token) && !JSON.stringify(e).includes(token));
      return true;
    });
    cloud.tokenFormat = undefined;
  });

  it('sends compute microversion 2.90 by default, a configured one up to 2.92, and refuses 2.93 at construction', async () => {
    await servers(session({ scope: { kind: 'project', project: { id: 'p-1' } } }).client('compute'));
    assert.equal(cloud.last('GET').headers['openstack-api-version'], 'compute 2.90');
    assert.equal(cloud.last('GET').headers['x-openstack-nova-api-version'], '2.90');
    await servers(
      session({ scope: { kind: 'project', project: { id: 'p-1' } }, microversions: { compute: '2.92' } }).client(
        'compute',
      ),
    );
    assert.equal(cloud.last('GET').headers['openstack-api-version'], 'compute 2.92');
    assert.throws(
      () => session({ scope: { kind: 'project', project: { id: 'p-1' } }, microversions: { compute: '2.93' } }),
      (e: unknown) => e instanceof ConfigError && /reimage_boot_volume/.test(e.message),
    );
  });

  it('uses an endpoint override instead of the catalog, filling in the project id', async () => {
    const s = session({
      scope: { kind: 'project', project: { id: 'p-1' } },
      endpointOverrides: { compute: `${cloud.url}/nova/v2.1/%(project_id)s` },
    });
    cloud.on('GET', '/nova/v2.1/p-1/servers', { body: { servers: [] } });
    await servers(s.client('compute'));
    assert.equal(cloud.last('GET').path, '/nova/v2.1/p-1/servers');
  });

  it('selects the endpoint of the configured region', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } }, region: 'RegionTwo' });
    await assert.rejects(
      servers(s.client('compute')),
      /no public endpoint for service type compute in region RegionTwo/,
    );
  });

  it('reports a success whose JSON does not parse as a TransportError', async () => {
    const s = session({ scope: { kind: 'project', project: { id: 'p-1' } } });
    cloud.on('GET', '/compute/v2.1/flavors', {
      body: '{"flavors": [',
      headers: { 'content-type': 'application/json' },
    });
    await assert.rejects(s.client('compute').request({ method: 'GET', path: '/flavors' }), TransportError);
  });

  it('keeps scopes apart in the types', () => {
    const needsProject = (c: ServiceClient<'compute', 'project'>) => c.serviceType;
    const domain = session({ scope: { kind: 'domain', domain: { id: 'd' } } });
    const project = session({ scope: { kind: 'project', project: { id: 'p' } } });
    assert.equal(needsProject(project.client('compute')), 'compute');
    // @ts-expect-error: a domain-scoped client cannot run a project operation.
    needsProject(domain.client('compute'));
    // @ts-expect-error: a network client is not a compute client.
    needsProject(project.client('network'));
    assert.equal(domain.scope, 'domain');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  authRequestBody,
  effectiveScopeKind,
  needsRenewal,
  parseTokenResponse,
  type AuthMethod,
  type Scope,
} from './auth.ts';
import { ConfigError } from './errors.ts';

const password: AuthMethod = {
  type: 'password',
  user: { name: 'svc', domain: { name: 'Default' } },
  password: 's3cret',
};

describe('authRequestBody', () => {
  it('builds the password method by user name and domain, and by user id', () => {
    assert.deepEqual(authRequestBody(password, { kind: 'unscoped' }), {
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: 'svc', domain: { name: 'Default' }, password: 's3cret' } },
        },
      },
    });
    assert.deepEqual(authRequestBody({ type: 'password', user: { id: 'u1' }, password: 'x' }, { kind: 'unscoped' }), {
      auth: { identity: { methods: ['password'], password: { user: { id: 'u1', password: 'x' } } } },
    });
  });

  it('builds the application credential method by id, and by name with its user', () => {
    assert.deepEqual(
      authRequestBody({ type: 'application_credential', id: 'ac1', secret: 'sec' }, { kind: 'unscoped' }),
      {
        auth: {
          identity: { methods: ['application_credential'], application_credential: { id: 'ac1', secret: 'sec' } },
        },
      },
    );
    const byName: AuthMethod = {
      type: 'application_credential',
      name: 'ci',
      user: { name: 'svc', domain: { id: 'd1' } },
      secret: 'sec',
    };
    assert.deepEqual(authRequestBody(byName, { kind: 'unscoped' }), {
      auth: {
        identity: {
          methods: ['application_credential'],
          application_credential: { name: 'ci', secret: 'sec', user: { name: 'svc', domain: { id: 'd1' } } },
        },
      },
    });
  });

  it('builds the token method', () => {
    assert.deepEqual(authRequestBody({ type: 'token', token: 'tok' }, { kind: 'system' }), {
      auth: { identity: { methods: ['token'], token: { id: 'tok' } }, scope: { system: { all: true } } },
    });
  });

  it('builds every scope', () => {
    const scopeOf = (scope: Scope) => (authRequestBody(password, scope) as { auth: { scope?: unknown } }).auth.scope;
    assert.deepEqual(scopeOf({ kind: 'project', project: { id: 'p1' } }), { project: { id: 'p1' } });
    assert.deepEqual(scopeOf({ kind: 'project', project: { name: 'demo', domain: { name: 'Default' } } }), {
      project: { name: 'demo', domain: { name: 'Default' } },
    });
    assert.deepEqual(scopeOf({ kind: 'domain', domain: { id: 'd1' } }), { domain: { id: 'd1' } });
    assert.deepEqual(scopeOf({ kind: 'domain', domain: { name: 'managed' } }), { domain: { name: 'managed' } });
    assert.deepEqual(scopeOf({ kind: 'system' }), { system: { all: true } });
    assert.equal(scopeOf({ kind: 'unscoped' }), undefined);
  });

  it('refuses a scope beside an application credential, which carries its own', () => {
    assert.throws(
      () =>
        authRequestBody(
          { type: 'application_credential', id: 'a', secret: 's' },
          { kind: 'project', project: { id: 'p' } },
        ),
      (e: unknown) => e instanceof ConfigError && e.field === 'scope',
    );
    assert.equal(
      effectiveScopeKind({ type: 'application_credential', id: 'a', secret: 's' }, { kind: 'unscoped' }),
      'project',
    );
    assert.equal(effectiveScopeKind(password, { kind: 'domain', domain: { id: 'd' } }), 'domain');
  });
});

describe('parseTokenResponse', () => {
  it('reads the token, its expiry, scope, roles and catalog', () => {
    const token = parseTokenResponse(
      'gAAAAAtok',
      {
        token: {
          issued_at: '2026-01-01T00:00:00.000000Z',
          expires_at: '2026-01-01T01:00:00.000000Z',
          user: { id: 'u', name: 'svc', domain: { id: 'default', name: 'Default' } },
          project: { id: 'p', name: 'demo', domain: { id: 'default', name: 'Default' } },
          roles: [{ id: 'r', name: 'member' }],
          catalog: [{ type: 'compute', endpoints: [] }],
        },
      },
      0,
    );
    assert.equal(token.value, 'gAAAAAtok');
    assert.equal(token.expiresAt - token.issuedAt, 3_600_000);
    assert.equal(token.project?.id, 'p');
    assert.equal(token.system, false);
    assert.deepEqual(
      token.roles.map((r) => r.name),
      ['member'],
    );
    assert.equal(token.catalog.length, 1);
  });

  it('refuses an answer without a subject token or an expiry', () => {
    assert.throws(() => parseTokenResponse(undefined, { token: { expires_at: 'x', user: {} } }, 0));
    assert.throws(() => parseTokenResponse('t', { token: { user: {} } }, 0));
  });
});

describe('needsRenewal', () => {
  const hour = 3_600_000;
  it('renews five minutes before expiry for an ordinary token', () => {
    assert.equal(needsRenewal({ issuedAt: 0, expiresAt: hour }, hour - 5 * 60_000 - 1), false);
    assert.equal(needsRenewal({ issuedAt: 0, expiresAt: hour }, hour - 5 * 60_000), true);
  });

  it('renews a short-lived token at half its life', () => {
    assert.equal(needsRenewal({ issuedAt: 0, expiresAt: 60_000 }, 29_999), false);
    assert.equal(needsRenewal({ issuedAt: 0, expiresAt: 60_000 }, 30_000), true);
  });

  it('never lets a token reach its expiry and never renews one fresh from Keystone', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 48 * hour }), fc.integer({ min: 0, max: 48 * hour }), (lifetime, at) => {
        const token = { issuedAt: 0, expiresAt: lifetime };
        if (at >= lifetime) assert.equal(needsRenewal(token, at), true);
        assert.equal(needsRenewal(token, 0), false);
      }),
    );
  });
});

import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { importJWK, SignJWT } from 'jose';
import { capturedLogger } from '../../runtime/testing/logger.ts';
import { ManualClock } from '../../util/clock.ts';
import { bearerToken, canAccess, createAuthenticator, principalOf } from './auth.ts';
import { DEV_ALGORITHM, generateDevKeyPair, signDevToken } from './dev-token.ts';
import { Problem } from './problem.ts';

/** An authenticator for a fresh dev key pair, logging to a captured logger. */
async function setup(options: { issuer?: string; audience?: string } = {}) {
  const clock = new ManualClock(Date.now());
  const keys = await generateDevKeyPair();
  const captured = capturedLogger();
  const authenticate = createAuthenticator({
    key: { publicJwk: keys.publicJwk, algorithm: DEV_ALGORITHM },
    clock,
    log: captured.log,
    ...options,
  });
  return { clock, keys, captured, authenticate };
}

describe('auth', () => {
  it('reads the scope claims; a token without organizations grants nothing', () => {
    assert.deepEqual(principalOf({ sub: 'u', organizationIds: ['o'] }), { subject: 'u', organizationIDs: ['o'] });
    assert.deepEqual(principalOf({ organizationIds: ['o'], projectIds: ['p'] })?.projectIDs, ['p']);
    assert.equal(principalOf({ organizationIds: ['o'], operator: true })?.operator, true);
    assert.equal(principalOf({ organizationIds: ['o'], operator: 'yes' })?.operator, undefined);
    assert.equal(principalOf({ organizationIds: [] }), undefined);
    assert.equal(principalOf({ organizationIds: 'o' }), undefined);
    assert.equal(principalOf({ organizationIds: ['o'], projectIds: [1] }), undefined);
  });

  it('scopes by organization, then by project when the token names projects', () => {
    const org = { subject: 'u', organizationIDs: ['o'] };
    assert.equal(canAccess(org, 'o', 'any'), true);
    assert.equal(canAccess(org, 'other', 'any'), false);
    const project = { ...org, projectIDs: ['p'] };
    assert.equal(canAccess(project, 'o', 'p'), true);
    assert.equal(canAccess(project, 'o', 'q'), false);
  });

  it('verifies signature and expiry against the injected clock', async () => {
    const clock = new ManualClock();
    const keys = await generateDevKeyPair();
    const authenticate = createAuthenticator({ key: { publicJwk: keys.publicJwk, algorithm: DEV_ALGORITHM }, clock });
    const token = await signDevToken(keys, { subject: 'dev', organizationIDs: ['o'], lifetimeSeconds: 60 }, clock);
    assert.deepEqual((await authenticate(`Bearer ${token}`)).organizationIDs, ['o']);
    await assert.rejects(authenticate(undefined), (e) => e instanceof Problem && e.status === 401);
    await assert.rejects(authenticate(`Basic ${token}`), (e) => e instanceof Problem && e.status === 401);
    clock.advance(61_000);
    await assert.rejects(authenticate(`Bearer ${token}`), (e) => e instanceof Problem && e.status === 401);
  });

  it('refuses a token without an expiry, which would otherwise be valid for ever', async () => {
    const { keys, captured, authenticate } = await setup();
    const endless = await new SignJWT({ organizationIds: ['o'] })
      .setProtectedHeader({ alg: DEV_ALGORITHM })
      .setSubject('dev')
      .sign(await importJWK(keys.privateJwk, DEV_ALGORITHM));
    await assert.rejects(authenticate(`Bearer ${endless}`), (e) => e instanceof Problem && e.status === 401);
    assert.equal(captured.records().at(-1)?.['reason'], 'no expiry');
  });

  it('verifies against a JWKS URL', async () => {
    const clock = new ManualClock(Date.now());
    const keys = await generateDevKeyPair();
    const other = await generateDevKeyPair();
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [{ ...keys.publicJwk, alg: DEV_ALGORITHM, use: 'sig' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const authenticate = createAuthenticator({ key: { jwksUrl: `http://127.0.0.1:${String(port)}/jwks` }, clock });
      const token = await signDevToken(keys, { subject: 'dev', organizationIDs: ['o'] }, clock);
      assert.equal((await authenticate(`Bearer ${token}`)).subject, 'dev');
      const forged = await signDevToken(other, { subject: 'dev', organizationIDs: ['o'] }, clock);
      await assert.rejects(authenticate(`Bearer ${forged}`), (e) => e instanceof Problem && e.status === 401);
    } finally {
      server.close();
    }
  });
});

describe('auth: refusals in the operator log', () => {
  const refusedWith = async (
    { authenticate, captured }: Awaited<ReturnType<typeof setup>>,
    header: string | undefined,
  ): Promise<Record<string, unknown>> => {
    await assert.rejects(authenticate(header), (e) => e instanceof Problem && e.status === 401);
    const record = captured.records().at(-1);
    assert.ok(record !== undefined, 'a refusal is logged');
    assert.equal(record['msg'], 'token refused');
    if (header !== undefined) {
      const token = header.replace(/^Bearer /, '');
      assert.ok(!captured.lines.some((line) => line.includes(token)), 'the token never reaches the log');
    }
    return record;
  };

  it('names why: missing, malformed, expired, issuer, audience, signature, scope', async () => {
    const fx = await setup({ issuer: 'https://idp', audience: 'region' });
    const sign = (claims: Partial<Parameters<typeof signDevToken>[1]>, keys = fx.keys) =>
      signDevToken(
        keys,
        { subject: 'dev', organizationIDs: ['o'], issuer: 'https://idp', audience: 'region', ...claims },
        fx.clock,
      );
    assert.equal((await refusedWith(fx, undefined))['reason'], 'no bearer token');
    assert.equal((await refusedWith(fx, 'Bearer not.a.jwt'))['reason'], 'malformed');
    const expiring = await sign({ lifetimeSeconds: 60 });
    fx.clock.advance(61_000);
    assert.deepEqual(
      [(await refusedWith(fx, `Bearer ${expiring}`))['reason'], (await refusedWith(fx, `Bearer ${expiring}`))['claim']],
      ['expired', 'exp'],
    );
    assert.equal(
      (await refusedWith(fx, `Bearer ${await sign({ issuer: 'https://other' })}`))['reason'],
      'wrong issuer',
    );
    assert.equal((await refusedWith(fx, `Bearer ${await sign({ audience: 'billing' })}`))['reason'], 'wrong audience');
    const stranger = await generateDevKeyPair();
    assert.equal((await refusedWith(fx, `Bearer ${await sign({}, stranger)}`))['reason'], 'bad signature');
    assert.equal(
      (await refusedWith(fx, `Bearer ${await sign({ organizationIDs: [] })}`))['reason'],
      'no organization scope',
    );
    assert.equal((await fx.authenticate(`Bearer ${await sign({})}`)).subject, 'dev');
  });

  it('a key the JWKS does not hold is an unknown key', async () => {
    const keys = await generateDevKeyPair();
    const clock = new ManualClock(Date.now());
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [{ ...keys.publicJwk, alg: DEV_ALGORITHM, use: 'sig', kid: 'k1' }] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const captured = capturedLogger();
      const authenticate = createAuthenticator({
        key: { jwksUrl: `http://127.0.0.1:${String(port)}/jwks` },
        clock,
        log: captured.log,
      });
      const other = await generateDevKeyPair();
      const privateKey = await importJWK(other.privateJwk, DEV_ALGORITHM);
      const foreign = await new SignJWT({ organizationIds: ['o'] })
        .setProtectedHeader({ alg: DEV_ALGORITHM, kid: 'k2' })
        .sign(privateKey);
      await assert.rejects(authenticate(`Bearer ${foreign}`), (e) => e instanceof Problem && e.status === 401);
      assert.equal(captured.records().at(-1)?.['reason'], 'unknown key');
    } finally {
      server.close();
    }
  });
});

describe('bearerToken', () => {
  it('parses RFC 6750 credentials once: any case of the scheme, spaces, one b64token and nothing after it', () => {
    assert.equal(bearerToken('Bearer a.b-c_d~e+f/g=='), 'a.b-c_d~e+f/g==');
    assert.equal(bearerToken('bearer abc'), 'abc');
    assert.equal(bearerToken('BEARER   abc'), 'abc');
    for (const refused of [
      'Bearer\tabc',
      'Bearer abc def',
      'Bearer abc ',
      'Bearer abc,',
      'Bearer',
      'Basic abc',
      'abc',
    ]) {
      assert.equal(bearerToken(refused), undefined, JSON.stringify(refused));
    }
    assert.equal(bearerToken(undefined), undefined);
  });
});

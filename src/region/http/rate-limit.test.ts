import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../util/clock.ts';
import { DEFAULT_RATE_LIMITS, rateLimiter, rateLimitOf, TokenBuckets } from './rate-limit.ts';
import { apiFixture, ORG_A, type ApiFixture } from './testing/api.ts';

describe('token buckets', () => {
  it('allow a burst, then the rate, and say how long until the next token', () => {
    const clock = new ManualClock();
    const buckets = new TokenBuckets({ perSecond: 2, burst: 3 }, clock);
    assert.deepEqual(
      [1, 2, 3].map(() => buckets.take('a')),
      [0, 0, 0],
    );
    assert.equal(buckets.take('a'), 500, 'half a second to the next token at 2/s');
    assert.equal(buckets.take('b'), 0, 'another key has its own bucket');
    clock.advance(500);
    assert.equal(buckets.take('a'), 0);
    assert.equal(buckets.take('a'), 500);
    clock.advance(60_000);
    assert.deepEqual(
      [1, 2, 3, 4].map(() => buckets.take('a')),
      [0, 0, 0, 500],
      'refills to the burst, no more',
    );
  });

  it('limit by address, and by caller (subject and token id) apart from it', () => {
    const clock = new ManualClock();
    const limit = rateLimiter({ perToken: { perSecond: 1, burst: 1 }, perAddress: { perSecond: 1, burst: 2 } }, clock);
    assert.equal(limit.address('10.0.0.1'), 0);
    assert.equal(limit.principal('alice', 't1'), 0);
    assert.equal(limit.principal('alice', 't1'), 1000, 'the token is spent, wherever it comes from');
    assert.equal(limit.principal('alice', 't2'), 0, "another of alice's tokens has its own bucket");
    assert.equal(limit.principal('bob', 't1'), 0, "and so does another subject's");
    assert.equal(limit.address('10.0.0.1'), 0);
    assert.equal(limit.address('10.0.0.1'), 1000, 'the address is spent');
    assert.equal(limit.address('10.0.0.3'), 0, 'another address is not');
    assert.equal(limit.refused('forged'), 0);
    assert.equal(limit.refused('forged'), 1000, 'a refused credential is limited too');
  });

  it('a limit of 0 is off; otherwise its burst is ten seconds of it', () => {
    assert.equal(rateLimitOf(0), undefined);
    assert.deepEqual(rateLimitOf(20), { perSecond: 20, burst: 200 });
    const clock = new ManualClock();
    const limit = rateLimiter({}, clock);
    for (let i = 0; i < 10_000; i++) {
      assert.equal(limit.address('10.0.0.1') + limit.principal('u', 't') + limit.refused('t'), 0);
    }
  });
});

describe('rate limits on the API', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture(undefined, {
      rateLimits: { perToken: { perSecond: 1, burst: 2 }, perAddress: DEFAULT_RATE_LIMITS.perAddress },
    });
  });
  after(() => f.close());

  it('a token over its limit gets 429 problem documents with Retry-After', async () => {
    const list = (token: string) =>
      f.api.inject({
        method: 'GET',
        url: `/api/v1/organizations/${ORG_A}/regions`,
        headers: { authorization: `Bearer ${token}` },
      });
    assert.deepEqual([(await list(f.tokens.a)).statusCode, (await list(f.tokens.a)).statusCode], [200, 200]);
    const refused = await list(f.tokens.a);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal(refused.headers['cache-control'], 'no-store');
    const body = refused.json<{ type: string; status: number; errors: { rule: string }[] }>();
    assert.match(body.type, /problems\/too-many-requests$/);
    assert.deepEqual(
      body.errors.map((e) => e.rule),
      ['rateLimit'],
    );
    assert.equal((await list(f.tokens.aProjectOnly)).statusCode, 200, "another token's bucket is its own");
    f.clock.advance(1000);
    assert.equal((await list(f.tokens.a)).statusCode, 200, 'a second later a token is back');
    const forged = await Promise.all([1, 2, 3].map(() => list('not-a-token')));
    assert.deepEqual(
      forged.map((r) => r.statusCode),
      [401, 401, 429],
      'a forged token is limited like any other',
    );
  });
});

describe('rate limits by caller, however the header is spelt', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture(undefined, { rateLimits: { perToken: { perSecond: 1, burst: 3 } } });
  });
  after(() => f.close());

  const list = (authorization: string) =>
    f.api.inject({ method: 'GET', url: `/api/v1/organizations/${ORG_A}/regions`, headers: { authorization } });

  it('every accepted spelling of one token draws on one bucket', async () => {
    const token = f.tokens.a;
    const statuses = [];
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token}`, `bEaReR ${token}`]) {
      statuses.push((await list(header)).statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
  });

  it('spellings RFC 6750 does not allow are refused (401), and limited as one forged credential', async () => {
    const token = f.tokens.b;
    for (const header of [`Bearer\t${token}`, `Bearer ${token} extra`, `Bearer ${token},`, `Bearer`, token]) {
      assert.equal((await list(header)).statusCode, 401, JSON.stringify(header));
    }
    f.clock.advance(10_000);
    const forged = [];
    for (const header of ['Bearer forged', 'bearer forged', 'BEARER forged', 'Bearer forged']) {
      forged.push((await list(header)).statusCode);
    }
    assert.deepEqual(forged, [401, 401, 401, 429]);
  });
});

describe('rate limits by address', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture(undefined, { rateLimits: { perAddress: { perSecond: 1, burst: 1 } } });
  });
  after(() => f.close());

  it('an address over its limit gets 429 whatever the token', async () => {
    const get = (token: string) =>
      f.api.inject({ method: 'GET', url: '/api/v2/networks', headers: { authorization: `Bearer ${token}` } });
    assert.equal((await get(f.tokens.a)).statusCode, 200);
    const refused = await get(f.tokens.b);
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.headers['retry-after'], '1');
  });
});

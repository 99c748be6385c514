/**
 * The access log and the request metrics: one line and one count per request, by route template, with the request
 * id the client sent (when it is a plain token) or one made for it, and never a token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { capturedLogger } from '../../runtime/testing/logger.ts';
import { REQUEST_ID_HEADER } from './access-log.ts';
import { apiFixture, ORG_A, type ApiFixture } from './testing/api.ts';

describe('access log and request metrics', () => {
  let f: ApiFixture;
  const captured = capturedLogger();
  const registry = new Registry();
  before(async () => {
    f = await apiFixture(undefined, { log: captured.log, metrics: registry });
  });
  after(() => f.close());
  const accessLines = () => captured.records().filter((r) => r.msg === 'request');

  it('logs method, route template, status, duration, subject and request id; never the token', async () => {
    const url = `/api/v1/organizations/${ORG_A}/regions`;
    const answer = await f.api.inject({
      method: 'GET',
      url: `${url}?secret=no`,
      headers: { authorization: `Bearer ${f.tokens.a}`, [REQUEST_ID_HEADER]: 'req-0001' },
    });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.headers[REQUEST_ID_HEADER], 'req-0001', 'the client’s id comes back');
    const line = accessLines().at(-1);
    assert.equal(line?.level, 'info');
    assert.equal(line.method, 'GET');
    assert.equal(line.route, '/api/v1/organizations/:organizationID/regions');
    assert.equal(line.status, 200);
    assert.equal(typeof line.durationMs, 'number');
    assert.equal(line.subject, `user@${ORG_A}`);
    assert.equal(line.requestID, 'req-0001');
    const text = captured.lines.join('');
    assert.ok(!text.includes(f.tokens.a), 'no token');
    assert.ok(!text.includes(f.tokens.a.split('.')[2] ?? '-'), 'no part of its signature');
    assert.ok(!text.includes('secret=no'), 'no query string');
  });

  it('replaces a request id that is not a plain token, and makes one when none is sent', async () => {
    const forged = await f.api.inject({
      method: 'GET',
      url: '/api/v2/servers',
      headers: { [REQUEST_ID_HEADER]: 'x\r\nset-cookie: a=b' },
    });
    const id = String(forged.headers[REQUEST_ID_HEADER]);
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(accessLines().at(-1)?.requestID, id);
    const made = await f.api.inject({ method: 'GET', url: '/api/v2/servers' });
    assert.match(String(made.headers[REQUEST_ID_HEADER]), /^[0-9a-f-]{36}$/);
    assert.notEqual(made.headers[REQUEST_ID_HEADER], id);
  });

  it('a request refused before any handler (401, no route) is logged and counted too', async () => {
    await f.api.inject({ method: 'GET', url: '/api/v2/servers' });
    await f.api.inject({ method: 'GET', url: '/no/such/path/abc' });
    const [unauthorized, unmatched] = accessLines().slice(-2);
    assert.deepEqual(
      [unauthorized?.status, unauthorized?.route, unauthorized?.subject],
      [401, '/api/v2/servers', undefined],
    );
    assert.deepEqual([unmatched?.status, unmatched?.route], [404, 'unmatched']);
  });

  it('counts requests and their durations by method, route template and status', async () => {
    const exposition = await registry.metrics();
    assert.match(
      exposition,
      /^http_requests_total\{method="GET",route="\/api\/v1\/organizations\/:organizationID\/regions",status="200"\} 1$/m,
    );
    assert.match(exposition, /^http_requests_total\{method="GET",route="\/api\/v2\/servers",status="401"\} [1-9]/m);
    assert.match(exposition, /^http_requests_total\{method="GET",route="unmatched",status="404"\} 1$/m);
    assert.match(exposition, /^http_request_duration_seconds_count\{method="GET",route="\/api\/v2\/servers"\} [1-9]/m);
    assert.ok(!exposition.includes('/no/such/path'), 'an unmatched path never becomes a label');
  });
});

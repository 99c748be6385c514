/**
 * What the API does with hostile requests before any handler runs: a client trickling a body loses its connection
 * at the request timeout, the router's own refusals are problem documents, and every answer carries the headers
 * that keep tenant data out of caches, frames and content sniffing.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { PROBLEM_CONTENT_TYPE } from './problem.ts';
import { apiFixture, ORG_A, type ApiFixture } from './testing/api.ts';

describe('HTTP hardening', () => {
  let f: ApiFixture;
  before(async () => {
    f = await apiFixture(undefined, { requestTimeoutMs: 400 });
  });
  after(() => f.close());

  it('an over-long id is a 414 problem document naming the rule, answered before authentication', async () => {
    const stored = await f.snapshot();
    const response = await f.api.inject({ method: 'GET', url: `/api/v2/servers/${'a'.repeat(101)}` });
    assert.equal(response.statusCode, 414);
    assert.equal(response.headers['content-type'], `${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
    const body = response.json<{ errors: { rule: string }[] }>();
    assert.deepEqual(
      body.errors.map((e) => e.rule),
      ['maxParamLength'],
    );
    assert.deepEqual(await f.snapshot(), stored);
  });

  it('a malformed URL is a 400 problem document, not the framework’s own body', async () => {
    const response = await f.api.inject({ method: 'GET', url: '/api/v2/servers/%zz' });
    assert.equal(response.statusCode, 400);
    assert.match(response.json<{ type: string }>().type, /problems\/bad-request$/);
  });

  it('API answers are never cached, sniffed or framed; the rest are never sniffed', async () => {
    const answer = await f.api.inject({ method: 'GET', url: '/api/v2/servers' });
    assert.equal(answer.statusCode, 401);
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.equal(answer.headers['x-frame-options'], 'DENY');
    assert.match(String(answer.headers['content-security-policy']), /frame-ancestors 'none'/);
    const listed = await f.api.inject({
      method: 'GET',
      url: `/api/v1/organizations/${ORG_A}/regions`,
      headers: { authorization: `Bearer ${f.tokens.a}` },
    });
    assert.equal(listed.statusCode, 200);
    assert.equal(listed.headers['cache-control'], 'no-store');
    const document = await f.api.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(document.headers['x-content-type-options'], 'nosniff');
    assert.equal(document.headers['cache-control'], undefined);
  });

  it('a client that trickles its body loses the connection at the request timeout', async () => {
    await f.api.listen({ host: '127.0.0.1', port: 0 });
    const { port } = f.api.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.write(
      `POST /api/v2/organizations/${ORG_A}/projects/p/identities HTTP/1.1\r\nhost: x\r\n` +
        `authorization: Bearer ${f.tokens.a}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`,
    );
    // One more byte a while later: a trickle, never the whole body.
    const trickle = setInterval(() => {
      socket.write(' ');
    }, 100);
    const closed = await new Promise<boolean>((resolve) => {
      socket.on('close', () => {
        resolve(true);
      });
      setTimeout(() => {
        resolve(false);
      }, 10_000);
    });
    clearInterval(trickle);
    socket.destroy();
    assert.ok(closed, 'the server closed the connection');
    assert.match(answer, /^HTTP\/1\.1 408/, 'with a 408');
  });
});

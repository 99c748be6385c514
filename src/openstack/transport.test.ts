import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { ManualClock, systemClock } from '../util/clock.ts';
import { ConfigError, TransportError } from './errors.ts';
import { Transport, type HttpMethod, type RequestEvent } from './transport.ts';

const site = (method: HttpMethod) => ({ serviceType: 'compute', method, urlTemplate: '/servers' });

async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** An HTTP server answering from a script of statuses, one per request, then 200. */
async function scripted(statuses: number[], headers: Record<string, string> = {}) {
  let hits = 0;
  const server = createHttpServer((_req, res) => {
    const status = statuses[hits++] ?? 200;
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end('{}');
  });
  const url = await listen(server);
  return { url, hits: () => hits, close: () => new Promise((r) => server.close(r)) };
}

describe('Transport', () => {
  const transports: Transport[] = [];
  const make = (events: RequestEvent[] = [], clock = new ManualClock()) => {
    const t = new Transport({
      clock,
      random: () => 1,
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 },
      observer: (e) => events.push(e),
    });
    transports.push(t);
    return { t, clock };
  };
  after(() => Promise.all(transports.map((t) => t.close())));

  it('retries an idempotent request on 5xx with capped exponential backoff, reporting every attempt', async () => {
    const server = await scripted([503, 502, 500]);
    const events: RequestEvent[] = [];
    const { t, clock } = make(events);
    const res = await t.send({ site: site('GET'), url: `${server.url}/servers`, headers: {} });
    assert.equal(res.status, 200);
    assert.equal(server.hits(), 4);
    assert.deepEqual(clock.sleeps, [100, 200, 400]);
    assert.deepEqual(
      events.map((e) => [e.status, e.attempt]),
      [
        [503, 0],
        [502, 1],
        [500, 2],
        [200, 3],
      ],
    );
    await server.close();
  });

  it('gives up after maxAttempts and returns the last 5xx for the caller to map', async () => {
    const server = await scripted([503, 503, 503, 503, 503]);
    const { t } = make();
    const res = await t.send({ site: site('DELETE'), url: `${server.url}/servers/x`, headers: {} });
    assert.equal(res.status, 503);
    assert.equal(server.hits(), 4);
    await server.close();
  });

  it('never retries a POST that reached the server, whatever the status', async () => {
    const server = await scripted([503]);
    const { t, clock } = make();
    const res = await t.send({ site: site('POST'), url: `${server.url}/servers`, headers: {}, body: '{}' });
    assert.equal(res.status, 503);
    assert.equal(server.hits(), 1);
    assert.deepEqual(clock.sleeps, []);
    await server.close();
  });

  it('does not retry 4xx', async () => {
    const server = await scripted([409]);
    const { t } = make();
    assert.equal((await t.send({ site: site('PUT'), url: `${server.url}/servers/x`, headers: {} })).status, 409);
    assert.equal(server.hits(), 1);
    await server.close();
  });

  it('honours Retry-After up to the cap', async () => {
    const server = await scripted([503], { 'retry-after': '30' });
    const { t, clock } = make();
    await t.send({ site: site('GET'), url: `${server.url}/servers`, headers: {} });
    assert.deepEqual(clock.sleeps, [1_000]);
    await server.close();
  });

  it('jitters backoff with the injected random source (full jitter)', async () => {
    const server = await scripted([503, 503]);
    const clock = new ManualClock();
    const t = new Transport({
      clock,
      random: () => 0.25,
      retry: { maxAttempts: 3, baseDelayMs: 400, maxDelayMs: 10_000 },
    });
    transports.push(t);
    await t.send({ site: site('GET'), url: `${server.url}/servers`, headers: {} });
    assert.deepEqual(clock.sleeps, [100, 200]);
    await server.close();
  });

  it('retries an idempotent request whose connection is reset, but not a POST', async () => {
    let hits = 0;
    const server = createNetServer((socket) => {
      hits++;
      socket.once('data', () => {
        if (hits === 1) socket.resetAndDestroy();
        else
          socket.end(
            'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
          );
      });
    });
    const url = await listen(server);
    const { t } = make();
    assert.equal((await t.send({ site: site('GET'), url: `${url}/servers`, headers: {} })).status, 200);
    assert.equal(hits, 2);

    hits = 0;
    await assert.rejects(
      t.send({ site: site('POST'), url: `${url}/servers`, headers: {}, body: '{}' }),
      (e: unknown) => e instanceof TransportError && e.urlTemplate === '/servers' && e.method === 'POST',
    );
    assert.equal(hits, 1);
    server.close();
  });

  it('retries a POST when the connection was refused: it never reached the server', async () => {
    const probe = createNetServer();
    const url = await listen(probe);
    await new Promise((r) => probe.close(r));
    const { t, clock } = make();
    await assert.rejects(
      t.send({ site: site('POST'), url: `${url}/servers`, headers: {}, body: '{}' }),
      TransportError,
    );
    assert.equal(clock.sleeps.length, 3);
  });

  it('survives a server that closes every connection after its response without saying so (uwsgi)', async () => {
    const seen: string[] = [];
    const sockets = new Set<Socket>();
    // Like uwsgi --http-socket: answer, then close, with no Connection: close header.
    const server = createNetServer((socket) => {
      sockets.add(socket);
      let buffer = '';
      let answered = false;
      socket.on('data', (chunk: Buffer) => {
        // A request that arrives after the answer dies with the socket, unanswered: the race uwsgi's clients lose.
        if (answered) return;
        buffer += chunk.toString('latin1');
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffer.slice(0, end))?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        seen.push(buffer.slice(0, buffer.indexOf(' ')));
        const body = `{"n":${String(seen.length)}}`;
        answered = true;
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${String(body.length)}\r\n\r\n${body}`,
        );
        setTimeout(() => socket.destroy(), 3);
      });
    });
    const url = await listen(server);
    const t = new Transport({
      clock: systemClock,
      random: () => 0,
      retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    });
    transports.push(t);
    for (let i = 0; i < 60; i++) {
      const method: HttpMethod = i % 3 === 0 ? 'POST' : 'GET';
      const res = await t.send({
        site: site(method),
        url: `${url}/servers`,
        headers: {},
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      assert.equal(res.status, 200);
    }
    assert.equal(seen.filter((m) => m === 'POST').length, 20, 'each POST reached the server exactly once');
    for (const s of sockets) s.destroy();
    server.close();
  });

  describe('TLS', () => {
    const tls = new URL('./testing/tls/', import.meta.url);
    const caFile = new URL('localhost.crt', tls).pathname;
    let url = '';
    const server = createHttpsServer(
      { cert: readFileSync(caFile), key: readFileSync(new URL('localhost.key', tls)) },
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      },
    );
    const get = (t: Transport) => t.send({ site: site('GET'), url: `${url}/servers`, headers: {} });
    const transportWith = (options: { caFile?: string; insecure?: boolean }) => {
      const t = new Transport({
        clock: new ManualClock(),
        random: () => 0,
        retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
        tls: options,
      });
      transports.push(t);
      return t;
    };
    after(() => new Promise((r) => server.close(r)));

    it('refuses a certificate no trusted CA signed', async () => {
      url = (await listen(server)).replace('http:', 'https:');
      await assert.rejects(get(transportWith({})), TransportError);
    });

    it('trusts a custom CA bundle', async () => {
      assert.equal((await get(transportWith({ caFile }))).status, 200);
    });

    it('skips verification in insecure mode', async () => {
      assert.equal((await get(transportWith({ insecure: true }))).status, 200);
    });

    it('names the setting when the CA bundle cannot be read', () => {
      assert.throws(
        () => transportWith({ caFile: '/nonexistent/ca.pem' }),
        (e: unknown) => e instanceof ConfigError && e.field === 'cacert',
      );
    });
  });
});

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { imageSourceCheck, masterBootRecordProblem, MBR_SIZE, UNREADABLE_IMAGE } from './image-source.ts';

const mbr = (): Buffer => {
  const bytes = Buffer.alloc(MBR_SIZE);
  bytes[510] = 0x55;
  bytes[511] = 0xaa;
  return bytes;
};

describe('masterBootRecordProblem', () => {
  it('accepts 512 bytes ending 0x55 0xAA; refuses short input and a missing signature', () => {
    assert.equal(masterBootRecordProblem(mbr()), undefined);
    assert.match(masterBootRecordProblem(mbr().subarray(0, 100)) ?? '', /smaller/);
    assert.match(masterBootRecordProblem(Buffer.alloc(MBR_SIZE)) ?? '', /raw image/);
  });
});

describe('imageSourceCheck over HTTP', () => {
  let server: Server;
  let base = '';
  const ranges: (string | undefined)[] = [];
  let sentBeyond = 0;
  before(async () => {
    server = createServer((request, response) => {
      ranges.push(request.headers.range);
      if (request.url === '/raw.img') {
        response.writeHead(206).end(mbr());
      } else if (request.url === '/qcow2.img') {
        response.writeHead(200).end(Buffer.from('QFI\xfb'.padEnd(MBR_SIZE, '\0')));
      } else if (request.url?.startsWith('/redirect?to=')) {
        response.writeHead(302, { location: decodeURIComponent(request.url.slice('/redirect?to='.length)) }).end();
      } else if (request.url === '/ignores-range.img') {
        // A server that sends the whole (endless) image: the check stops reading after 512 bytes.
        response.writeHead(200);
        response.write(mbr());
        const timer = setInterval(() => {
          if (!response.write(Buffer.alloc(64 * 1024))) return;
          sentBeyond++;
        }, 5);
        response.on('close', () => {
          clearInterval(timer);
        });
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // The test server is on loopback, which only an operator's allow-list opens.
  const check = imageSourceCheck({ policy: { allow: ['127.0.0.1/32'] } });
  const signal = () => AbortSignal.timeout(5_000);

  it('a raw image passes, asked for with a Range of its first 512 bytes', async () => {
    assert.equal(await check(`${base}/raw.img`, signal()), undefined);
    assert.equal(ranges.at(-1), 'bytes=0-511');
  });

  it('a qcow2 image, a missing image and a non-HTTP URL are refused with a reason', async () => {
    assert.match((await check(`${base}/qcow2.img`, signal())) ?? '', /raw image/);
    assert.equal(await check(`${base}/missing.img`, signal()), UNREADABLE_IMAGE);
    assert.match((await check('ftp://example.com/x.img', signal())) ?? '', /http or https/);
    assert.match((await check('not a url', signal())) ?? '', /not a URL/);
  });

  it('reads no more than the header from a server that ignores the Range', async () => {
    assert.equal(await check(`${base}/ignores-range.img`, signal()), undefined);
    assert.ok(sentBeyond < 50, `the server kept sending: ${String(sentBeyond)} chunks`);
  });
});

describe('imageSourceCheck: no request into the platform (SSRF)', () => {
  let inside: Server;
  let port = 0;
  let hits = 0;
  let mirror: Server;
  let mirrorBase = '';
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  before(async () => {
    // A service beside the control plane, on every address: it must never see a request.
    inside = createServer((_request, response) => {
      hits++;
      response.writeHead(200).end(mbr());
    });
    await new Promise<void>((resolve) => inside.listen(0, '0.0.0.0', resolve));
    port = (inside.address() as AddressInfo).port;
    // An allowed mirror that redirects wherever it is told.
    mirror = createServer((request, response) => {
      const to = new URL(request.url ?? '/', 'http://x').searchParams.get('to');
      if (request.url?.startsWith('/missing')) response.writeHead(404).end('not here');
      else if (to === null) response.writeHead(206).end(mbr());
      else response.writeHead(302, { location: to }).end();
    });
    await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
    mirrorBase = `http://127.0.0.1:${String((mirror.address() as AddressInfo).port)}`;
  });
  after(() => {
    for (const s of [inside, mirror]) {
      s.closeAllConnections();
      s.close();
    }
  });
  const signal = () => AbortSignal.timeout(5_000);

  it('refuses loopback in every spelling, by default, with one generic answer and without connecting', async () => {
    const check = imageSourceCheck({ log });
    const p = String(port);
    const urls = [
      `http://127.0.0.1:${p}/x.img`,
      `http://localhost:${p}/x.img`,
      `http://0x7f000001:${p}/x.img`,
      `http://2130706433:${p}/x.img`,
      `http://127.1:${p}/x.img`,
      `http://0177.0.0.1:${p}/x.img`,
      `http://[::ffff:127.0.0.1]:${p}/x.img`,
      `http://[::1]:${p}/x.img`,
      `http://0.0.0.0:${p}/x.img`,
      `http://169.254.169.254/latest/meta-data/`,
    ];
    for (const url of urls) assert.equal(await check(url, signal()), UNREADABLE_IMAGE, url);
    assert.equal(hits, 0);
    // The operator learns why: the refusal is in the log, the address named.
    assert.ok(
      lines.some((l) => l.includes('not public') && l.includes('127.0.0.1')),
      lines.join(''),
    );
  });

  it('re-checks every redirect: an allowed mirror cannot bounce the fetch inside', async () => {
    const check = imageSourceCheck({ policy: { allow: ['127.0.0.1/32'] }, log });
    assert.equal(await check(`${mirrorBase}/?x=1`, signal()), undefined); // the mirror itself is fine
    const inward = `http://127.0.0.2:${String(port)}/x.img`;
    assert.equal(await check(`${mirrorBase}/?to=${encodeURIComponent(inward)}`, signal()), UNREADABLE_IMAGE);
    const mapped = `http://[::ffff:127.0.0.2]:${String(port)}/x.img`;
    assert.equal(await check(`${mirrorBase}/?to=${encodeURIComponent(mapped)}`, signal()), UNREADABLE_IMAGE);
    assert.equal(hits, 0);
  });

  it('connects to the address it checked, not to a second lookup of the name', async () => {
    // The name is known only to the check's resolver: reaching the mirror proves the socket went to that address.
    const resolve = (host: string) => Promise.resolve(host === 'mirror.test' ? ['127.0.0.1'] : ['127.0.0.2']);
    const check = imageSourceCheck({ policy: { allow: ['127.0.0.1/32'] }, resolve });
    const url = `http://mirror.test:${mirrorBase.split(':').at(-1) ?? ''}/`;
    assert.equal(await check(url, signal()), undefined);
    assert.equal(await check(`http://inside.test:${String(port)}/`, signal()), UNREADABLE_IMAGE);
    assert.equal(hits, 0);
  });

  it('a closed port, an HTTP error and a refused address read the same to the tenant', async () => {
    const check = imageSourceCheck({ policy: { allow: ['127.0.0.1/32'] } });
    const closed = await check('http://127.0.0.1:1/x.img', signal());
    const status = await check(`${mirrorBase}/missing.img`, signal());
    const refused = await check('http://10.0.0.1/x.img', signal());
    assert.deepEqual([closed, status, refused], [UNREADABLE_IMAGE, UNREADABLE_IMAGE, UNREADABLE_IMAGE]);
  });

  it('credentials in the URL never reach the log', async () => {
    const check = imageSourceCheck({ log });
    assert.equal(await check('http://root:hunter2@127.0.0.1:1/x.img', signal()), UNREADABLE_IMAGE);
    assert.ok(!lines.join('').includes('hunter2'));
  });
});

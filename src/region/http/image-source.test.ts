import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { imageSourceCheck, masterBootRecordProblem, MBR_SIZE } from './image-source.ts';

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

  const check = imageSourceCheck();
  const signal = () => AbortSignal.timeout(5_000);

  it('a raw image passes, asked for with a Range of its first 512 bytes', async () => {
    assert.equal(await check(`${base}/raw.img`, signal()), undefined);
    assert.equal(ranges.at(-1), 'bytes=0-511');
  });

  it('a qcow2 image, a missing image and a non-HTTP URL are refused with a reason', async () => {
    assert.match((await check(`${base}/qcow2.img`, signal())) ?? '', /raw image/);
    assert.match((await check(`${base}/missing.img`, signal())) ?? '', /404/);
    assert.match((await check('ftp://example.com/x.img', signal())) ?? '', /http or https/);
    assert.match((await check('not a url', signal())) ?? '', /not a URL/);
  });

  it('reads no more than the header from a server that ignores the Range', async () => {
    assert.equal(await check(`${base}/ignores-range.img`, signal()), undefined);
    assert.ok(sentBeyond < 50, `the server kept sending: ${String(sentBeyond)} chunks`);
  });
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger, requestLogger } from './logger.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk
        .toString()
        .split('\n')
        .filter((l) => l !== '')) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, log: createLogger({ level: 'debug', destination }) };
}

describe('logger', () => {
  it("child loggers carry the request's cluster, namespace and name", () => {
    const { lines, log } = capture();
    requestLogger(log, { cluster: 'edge-1', namespace: 'ns', name: 'u1' }, 'keystoneuser').info('pass');
    assert.equal(lines.length, 1);
    assert.deepEqual(
      { ...lines[0], time: undefined, pid: undefined, hostname: undefined },
      {
        level: 30,
        controller: 'keystoneuser',
        cluster: 'edge-1',
        namespace: 'ns',
        name: 'u1',
        msg: 'pass',
        time: undefined,
        pid: undefined,
        hostname: undefined,
      },
    );
  });

  it('redacts password, secret and token fields at any of the first levels', () => {
    const { lines, log } = capture();
    log.info(
      {
        password: 'p0',
        user: { password: 'p1', name: 'kept' },
        body: { auth: { token: 't1', secret: 's1' } },
        headers: { authorization: 'Bearer x' },
        secret: { data: 'd' },
      },
      'creds',
    );
    const text = JSON.stringify(lines[0]);
    for (const leaked of ['p0', 'p1', 't1', 's1', 'Bearer x', '"d"'])
      assert.ok(!text.includes(leaked), `${leaked} in ${text}`);
    assert.ok(text.includes('kept'));
    assert.ok(text.includes('***'));
  });
});

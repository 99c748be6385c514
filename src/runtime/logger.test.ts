import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestLogger } from './logger.ts';
import { capturedLogger } from './testing/logger.ts';

describe('logger', () => {
  it("child loggers carry the request's cluster, namespace and name", () => {
    const { records, log } = capturedLogger();
    requestLogger(log, { cluster: 'edge-1', namespace: 'ns', name: 'u1' }, 'keystoneuser').info('pass');
    const lines = records();
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
    const { records, log } = capturedLogger();
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
    const text = JSON.stringify(records()[0]);
    for (const leaked of ['p0', 'p1', 't1', 's1', 'Bearer x', '"d"'])
      assert.ok(!text.includes(leaked), `${leaked} in ${text}`);
    assert.ok(text.includes('kept'));
    assert.ok(text.includes('***'));
  });

  it('masks secret-shaped text inside any logged string: an upstream error quoting a DSN, an Error, the message', () => {
    const { lines, log } = capturedLogger();
    log.warn({ upstream: 'connect to mysql://root:hunter2@db:3306 refused' }, 'sync failed');
    log.error(new Error('bad auth: password=hunter2'));
    log.info({ nested: { deeper: ['https://admin:hunter2@keystone/v3'] } }, 'url %s', 'redis://:hunter2@cache');
    const text = lines.join('');
    assert.ok(!text.includes('hunter2'), text);
    assert.ok(text.includes('mysql://***@db:3306'), text);
    assert.ok(text.includes('"type":"Error"'), 'an Error is still logged as one');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import { createLogger, requestLogger } from './logger.ts';
import { capturedLogger } from './testing/logger.ts';

describe('logger', () => {
  it("child loggers carry the request's cluster, namespace and name", () => {
    const { records, log } = capturedLogger();
    requestLogger(log, { cluster: 'edge-1', namespace: 'ns', name: 'u1' }, 'keystoneuser', 'KeystoneUser').info('pass');
    const lines = records();
    assert.equal(lines.length, 1);
    assert.match(String(lines[0]?.reconcileID), /^[0-9a-f-]{36}$/, 'a reconcile id');
    assert.deepEqual(
      { ...lines[0], time: undefined, pid: undefined, hostname: undefined, reconcileID: undefined },
      {
        level: 'info',
        controller: 'keystoneuser',
        kind: 'KeystoneUser',
        reconcileID: undefined,
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

  it('writes a string level and an ISO-8601 time from the injected clock', () => {
    const lines: string[] = [];
    const clock = new ManualClock(Date.UTC(2026, 0, 2, 14, 20, 44, 123));
    const log = createLogger({ clock, destination: { write: (l: string) => void lines.push(l) } });
    log.warn('careful');
    const record = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(record.level, 'warn');
    assert.equal(record.time, '2026-01-02T14:20:44.123Z');
  });

  it('each pass of the same request has its own reconcile id', () => {
    const { records, log } = capturedLogger();
    const req = { cluster: '', namespace: 'ns', name: 'u1' };
    requestLogger(log, req, 'server', 'Server').info('one');
    requestLogger(log, req, 'server', 'Server').info('two');
    const [one, two] = records();
    assert.notEqual(one?.reconcileID, two?.reconcileID);
  });

  it('writes an identical warning once a window, then says how many it held back', () => {
    const lines: string[] = [];
    const clock = new ManualClock(0);
    const log = createLogger({
      clock,
      repeatWindowMs: 60_000,
      destination: { write: (l: string) => void lines.push(l) },
    });
    const req = { cluster: '', namespace: 'ns', name: 'web-1' };
    const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (let i = 0; i < 5; i++) {
      // A new pass (a new reconcile id) of the same object, failing the same way.
      requestLogger(log, req, 'server', 'Server').warn({ row: 'provider-error' }, 'provision failed');
      requestLogger(log, req, 'server', 'Server').info('a pass');
      clock.advance(10_000);
    }
    requestLogger(log, { ...req, name: 'web-2' }, 'server', 'Server').warn('provision failed');
    // Another row is another warning; a nested detail (a provider's cause chain) does not make one.
    requestLogger(log, req, 'server', 'Server').warn({ row: 'quota' }, 'provision failed');
    requestLogger(log, req, 'server', 'Server').warn({ row: 'quota', provider: { id: 'r2' } }, 'provision failed');
    log.warn('something else');
    assert.deepEqual(
      records()
        .filter((r) => r.level === 'warn')
        .map((r) => [r.name, r.msg]),
      [
        ['web-1', 'provision failed'],
        ['web-2', 'provision failed'],
        ['web-1', 'provision failed'],
        [undefined, 'something else'],
      ],
      'one line for web-1, and the other warnings are not held back by it',
    );
    assert.equal(records().filter((r) => r.level === 'info').length, 5, 'info is never held back');
    clock.advance(20_000);
    requestLogger(log, req, 'server', 'Server').warn({ row: 'provider-error' }, 'provision failed');
    const last = records().at(-1);
    assert.equal(last?.msg, 'provision failed');
    assert.equal(last.suppressed, 4);
    assert.equal(last.row, 'provider-error');
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

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from './logger.ts';
import { formatLogLine } from './log-text.ts';

const time = Date.UTC(2026, 0, 2, 14, 20, 44, 123);

describe('text log lines', () => {
  it('time, level, the request, the message, then the other fields as key=value', () => {
    const line = JSON.stringify({
      level: 40,
      time,
      pid: 1,
      hostname: 'h',
      controller: 'server',
      cluster: '',
      namespace: 'unikorn-region',
      name: 'web-1',
      msg: 'provision failed',
      row: 'provider-error',
      provider: { code: 'PROVIDER_INTERNAL' },
      note: 'two words',
    });
    assert.equal(
      formatLogLine(line),
      '14:20:44.123 WARN  server unikorn-region/web-1: provision failed  row=provider-error ' +
        'provider={"code":"PROVIDER_INTERNAL"} note="two words"',
    );
  });

  it('an error shows its message; its stack only at error level', () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' };
    assert.equal(
      formatLogLine(JSON.stringify({ level: 40, time, msg: 'retrying', err })),
      '14:20:44.123 WARN  retrying  err=boom',
    );
    assert.equal(
      formatLogLine(JSON.stringify({ level: 50, time, msg: 'failed', err })),
      '14:20:44.123 ERROR failed  err=boom\n    Error: boom\n        at x',
    );
  });

  it("reads createLogger's string level and ISO-8601 time", () => {
    const line = JSON.stringify({
      level: 'warn',
      time: new Date(time).toISOString(),
      controller: 'server',
      kind: 'Server',
      namespace: 'ns',
      name: 'web-1',
      reconcileID: '0f1e',
      msg: 'provision failed',
    });
    assert.equal(formatLogLine(line), '14:20:44.123 WARN  server ns/web-1: provision failed');
  });

  it('through the logger, secrets are redacted as in JSON', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', format: 'text', destination: { write: (l: string) => lines.push(l) } });
    log.info({ auth: { password: 'hunter2' } }, 'hello');
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', / INFO {2}hello {2}auth=\{"password":"\*\*\*"\}\n$/);
    assert.ok(!(lines[0] ?? '').includes('hunter2'));
  });
});

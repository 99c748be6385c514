import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { hostPort, positiveInteger } from './serve.ts';

describe('serve options', () => {
  it('reads a concurrency as a positive whole number, and refuses anything else', () => {
    assert.equal(positiveInteger('8'), 8);
    for (const bad of ['0', '-1', '2.5', 'four', '']) assert.throws(() => positiveInteger(bad), InvalidArgumentError);
  });

  it('reads host:port', () => {
    assert.deepEqual(hostPort('0.0.0.0:8080'), { host: '0.0.0.0', port: 8080 });
    assert.throws(() => hostPort('8080'), InvalidArgumentError);
  });
});

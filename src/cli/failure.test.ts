import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureReport } from './failure.ts';

describe('failureReport', () => {
  it('is one line without a stack by default, whatever the message holds', () => {
    const text = failureReport(new Error('the store\nis gone', { cause: new Error('disk') }), false);
    assert.equal(text, 'openregion: the store is gone\n');
  });

  it('says a programming error is one, and how to see where it happened', () => {
    const text = failureReport(new TypeError("Cannot read properties of undefined (reading 'x')"), false);
    assert.match(text, /^openregion: unexpected TypeError: Cannot read .* \(a bug; --debug shows where\)\n$/);
  });

  it('with --debug: the stack and every cause', () => {
    const text = failureReport(new Error('outer', { cause: new Error('inner') }), true);
    assert.match(text, /^openregion: Error: outer\n {4}at /);
    assert.match(text, /caused by: Error: inner\n {4}at /);
  });
});

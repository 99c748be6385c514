import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Outcome } from './outcome.ts';

describe('Outcome constructors', () => {
  it('done carries its value, ok carries none', () => {
    assert.deepEqual(Outcome.done({ vip: '10.0.0.5' }), { kind: 'done', value: { vip: '10.0.0.5' } });
    assert.deepEqual(Outcome.ok(), { kind: 'done', value: undefined });
  });

  it('yield carries only a reason: it never reaches the tenant', () => {
    assert.deepEqual(Outcome.yield('VolumeCreating'), { kind: 'yield', reason: 'VolumeCreating' });
  });

  it('park and terminal carry a reason and a message, and a cause only when given', () => {
    assert.deepEqual(Outcome.park('R3′', 'fix the image'), { kind: 'park', reason: 'R3′', message: 'fix the image' });
    assert.deepEqual(Outcome.terminal('Errored', 'volume failed'), {
      kind: 'terminal',
      reason: 'Errored',
      message: 'volume failed',
    });
    const cause = new Error('raw');
    assert.equal(Outcome.park('r', 'm', cause).cause, cause);
    assert.equal(Outcome.terminal('r', 'm', cause).cause, cause);
    assert.equal('cause' in Outcome.terminal('r', 'm'), false);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JWTPayload } from 'jose';
import { ManualClock } from '../../util/clock.ts';
import { rememberingVerified } from './verified-tokens.ts';

/** A verifier that accepts every token but `bad`, counting its calls; each token expires `lifeS` after `now`. */
function counting(clock: ManualClock, lifeS: number) {
  const calls: string[] = [];
  const verify = (token: string): Promise<JWTPayload> => {
    calls.push(token);
    if (token === 'bad') return Promise.reject(new Error('bad signature'));
    return Promise.resolve({ sub: token, exp: Math.floor(clock.now() / 1000) + lifeS });
  };
  return { calls, verify };
}

describe('rememberingVerified', () => {
  it('verifies a token once while it is remembered, and each different token on its own', async () => {
    const clock = new ManualClock(1_000_000);
    const { calls, verify } = counting(clock, 3600);
    const remembered = rememberingVerified(verify, { clock, ttlMs: 30_000, max: 10 });
    assert.equal((await remembered('a')).sub, 'a');
    assert.equal((await remembered('a')).sub, 'a');
    assert.equal((await remembered('b')).sub, 'b');
    assert.deepEqual(calls, ['a', 'b']);
  });

  it('verifies again once the time to live has passed', async () => {
    const clock = new ManualClock(1_000_000);
    const { calls, verify } = counting(clock, 3600);
    const remembered = rememberingVerified(verify, { clock, ttlMs: 30_000, max: 10 });
    await remembered('a');
    clock.advance(29_999);
    await remembered('a');
    clock.advance(1);
    await remembered('a');
    assert.deepEqual(calls, ['a', 'a']);
  });

  it('never serves a token past its own expiry, however long the time to live', async () => {
    const clock = new ManualClock(1_000_000);
    const { calls, verify } = counting(clock, 5);
    const remembered = rememberingVerified(verify, { clock, ttlMs: 60_000, max: 10 });
    await remembered('a');
    clock.advance(4_999);
    await remembered('a');
    assert.equal(calls.length, 1);
    clock.advance(1); // exp's second has begun: jose refuses it now, so it must be asked
    await remembered('a');
    assert.equal(calls.length, 2);
  });

  it('remembers no refusal: a refused token is checked, and refused, every time', async () => {
    const clock = new ManualClock(1_000_000);
    const { calls, verify } = counting(clock, 3600);
    const remembered = rememberingVerified(verify, { clock, ttlMs: 30_000, max: 10 });
    await assert.rejects(remembered('bad'), /bad signature/);
    await assert.rejects(remembered('bad'), /bad signature/);
    assert.deepEqual(calls, ['bad', 'bad']);
  });

  it('holds at most `max` tokens, forgetting the least recently used', async () => {
    const clock = new ManualClock(1_000_000);
    const { calls, verify } = counting(clock, 3600);
    const remembered = rememberingVerified(verify, { clock, ttlMs: 30_000, max: 2 });
    await remembered('a');
    await remembered('b');
    await remembered('a'); // a is now the most recent
    await remembered('c'); // b goes
    await remembered('a');
    await remembered('b');
    assert.deepEqual(calls, ['a', 'b', 'c', 'b']);
  });
});

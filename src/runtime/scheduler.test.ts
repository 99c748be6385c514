import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_TIMER_DELAY_MS, ManualClock, systemClock, type ArmTimer } from '../util/clock.ts';
import { Manager } from './manager.ts';
import { delay, ManualScheduler, systemScheduler } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { eventually, objectOf, widgetType } from './testing/helpers.ts';

/** The default password timer: 720h, beyond what one Node timer holds. */
const H720 = 720 * 3_600_000;

/** Collects the TimeoutOverflowWarnings Node emits while `body` runs. */
async function overflowWarnings(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (w: Error) => {
    if (w.name === 'TimeoutOverflowWarning') seen.push(w.message);
  };
  process.on('warning', listener);
  try {
    await body();
    await sleep(5); // warnings are emitted on a later tick
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

describe('ManualScheduler', () => {
  it('fires timers in due order as time advances, with the clock at each due time', async () => {
    const clock = new ManualClock(0);
    const scheduler = new ManualScheduler(clock);
    const fired: string[] = [];
    scheduler.schedule(300, () => fired.push(`b@${clock.now()}`));
    scheduler.schedule(100, () => {
      fired.push(`a@${clock.now()}`);
      scheduler.schedule(100, () => fired.push(`c@${clock.now()}`));
    });
    const cancel = scheduler.schedule(150, () => fired.push('cancelled'));
    cancel();
    await scheduler.advance(250);
    assert.deepEqual(fired, ['a@100', 'c@200']);
    assert.equal(clock.now(), 250);
    await scheduler.advance(50);
    assert.deepEqual(fired, ['a@100', 'c@200', 'b@300']);
  });

  it('delay resolves on the scheduler and rejects when aborted', async () => {
    const scheduler = new ManualScheduler(new ManualClock(0));
    let done = false;
    void delay(scheduler, 10).then(() => (done = true));
    await scheduler.advance(9);
    assert.equal(done, false);
    await scheduler.advance(1);
    assert.equal(done, true);
    const abort = new AbortController();
    const pending = delay(scheduler, 10, abort.signal);
    abort.abort(new Error('stop'));
    await assert.rejects(pending, /stop/);
    assert.deepEqual(scheduler.pending(), []);
  });

  it('arms a 720h delay in steps a Node timer holds and fires it exactly at 720h', async () => {
    const clock = new ManualClock(0);
    const scheduler = new ManualScheduler(clock);
    let firedAt: number | undefined;
    scheduler.schedule(H720, () => (firedAt = clock.now()));
    assert.deepEqual(scheduler.pending(), [MAX_TIMER_DELAY_MS], 'the first step is the longest a timer holds');
    await scheduler.advance(MAX_TIMER_DELAY_MS);
    assert.equal(firedAt, undefined, 'the end of the first step re-arms instead of firing');
    assert.deepEqual(scheduler.pending(), [H720 - MAX_TIMER_DELAY_MS]);
    await scheduler.advance(H720 - MAX_TIMER_DELAY_MS - 1);
    assert.equal(firedAt, undefined);
    await scheduler.advance(1);
    assert.equal(firedAt, H720);
    assert.deepEqual(scheduler.pending(), []);
  });

  it('cancelling a long delay cancels whichever step is armed', async () => {
    const scheduler = new ManualScheduler(new ManualClock(0));
    let fired = false;
    const cancel = scheduler.schedule(H720, () => (fired = true));
    await scheduler.advance(MAX_TIMER_DELAY_MS);
    cancel();
    assert.deepEqual(scheduler.pending(), []);
    await scheduler.advance(H720);
    assert.equal(fired, false);
  });
});

describe('systemScheduler', () => {
  it('never hands a Node timer more than 2^31-1 ms: a 720h delay re-arms after its first step', () => {
    const armed: { delayMs: number; fire: () => void }[] = [];
    const recording: ArmTimer = (delayMs, fire) => {
      armed.push({ delayMs, fire });
      return () => undefined;
    };
    const scheduler = systemScheduler(systemClock, recording);
    let fired = 0;
    scheduler.schedule(H720, () => fired++);
    assert.deepEqual(
      armed.map((a) => a.delayMs),
      [MAX_TIMER_DELAY_MS],
    );
    armed[0]?.fire();
    assert.equal(fired, 0, 'the first step ending does not run the 720h callback');
    assert.deepEqual(
      armed.map((a) => a.delayMs),
      [MAX_TIMER_DELAY_MS, H720 - MAX_TIMER_DELAY_MS],
    );
    armed[1]?.fire();
    assert.equal(fired, 1);
    assert.ok(armed.every((a) => a.delayMs <= MAX_TIMER_DELAY_MS));
  });

  it('with real Node timers, a 720h delay neither fires early nor warns', async () => {
    let fired = false;
    const warnings = await overflowWarnings(async () => {
      const cancel = systemScheduler(systemClock).schedule(H720, () => (fired = true));
      await sleep(30);
      cancel();
    });
    assert.equal(fired, false, 'Node fires an overflowing timer after 1 ms');
    assert.deepEqual(warnings, []);
  });

  it('a controller whose pass returns a 720h requeue is not reconciled again early', async () => {
    const client = new FakeClient();
    const manager = new Manager({ client, clock: systemClock, random: () => 0 });
    let passes = 0;
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(() => {
        passes++;
        return Promise.resolve({ requeueAfterMs: H720 });
      });
    const warnings = await overflowWarnings(async () => {
      await client.create(widgetType, objectOf(widgetType, 'ns', 'converged'));
      await manager.start();
      await eventually(() => passes === 1);
      await sleep(50);
      await manager.stop();
    });
    assert.equal(passes, 1, 'the requeue loops when the timer overflows');
    assert.deepEqual(warnings, []);
  });
});

describe('systemClock.sleep', () => {
  it('a sleep beyond 2^31-1 ms waits (until aborted) instead of resolving at once', async () => {
    const abort = new AbortController();
    let outcome = 'pending';
    const warnings = await overflowWarnings(async () => {
      const sleeping = systemClock.sleep(H720, abort.signal).then(
        () => (outcome = 'resolved'),
        () => (outcome = 'aborted'),
      );
      await sleep(30);
      assert.equal(outcome, 'pending');
      abort.abort(new Error('stop'));
      await sleeping;
    });
    assert.equal(outcome, 'aborted');
    assert.deepEqual(warnings, []);
  });
});

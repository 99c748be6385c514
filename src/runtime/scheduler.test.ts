import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import { delay, ManualScheduler } from './scheduler.ts';

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
});

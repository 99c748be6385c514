import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { backoffDelay, WorkQueue, type BackoffOptions } from './workqueue.ts';

function setup(options: { random?: () => number; backoff?: Partial<BackoffOptions> } = {}) {
  const scheduler = new ManualScheduler(new ManualClock());
  const observed = { depth: -1, adds: 0, retries: 0 };
  const queue = new WorkQueue<string>({
    keyOf: (s) => s.split('#')[0] ?? s,
    scheduler,
    random: options.random ?? (() => 0),
    backoff: { baseMs: 100, capMs: 1_000, jitter: 0.5, ...options.backoff },
    observer: {
      depth: (d) => {
        observed.depth = d;
      },
      add: () => {
        observed.adds++;
      },
      retry: () => {
        observed.retries++;
      },
    },
  });
  return { scheduler, queue, observed };
}

describe('WorkQueue', () => {
  it('holds a key once however often it is added, keeping the latest item', async () => {
    const { queue, observed } = setup();
    queue.add('a#1');
    queue.add('b');
    queue.add('a#2');
    assert.equal(queue.depth, 2);
    assert.equal(observed.depth, 2);
    assert.equal(observed.adds, 2, 'a key already waiting is not counted again');
    assert.equal(await queue.get(), 'a#2');
    assert.equal(await queue.get(), 'b');
    assert.equal(queue.depth, 0);
  });

  it('keeps one pass per key in flight and queues a key added meanwhile once, after done', async () => {
    const { queue } = setup();
    queue.add('a');
    const first = await queue.get();
    queue.add('a#again');
    queue.add('a#again2');
    assert.equal(queue.depth, 0, 'a key in flight is not handed to a second worker');
    let second: string | undefined;
    void queue.get().then((item) => (second = item));
    await settle();
    assert.equal(second, undefined);
    queue.done(first ?? '');
    await settle();
    assert.equal(second, 'a#again2');
    assert.equal(queue.depth, 0);
  });

  it('hands a waiting worker the next item as soon as it is added', async () => {
    const { queue } = setup();
    const pending = queue.get();
    queue.add('x');
    assert.equal(await pending, 'x');
  });

  it('backs off exponentially per key up to the cap, and forget resets it', async () => {
    const { queue, scheduler, observed } = setup();
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6].map(() => queue.addRateLimited('a')),
      [100, 200, 400, 800, 1_000, 1_000],
    );
    assert.equal(queue.addRateLimited('b'), 100, 'backoff is per key');
    assert.equal(queue.retries, 7);
    assert.equal(observed.retries, 7);
    assert.equal(queue.numRequeues('a'), 6);
    queue.forget('a');
    assert.equal(queue.addRateLimited('a'), 100);
    // Rate-limited adds are delayed: nothing is queued before the first delay passes.
    assert.equal(queue.depth, 0);
    await scheduler.advance(99);
    assert.equal(queue.depth, 0);
    await scheduler.advance(1);
    assert.equal(queue.depth, 2);
  });

  it('jitter shortens a delay by at most its fraction, never past the cap', () => {
    const options = { baseMs: 100, capMs: 1_000, jitter: 0.25 };
    for (const r of [0, 0.3, 0.999]) {
      for (let n = 0; n < 12; n++) {
        const raw = Math.min(1_000, 100 * 2 ** n);
        const d = backoffDelay(n, options, () => r);
        assert.ok(d <= raw && d >= raw * 0.75, `failure ${n} random ${r}: ${d}`);
      }
    }
    assert.equal(
      backoffDelay(2, options, () => 0.5),
      400 * (1 - 0.125),
    );
    assert.equal(
      backoffDelay(5000, options, () => 0),
      1_000,
    );
  });

  it('requeueAfter: a delayed add waits, and of two delayed adds the earlier wins', async () => {
    const { queue, scheduler } = setup();
    queue.addAfter('a', 1_000);
    queue.addAfter('a', 300);
    queue.addAfter('a', 2_000);
    await scheduler.advance(299);
    assert.equal(queue.depth, 0);
    await scheduler.advance(1);
    assert.equal(queue.depth, 1);
    assert.equal(await queue.get(), 'a');
    queue.done('a');
    await scheduler.advance(5_000);
    assert.equal(queue.depth, 0, 'the later delayed adds were dropped for the earlier one');
    queue.addAfter('b', 0);
    assert.equal(queue.depth, 1, 'no delay adds at once');
  });

  it('a pass that starts takes its key’s pending re-check with it, whichever way it reached a worker', async () => {
    const { queue, scheduler } = setup();
    queue.addAfter('a', 10_000);
    queue.addAfter('b', 10_000);
    queue.add('a');
    assert.equal(queue.delayed, 2, 'queued, not started: the re-check still stands');
    assert.equal(await queue.get(), 'a');
    assert.equal(queue.delayed, 1, 'started: a’s re-check is this pass');
    queue.done('a');
    const waiting = queue.get();
    queue.add('b');
    assert.equal(await waiting, 'b', 'handed straight to a waiting worker');
    assert.equal(queue.delayed, 0);
    queue.addAfter('b', 10_000);
    queue.done('b');
    await scheduler.advance(10_000);
    assert.equal(queue.depth, 1, 'a re-check asked for by the pass itself still comes');
  });

  it('drop forgets queued, delayed and re-queued items that match, with their backoff', async () => {
    const { queue, scheduler } = setup();
    queue.add('edge/a');
    queue.add('mgmt/b');
    queue.addAfter('edge/c', 100);
    queue.addRateLimited('edge/d');
    queue.drop((item) => item.startsWith('edge/'));
    await scheduler.advance(1_000);
    assert.equal(queue.depth, 1);
    assert.equal(await queue.get(), 'mgmt/b');
    assert.equal(queue.numRequeues('edge/d'), 0);
  });

  it('shutdown stops handing out work and drains passes in flight', async () => {
    const { queue } = setup();
    queue.add('a');
    queue.add('b');
    const inFlight = await queue.get();
    let drained: boolean | undefined;
    void queue.shutDownWithDrain(10_000).then((d) => (drained = d));
    await settle();
    assert.equal(await queue.get(), undefined, 'no more work after shutdown');
    queue.add('c');
    assert.equal(queue.depth, 0, 'adds after shutdown are ignored');
    assert.equal(drained, undefined, 'still waiting for the pass in flight');
    queue.done(inFlight ?? '');
    await settle();
    assert.equal(drained, true);
  });

  it('shutdown gives up on a pass that outlives the deadline', async () => {
    const { queue, scheduler } = setup();
    queue.add('a');
    await queue.get();
    let drained: boolean | undefined;
    void queue.shutDownWithDrain(5_000).then((d) => (drained = d));
    await scheduler.advance(4_999);
    assert.equal(drained, undefined);
    await scheduler.advance(1);
    assert.equal(drained, false);
  });

  it('a waiting worker gets undefined at shutdown', async () => {
    const { queue } = setup();
    const pending = queue.get();
    assert.equal(await queue.shutDownWithDrain(1), true);
    assert.equal(await pending, undefined);
  });
});

/** The refresh-ahead cache: periodic refresh on an injected scheduler, write-through inserts, tombstones, epochs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../util/clock.ts';
import { RefreshAheadCache, type Scheduler } from './refresh-ahead.ts';

interface Item {
  readonly id: string;
  readonly v: string;
}

/** A scheduler the test fires by hand. */
class ManualScheduler implements Scheduler {
  readonly tasks: { ms: number; task: () => void; cancelled: boolean }[] = [];
  every(ms: number, task: () => void) {
    const entry = { ms, task, cancelled: false };
    this.tasks.push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }
  fire(): void {
    for (const t of this.tasks) if (!t.cancelled) t.task();
  }
}

/** A load the test answers: each call waits until `answer` gives it its items. */
function scriptedLoad() {
  const pending: ((items: Item[]) => void)[] = [];
  let calls = 0;
  return {
    load: () => {
      calls++;
      return new Promise<Item[]>((resolve) => pending.push(resolve));
    },
    answer: async (items: Item[]) => {
      const next = pending.shift();
      assert.ok(next, 'a load is waiting');
      next(items);
      await new Promise((r) => setImmediate(r));
    },
    calls: () => calls,
  };
}

function setup() {
  const scheduler = new ManualScheduler();
  const source = scriptedLoad();
  const cache = new RefreshAheadCache<Item>({
    load: source.load,
    key: (i) => i.id,
    compare: (a, b) => a.id.localeCompare(b.id),
    scheduler,
    clock: new ManualClock(),
    periodMs: 60_000,
  });
  const ids = () => cache.snapshot().items.map((i) => `${i.id}:${i.v}`);
  return { scheduler, source, cache, ids };
}

describe('refresh-ahead cache', () => {
  it('loads once, then serves the snapshot without loading; the scheduler refreshes every minute', async () => {
    const { scheduler, source, cache, ids } = setup();
    const ready = cache.list();
    await source.answer([
      { id: 'b', v: '1' },
      { id: 'a', v: '1' },
    ]);
    const first = await ready;
    assert.deepEqual(
      first.items.map((i) => i.id),
      ['a', 'b'],
    );
    assert.equal((await cache.list()).epoch, first.epoch);
    assert.equal(await cache.list(), first, 'one snapshot per epoch, shared');
    assert.equal(source.calls(), 1);
    assert.deepEqual(
      scheduler.tasks.map((t) => t.ms),
      [60_000],
    );
    scheduler.fire();
    await source.answer([{ id: 'a', v: '2' }]);
    assert.deepEqual(ids(), ['a:2']);
    assert.ok(cache.snapshot().epoch > first.epoch);
  });

  it('a write-through insert survives a refresh already in flight, and gives way to the next one', async () => {
    const { scheduler, source, cache, ids } = setup();
    const ready = cache.ready();
    await source.answer([{ id: 'a', v: '1' }]);
    await ready;
    scheduler.fire(); // a refresh starts: its listing predates the create
    cache.insertIfAbsent({ id: 'new', v: 'synthetic' });
    assert.deepEqual(ids(), ['a:1', 'new:synthetic']);
    await source.answer([{ id: 'a', v: '1' }]);
    assert.deepEqual(ids(), ['a:1', 'new:synthetic'], 'survives the in-flight refresh');
    scheduler.fire();
    await source.answer([
      { id: 'a', v: '1' },
      { id: 'new', v: 'listed' },
    ]);
    assert.deepEqual(ids(), ['a:1', 'new:listed'], 'the next refresh is authoritative');
    cache.insertIfAbsent({ id: 'a', v: 'ignored' });
    assert.deepEqual(ids(), ['a:1', 'new:listed'], 'present: not inserted');
  });

  it('a tombstone hides the item until a refresh started after the delete', async () => {
    const { scheduler, source, cache, ids } = setup();
    const ready = cache.ready();
    await source.answer([{ id: 'a', v: 'ready' }]);
    await ready;
    scheduler.fire();
    const before = cache.snapshot().epoch;
    cache.upsert({ id: 'a', v: 'failed' });
    assert.ok(cache.snapshot().epoch > before);
    await source.answer([{ id: 'a', v: 'ready' }]);
    assert.deepEqual(ids(), ['a:failed'], 'an in-flight listing does not resurrect it');
    scheduler.fire();
    await source.answer([]);
    assert.deepEqual(ids(), []);
  });

  it('a forgotten item is gone at once, through a refresh in flight, until a refresh started after it', async () => {
    const { scheduler, source, cache, ids } = setup();
    const ready = cache.ready();
    await source.answer([
      { id: 'a', v: '1' },
      { id: 'b', v: '1' },
    ]);
    await ready;
    scheduler.fire(); // a refresh starts: its listing predates the source's delete
    const before = cache.snapshot().epoch;
    cache.forget('a');
    assert.ok(cache.snapshot().epoch > before, 'readers see the change');
    assert.deepEqual(ids(), ['b:1']);
    await source.answer([
      { id: 'a', v: '1' },
      { id: 'b', v: '1' },
    ]);
    assert.deepEqual(ids(), ['b:1'], 'an in-flight listing does not bring it back');
    scheduler.fire();
    await source.answer([
      { id: 'a', v: '2' },
      { id: 'b', v: '1' },
    ]);
    assert.deepEqual(ids(), ['a:2', 'b:1'], 'the next listing is authoritative: the source still had it');
  });

  it('a failed refresh keeps the snapshot; a failed first load is retried by the next caller', async () => {
    let fail = true;
    const scheduler = new ManualScheduler();
    const errors: unknown[] = [];
    let n = 0;
    const cache = new RefreshAheadCache<Item>({
      load: () => (fail ? Promise.reject(new Error('glance down')) : Promise.resolve([{ id: 'a', v: String(++n) }])),
      key: (i) => i.id,
      compare: () => 0,
      scheduler,
      clock: new ManualClock(),
      periodMs: 60_000,
      onRefreshError: (e) => errors.push(e),
    });
    await assert.rejects(cache.list(), /glance down/);
    assert.ok(
      scheduler.tasks.every((t) => t.cancelled),
      'no timer left running',
    );
    fail = false;
    assert.equal((await cache.list()).items[0]?.v, '1');
    fail = true;
    await assert.rejects(cache.refresh());
    assert.equal(cache.snapshot().items[0]?.v, '1');
    assert.equal(errors.length, 2);
    cache.stop();
    assert.ok(scheduler.tasks.every((t) => t.cancelled));
  });
});

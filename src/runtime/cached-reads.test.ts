import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeNotFoundError } from '../kube/errors.ts';
import { ManualClock } from '../util/clock.ts';
import { CachedReads } from './cached-reads.ts';
import { silentLogger } from './logger.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { objectOf, widgetType } from './testing/helpers.ts';

function setup() {
  const client = new FakeClient();
  let gets = 0;
  const get = client.get.bind(client);
  client.get = ((...args: Parameters<FakeClient['get']>) => {
    gets++;
    return get(...args);
  }) as FakeClient['get'];
  const reads = new CachedReads({
    client,
    namespace: 'ns',
    types: [widgetType],
    scheduler: new ManualScheduler(new ManualClock()),
    log: silentLogger(),
    random: () => 0,
  });
  return { client, reads, gets: () => gets };
}

describe('CachedReads', () => {
  it('once synced, a read of a cached kind in its namespace asks the client nothing and follows the watch', async () => {
    const { client, reads, gets } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    await reads.start();
    try {
      for (let i = 0; i < 10; i++) assert.deepEqual((await reads.get(widgetType, 'ns', 'a')).spec, { n: 1 });
      assert.equal(gets(), 0);
      const stored = await client.get(widgetType, 'ns', 'a');
      await client.update(widgetType, { ...stored, spec: { n: 2 } });
      const afterUpdate = gets();
      let seen: unknown;
      for (let i = 0; i < 200 && (seen as { n?: number } | undefined)?.n !== 2; i++) {
        await settle(1);
        seen = (await reads.get(widgetType, 'ns', 'a')).spec;
      }
      assert.deepEqual(seen, { n: 2 });
      assert.equal(gets(), afterUpdate);
    } finally {
      await reads.stop();
    }
  });

  it('a miss, another namespace, or a read before the first list goes to the client: the answer never changes', async () => {
    const { client, reads, gets } = setup();
    await client.create(widgetType, objectOf(widgetType, 'other', 'b'));
    await client.create(widgetType, objectOf(widgetType, 'ns', 'early'));
    assert.equal((await reads.get(widgetType, 'ns', 'early')).metadata.name, 'early', 'not started: read through');
    await reads.start();
    try {
      const before = gets();
      assert.equal((await reads.get(widgetType, 'other', 'b')).metadata.name, 'b');
      await assert.rejects(reads.get(widgetType, 'ns', 'missing'), KubeNotFoundError);
      assert.equal(gets(), before + 2);
    } finally {
      await reads.stop();
    }
  });
});

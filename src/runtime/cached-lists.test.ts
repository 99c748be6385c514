import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import { CachedListClient } from './cached-lists.ts';
import { Manager } from './manager.ts';
import { ManualScheduler } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { eventually, gadgetType, objectOf, widgetType } from './testing/helpers.ts';

async function setup() {
  const client = new FakeClient();
  const scheduler = new ManualScheduler(new ManualClock());
  const manager = new Manager({
    client,
    clock: scheduler.clock,
    scheduler,
    random: () => 0,
    namespacesOf: (type) => (type === widgetType ? ['mine'] : undefined),
  });
  for (const ns of ['mine', 'theirs']) {
    await client.create(widgetType, objectOf(widgetType, ns, 'w'));
    await client.create(gadgetType, objectOf(gadgetType, ns, 'g'));
  }
  manager
    .controller('widgets')
    .for(widgetType)
    .complete(() => Promise.resolve({}));
  return { client, manager, cached: new CachedListClient(client, manager) };
}

const names = (list: { items: { metadata: { namespace?: string; name: string } }[] }) =>
  list.items.map((o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort();

describe('CachedListClient', () => {
  it('lists a watched kind from the synced cache: no store list, yet a new object shows once its event is in', async () => {
    const { client, manager, cached } = await setup();
    assert.equal(manager.cachedList(widgetType, 'mine'), undefined, 'not synced before start');
    await manager.start();
    const before = client.calls.filter((c) => c.startsWith('list')).length;
    assert.deepEqual(names(await cached.list(widgetType, { namespace: 'mine' })), ['mine/w']);
    assert.equal(client.calls.filter((c) => c.startsWith('list')).length, before, 'served from the cache');
    await client.create(widgetType, objectOf(widgetType, 'mine', 'later'));
    await eventually(() => manager.cachedList(widgetType, 'mine')?.length === 2);
    assert.deepEqual(names(await cached.list(widgetType, { namespace: 'mine' })), ['mine/later', 'mine/w']);
    await manager.stop();
  });

  it('asks the client for what the cache cannot answer: another namespace, a selector, an unwatched kind', async () => {
    const { manager, cached } = await setup();
    await manager.start();
    assert.deepEqual(names(await cached.list(widgetType, { namespace: 'theirs' })), ['theirs/w']);
    assert.deepEqual(names(await cached.list(widgetType, {})), ['mine/w', 'theirs/w']);
    assert.deepEqual(names(await cached.list(widgetType, { namespace: 'mine', labelSelector: 'x=y' })), []);
    assert.deepEqual(names(await cached.list(gadgetType, { namespace: 'mine' })), ['mine/g']);
    await manager.stop();
  });
});

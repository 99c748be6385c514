import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeGoneError, KubeInternalError } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import { ManualClock } from '../util/clock.ts';
import { Informer } from './informer.ts';
import { silentLogger } from './logger.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { eventually, objectOf, widgetType } from './testing/helpers.ts';

function setup(options: { namespace?: string } = {}) {
  const client = new FakeClient();
  const scheduler = new ManualScheduler(new ManualClock());
  const events: string[] = [];
  const informer = new Informer<KubeObject>({
    client,
    type: widgetType,
    scheduler,
    log: silentLogger(),
    resyncMs: 60_000,
    random: () => 0,
    backoff: { baseMs: 1_000, capMs: 8_000, jitter: 0 },
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  informer.addHandlers({
    add: (o) => events.push(`add ${o.metadata.name}`),
    update: (old, o) =>
      events.push(`update ${o.metadata.name} ${old.metadata.resourceVersion}->${o.metadata.resourceVersion}`),
    delete: (o) => events.push(`delete ${o.metadata.name}`),
  });
  return { client, scheduler, informer, events };
}

describe('Informer', () => {
  it('lists, then watches from the list version: adds, updates and deletes reach the handlers and the store', async () => {
    const { client, informer, events } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    informer.start();
    await informer.synced();
    assert.deepEqual(events, ['add a']);
    const b = await client.create(widgetType, objectOf(widgetType, 'ns', 'b'));
    await client.update(widgetType, { ...b, spec: { size: 2 } });
    await client.delete(widgetType, 'ns', 'a');
    await eventually(() => events.length === 4, 'events');
    assert.deepEqual(events, ['add a', 'add b', 'update b 2->3', 'delete a']);
    assert.deepEqual(
      informer.list().map((o) => o.metadata.name),
      ['b'],
    );
    assert.equal(informer.get('ns', 'b')?.metadata.resourceVersion, '3');
    assert.deepEqual(client.calls, ['list widgets', 'watch widgets@1']);
    await informer.stop();
  });

  it('keeps no managedFields: listed or watched, the cache and the handlers get the object without them', async () => {
    const { client, informer } = setup();
    const fields = [
      {
        manager: 'test',
        operation: 'Update' as const,
        apiVersion: 'v1',
        fieldsType: 'FieldsV1' as const,
        fieldsV1: {},
      },
    ];
    const withFields = (name: string) => ({
      ...objectOf(widgetType, 'ns', name),
      metadata: { ...objectOf(widgetType, 'ns', name).metadata, managedFields: fields },
    });
    await client.create(widgetType, withFields('a'));
    const seen: KubeObject[] = [];
    informer.addHandlers({ add: (o) => seen.push(o), update: (_, o) => seen.push(o), delete: () => undefined });
    informer.start();
    await informer.synced();
    await client.create(widgetType, withFields('b'));
    await eventually(() => seen.length === 2, 'both delivered');
    const stored = await client.get(widgetType, 'ns', 'a');
    assert.ok(stored.metadata.managedFields !== undefined, 'the store keeps them');
    for (const object of [...seen, ...informer.list()])
      assert.equal(object.metadata.managedFields, undefined, object.metadata.name);
    await informer.stop();
  });

  it('relists when the watch ends, emitting only what changed', async () => {
    const { client, informer, events } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    informer.start();
    await informer.synced();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'b'));
    await eventually(() => events.length === 2);
    client.endWatches();
    await eventually(() => client.calls.length === 4, 'relist and rewatch');
    assert.deepEqual(client.calls, ['list widgets', 'watch widgets@1', 'list widgets', 'watch widgets@2']);
    assert.deepEqual(events, ['add a', 'add b'], 'nothing re-emitted for unchanged objects');
    await informer.stop();
  });

  it('relists at once, without backoff, when the watch says its version is Gone', async () => {
    const { client, scheduler, informer, events } = setup();
    informer.start();
    await informer.synced();
    client.failNextWatch(widgetType, new KubeGoneError('too old resource version'));
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => events.length === 1);
    client.endWatches();
    await eventually(() => client.calls.length === 6, 'list, watch (Gone), list, watch');
    assert.deepEqual(client.calls.slice(2), ['list widgets', 'watch widgets@1', 'list widgets', 'watch widgets@1']);
    assert.deepEqual(scheduler.pending(), [60_000], 'only the resync timer: no backoff was scheduled');
    await informer.stop();
  });

  it('restarts with growing backoff when list fails, and recovers', async () => {
    const { client, scheduler, informer, events } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    client.failNextList(widgetType, new KubeInternalError('etcd down'));
    client.failNextList(widgetType, new KubeInternalError('etcd down'));
    informer.start();
    await settle();
    assert.deepEqual(scheduler.pending(), [1_000]);
    await scheduler.advance(1_000);
    assert.deepEqual(scheduler.pending(), [2_000], 'the second failure waits twice as long');
    assert.equal(informer.hasSynced, false);
    await scheduler.advance(2_000);
    await informer.synced();
    assert.deepEqual(events, ['add a']);
    await informer.stop();
  });

  it('resyncs by relisting on its period, repairing drift', async () => {
    const { client, scheduler, informer } = setup();
    informer.start();
    await informer.synced();
    assert.deepEqual(scheduler.pending(), [60_000]);
    await scheduler.advance(60_000);
    await eventually(() => client.calls.filter((c) => c.startsWith('list')).length === 2, 'resync relist');
    await informer.stop();
  });

  it('isolates a handler that throws', async () => {
    const { client, informer, events } = setup();
    informer.addHandlers({
      add: () => {
        throw new Error('boom');
      },
      update: () => undefined,
      delete: () => undefined,
    });
    informer.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => events.length === 1);
    assert.deepEqual(events, ['add a']);
    await informer.stop();
  });

  it('replays stored objects to a handler added later', async () => {
    const { client, informer } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    informer.start();
    await informer.synced();
    const late: string[] = [];
    informer.addHandlers({ add: (o) => late.push(o.metadata.name), update: () => undefined, delete: () => undefined });
    assert.deepEqual(late, ['a']);
    await informer.stop();
  });

  it('watches one namespace when told to', async () => {
    const { client, informer, events } = setup({ namespace: 'ns' });
    await client.create(widgetType, objectOf(widgetType, 'other', 'x'));
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    informer.start();
    await informer.synced();
    await client.create(widgetType, objectOf(widgetType, 'other', 'y'));
    await client.create(widgetType, objectOf(widgetType, 'ns', 'b'));
    await eventually(() => events.length === 2);
    await settle();
    assert.deepEqual(events, ['add a', 'add b']);
    await informer.stop();
  });
});

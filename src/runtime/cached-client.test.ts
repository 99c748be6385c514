import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getFreshOptional, type Client } from '../kube/client.ts';
import { KubeConflictError, KubeNotFoundError } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import { CachedClient, type CacheSource } from './cached-client.ts';
import { FakeClient } from './testing/fake-client.ts';
import { gadgetType, objectOf, widgetType } from './testing/helpers.ts';

/** An informer the test moves by hand: it holds widgets in `ns` only, and lags until told to catch up. */
class LaggingCache implements CacheSource {
  readonly objects = new Map<string, KubeObject>();
  peek<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): T | null | undefined {
    if (type.plural !== widgetType.plural || namespace !== 'ns') return undefined;
    return (this.objects.get(name) as T | undefined) ?? null;
  }
  hold(object: KubeObject): void {
    this.objects.set(object.metadata.name, object);
  }
}

function setup() {
  const store = new FakeClient();
  let count = 0;
  // The API server as the cached client sees it, counting its gets (the test's own reads and writes are not counted).
  const counted: Client = {
    get: (type, namespace, name) => {
      count++;
      return store.get(type, namespace, name);
    },
    list: (type, options) => store.list(type, options),
    watch: (type, options) => store.watch(type, options),
    create: (type, object) => store.create(type, object),
    update: (type, object) => store.update(type, object),
    patch: (type, namespace, name, patch) => store.patch(type, namespace, name, patch),
    apply: (type, object) => store.apply(type, object),
    delete: (type, namespace, name) => store.delete(type, namespace, name),
    servedVersions: (group, plural) => store.servedVersions(group, plural),
  };
  const cache = new LaggingCache();
  const client = new CachedClient(counted, [cache]);
  const gets = () => count;
  return { store, cache, client, gets };
}

const spec = (o: KubeObject): unknown => (o as KubeObject & { spec?: unknown }).spec;

describe('CachedClient', () => {
  it('a read the cache holds asks the API server nothing; a kind or namespace it does not cover is read live', async () => {
    const { store, cache, client, gets } = setup();
    cache.hold(await store.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } })));
    await store.create(widgetType, objectOf(widgetType, 'other', 'b'));
    await store.create(gadgetType, objectOf(gadgetType, 'ns', 'c'));
    const before = gets();
    for (let i = 0; i < 5; i++) assert.deepEqual(spec(await client.get(widgetType, 'ns', 'a')), { n: 1 });
    assert.equal(gets(), before);
    await client.get(widgetType, 'other', 'b');
    await client.get(gadgetType, 'ns', 'c');
    assert.equal(gets(), before + 2);
  });

  it('a miss is confirmed live: an object the cache has not seen yet is found, and only a live NotFound says absent', async () => {
    const { store, client, gets } = setup();
    await store.create(widgetType, objectOf(widgetType, 'ns', 'new'));
    assert.equal((await client.get(widgetType, 'ns', 'new')).metadata.name, 'new');
    await assert.rejects(client.get(widgetType, 'ns', 'absent'), KubeNotFoundError);
    assert.equal(gets(), 2);
  });

  it('primes the cache has caught up with are dropped unread, so the last writes of a wave do not hold a second fleet', async () => {
    const { store, cache, client } = setup();
    const written: KubeObject[] = [];
    for (let i = 0; i < 300; i++) {
      const v1 = await store.create(widgetType, objectOf(widgetType, 'ns', `w${String(i)}`, { spec: { n: 1 } }));
      cache.hold(v1);
      written.push(await client.update(widgetType, { ...v1, spec: { n: 2 } }));
    }
    // Never read again; the informer catches up with every write.
    for (const object of written) cache.hold(object);
    for (let i = 0; i < 300; i++) {
      const v1 = await store.create(widgetType, objectOf(widgetType, 'ns', `x${String(i)}`, { spec: { n: 1 } }));
      cache.hold(v1);
      await client.update(widgetType, { ...v1, spec: { n: 2 } });
    }
    assert.ok(client.primed <= 300, `${String(client.primed)} primes held: only those not caught up with`);
    // The primes not caught up with still answer the reads.
    assert.deepEqual(spec(await client.get(widgetType, 'ns', 'x299')), { n: 2 });
  });

  it("a write's answer is what the next read sees until the cache holds that version", async () => {
    const { store, cache, client, gets } = setup();
    const v1 = await store.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    cache.hold(v1);
    const v2 = await client.update(widgetType, { ...v1, spec: { n: 2 } });
    const before = gets();
    // The informer still holds v1: the pass sees its own write, without asking.
    assert.deepEqual(spec(await client.get(widgetType, 'ns', 'a')), { n: 2 });
    assert.equal(gets(), before);
    // Once the informer holds v2 and then a later version another writer made, the cache answers again.
    cache.hold(v2);
    const v3 = await store.update(widgetType, { ...v2, spec: { n: 3 } });
    cache.hold(v3);
    assert.deepEqual(spec(await client.get(widgetType, 'ns', 'a')), { n: 3 });
    assert.equal(gets(), before);
  });

  it('a prime of an object deleted and made again under the same name gives way to the new one', async () => {
    const { store, cache, client } = setup();
    const first = await client.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    await store.delete(widgetType, 'ns', 'a');
    const again = await store.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 9 } }));
    assert.notEqual(first.metadata.uid, again.metadata.uid);
    cache.hold(again);
    assert.deepEqual(spec(await client.get(widgetType, 'ns', 'a')), { n: 9 });
  });

  it('a conflict sends the next read to the API server, which then primes the reads after it', async () => {
    const { store, cache, client, gets } = setup();
    const v1 = await store.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    cache.hold(v1);
    // Another writer moves it on; the informer has not seen it.
    await store.update(widgetType, { ...v1, spec: { n: 2 } });
    const stale = await client.get(widgetType, 'ns', 'a');
    await assert.rejects(client.update(widgetType, { ...stale, spec: { n: 5 } }), KubeConflictError);
    const before = gets();
    const fresh = await client.get(widgetType, 'ns', 'a');
    assert.deepEqual(spec(fresh), { n: 2 });
    assert.equal(gets(), before + 1);
    // The retry's write succeeds, and the read after it needs no request.
    await client.update(widgetType, { ...fresh, spec: { n: 5 } });
    assert.deepEqual(spec(await client.get(widgetType, 'ns', 'a')), { n: 5 });
    assert.equal(gets(), before + 1);
  });

  it('after a delete the next read goes to the API server, not to the cache that still holds the object', async () => {
    const { store, cache, client } = setup();
    cache.hold(await store.create(widgetType, objectOf(widgetType, 'ns', 'a')));
    await client.delete(widgetType, 'ns', 'a');
    await assert.rejects(client.get(widgetType, 'ns', 'a'), KubeNotFoundError);
  });

  it('getFresh reads live whatever the cache holds; lists are always the API server’s', async () => {
    const { store, cache, client, gets } = setup();
    const v1 = await store.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    cache.hold(v1);
    await store.update(widgetType, { ...v1, spec: { n: 2 } });
    const before = gets();
    assert.deepEqual(spec((await getFreshOptional(client, widgetType, 'ns', 'a')) ?? v1), { n: 2 });
    assert.equal(gets(), before + 1);
    assert.equal(await getFreshOptional(client, widgetType, 'ns', 'gone'), undefined);
    await store.create(widgetType, objectOf(widgetType, 'ns', 'b'));
    assert.deepEqual((await client.list(widgetType, { namespace: 'ns' })).items.map((o) => o.metadata.name).sort(), [
      'a',
      'b',
    ]);
  });
});

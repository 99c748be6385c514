import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { WatchEvent } from '../client.ts';
import { KubeNotFoundError } from '../errors.ts';
import type { KubeObject } from '../object.ts';
import { builtin, type ResourceType } from '../resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import { Db } from './db.ts';
import { Kinds } from './kinds.ts';
import { openEmbeddedStore } from './store.ts';
import { Hub } from './watch.ts';
import { Writer } from './write.ts';

const dir = mkdtempSync(join(tmpdir(), 'kinds-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const group = 'kinds.openregion.dev';
const gadgets = (version: string): ResourceType => ({
  group,
  version,
  plural: 'gadgets',
  kind: 'Gadget',
  namespaced: true,
});
const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const crd = (versions: string[]): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `gadgets.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, schema })),
  },
});
const gadget = (name: string, version = 'v1'): KubeObject => ({
  apiVersion: `${group}/${version}`,
  kind: 'Gadget',
  metadata: { name, namespace: 'default' },
});

/** Counts every SQLite statement any connection runs while `fn` runs. */
async function statementsDuring(fn: () => Promise<unknown>): Promise<number> {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const methods = ['get', 'all', 'run', 'iterate'] as const;
  const saved = methods.map((m) => proto[m]);
  let count = 0;
  for (const [i, m] of methods.entries()) {
    const original = saved[i] as (...a: unknown[]) => unknown;
    proto[m] = function (this: unknown, ...args: unknown[]) {
      count++;
      return original.apply(this, args);
    };
  }
  try {
    await fn();
  } finally {
    for (const [i, m] of methods.entries()) proto[m] = saved[i] as (...a: unknown[]) => unknown;
  }
  return count;
}

/** The next event a watch delivers (the store's poll timer is unref'd: a timer of its own keeps the test alive). */
async function nextEvent(events: AsyncIterable<WatchEvent<KubeObject>>): Promise<WatchEvent<KubeObject>> {
  const alive = setInterval(() => undefined, 1_000);
  try {
    for await (const event of events) return event;
  } finally {
    clearInterval(alive);
  }
  throw new Error('the watch ended');
}

describe('the kinds a store serves, cached', () => {
  it('a custom kind already resolved costs a get no statement beyond the object’s own read', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      await store.create(builtin.customResourceDefinition, crd(['v1']));
      await store.create(gadgets('v1'), gadget('a'));
      await store.get(gadgets('v1'), 'default', 'a');
      // Before, every call read the CRD's resourceVersion first: two statements a get.
      assert.equal(await statementsDuring(() => store.get(gadgets('v1'), 'default', 'a')), 1);
    } finally {
      await store.close();
    }
  });

  it('a CRD changed in this process is served as changed once the write is acknowledged; deleted, NotFound', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    try {
      const created = await store.create(builtin.customResourceDefinition, crd(['v1']));
      await store.create(gadgets('v1'), gadget('a'));
      await assert.rejects(store.get(gadgets('v2'), 'default', 'a'), KubeNotFoundError);
      await store.update(builtin.customResourceDefinition, { ...crd(['v1', 'v2']), metadata: created.metadata });
      assert.deepEqual(await store.servedVersions(group, 'gadgets'), ['v2', 'v1']);
      assert.equal((await store.get(gadgets('v2'), 'default', 'a')).metadata.name, 'a');
      await store.delete(builtin.customResourceDefinition, undefined, `gadgets.${group}`);
      await assert.rejects(store.get(gadgets('v1'), 'default', 'a'), KubeNotFoundError);
      assert.deepEqual(await store.servedVersions(group, 'gadgets'), []);
    } finally {
      await store.close();
    }
  });

  it("another process's CRD change is served once its change reaches this process's watches", async () => {
    const path = join(dir, 'two.db');
    const here = openEmbeddedStore(path, { clock: new ManualClock(), pollIntervalMs: 10, garbageCollection: false });
    const there = openEmbeddedStore(path, { clock: new ManualClock(), garbageCollection: false });
    try {
      const created = await here.create(builtin.customResourceDefinition, crd(['v1']));
      await here.create(gadgets('v1'), gadget('a'));
      await assert.rejects(here.get(gadgets('v2'), 'default', 'a'), KubeNotFoundError);
      const changes = here.watch(builtin.customResourceDefinition, {
        resourceVersion: created.metadata.resourceVersion ?? '',
      });
      await there.update(builtin.customResourceDefinition, { ...crd(['v1', 'v2']), metadata: created.metadata });
      assert.equal((await nextEvent(changes)).type, 'MODIFIED');
      assert.equal((await here.get(gadgets('v2'), 'default', 'a')).metadata.name, 'a');
    } finally {
      await there.close();
      await here.close();
    }
  });

  it('what a transaction that rolls back read of the CRDs it wrote is not kept', () => {
    const db = new Db(':memory:', { changeRetention: 100 });
    const kinds = new Kinds(db);
    const hub = new Hub(db, 1_000, () => undefined);
    kinds.follow(hub);
    const writer = new Writer({
      db,
      kinds,
      clock: new ManualClock(),
      newUid: () => `uid-${String(Math.random())}`,
      nameSuffix: () => 'abcde',
    });
    try {
      writer.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      assert.throws(() =>
        db.write(() => {
          writer.create(builtin.customResourceDefinition, crd(['v1']));
          assert.equal(kinds.resolve(gadgets('v1')).type.kind, 'Gadget');
          throw new Error('roll back');
        }),
      );
      assert.throws(() => kinds.resolve(gadgets('v1')), KubeNotFoundError);
    } finally {
      hub.stop();
      db.close();
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { builtin } from '../resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import { Durability } from './durability.ts';
import { openEmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'openregion-durability-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('Durability', () => {
  it('commits asked for while a sync runs share the next one; each sync reports the version it covers', async () => {
    const wal = join(dir, 'shared-wal');
    writeFileSync(wal, 'frames');
    let committed = 0;
    const durable: number[] = [];
    const durability = new Durability(
      wal,
      () => committed,
      (rv) => durable.push(rv),
    );
    const asked: Promise<void>[] = [];
    for (let i = 1; i <= 10; i++) {
      committed = i;
      asked.push(durability.synced());
    }
    await Promise.all(asked);
    assert.deepEqual(durable, [1, 10], 'the first sync covers 1; the nine asked for during it share one more');
    durability.close();
  });

  it('a sync that fails rejects what waited on it; nothing is reported durable', async () => {
    const durable: number[] = [];
    const durability = new Durability(
      join(dir, 'absent-wal'),
      () => 1,
      (rv) => durable.push(rv),
    );
    await assert.rejects(durability.synced(), /ENOENT/);
    assert.deepEqual(durable, []);
  });

  it('close while a sync runs: the sync still settles its waiters', async () => {
    const wal = join(dir, 'closing-wal');
    writeFileSync(wal, 'frames');
    const durability = new Durability(
      wal,
      () => 7,
      () => undefined,
    );
    const waiting = durability.synced();
    durability.close();
    await waiting;
  });

  it('in memory there is nothing to sync: a commit is durable at once', async () => {
    const durable: number[] = [];
    const durability = new Durability(
      undefined,
      () => 3,
      (rv) => durable.push(rv),
    );
    await durability.synced();
    assert.deepEqual(durable, [3]);
  });

  it('on a file store: a watch delivers a change before its write is acknowledged, and a reopen finds it', async () => {
    const path = join(dir, 'store.db');
    const store = openEmbeddedStore(path, { clock: new ManualClock() });
    const seen: string[] = [];
    const watch = store.watch(builtin.configMap, { namespace: 'default' });
    const reading = (async () => {
      for await (const event of watch) {
        if (event.type === 'ADDED') seen.push(event.object.metadata.name);
        if (seen.length === 2) return;
      }
    })();
    const configMap = (name: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'default' },
    });
    await Promise.all([
      store.create(builtin.configMap, configMap('a')),
      store.create(builtin.configMap, configMap('b')),
    ]);
    await reading;
    assert.deepEqual(seen.sort(), ['a', 'b']);
    await store.close();
    const reopened = openEmbeddedStore(path, { clock: new ManualClock() });
    const names = (await reopened.list(builtin.configMap, { namespace: 'default' })).items.map((c) => c.metadata.name);
    assert.deepEqual(names.sort(), ['a', 'b']);
    await reopened.close();
  });
});

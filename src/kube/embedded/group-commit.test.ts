import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { KubeAlreadyExistsError } from '../errors.ts';
import { builtin } from '../resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import type { Db } from './db.ts';
import { GroupCommit } from './group-commit.ts';
import { openEmbeddedStore } from './store.ts';

/** A Db whose transactions only count: outermost ones are commits. */
function countingDb(): { db: Db; commits: () => number } {
  let depth = 0;
  let commits = 0;
  const db = {
    write<T>(fn: () => T): T {
      depth++;
      try {
        return fn();
      } finally {
        depth--;
        if (depth === 0) commits++;
      }
    },
  } as unknown as Db;
  return { db, commits: () => commits };
}

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { name },
});

describe('GroupCommit', () => {
  it('commits the writes asked for in one turn together, each settling on its own', async () => {
    const { db, commits } = countingDb();
    const group = new GroupCommit(db, () => Promise.resolve());
    const asked = [
      group.write(() => 1),
      group.write(() => {
        throw new Error('refused');
      }),
      group.write(() => 3),
    ];
    assert.equal(commits(), 0, 'nothing runs in the turn that asked');
    const settled = await Promise.allSettled(asked);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)),
      [1, 'refused', 3],
    );
    assert.equal(commits(), 1, 'one transaction for the three');
  });

  it('caps a group at 16 writes, the loop turning between groups', async () => {
    const { db, commits } = countingDb();
    const group = new GroupCommit(db, () => Promise.resolve());
    const asked = Array.from({ length: 40 }, (_, i) => group.write(() => i));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(commits(), 1, 'one group in the first turn');
    assert.deepEqual(await Promise.all(asked), [...Array(40).keys()], 'every write committed, in the order asked');
    assert.equal(commits(), 3, '16 + 16 + 8');
  });

  it('on the store: a failed write rolls back alone, and a writer awaiting writes in turn lets the loop run', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock() });
    try {
      await store.create(builtin.configMap, configMap('taken'));
      const asked = ['a', 'taken', 'b'].map((name) => store.create(builtin.configMap, configMap(name)));
      const settled = await Promise.allSettled(asked);
      assert.equal(settled[0]?.status, 'fulfilled');
      assert.ok(settled[1]?.status === 'rejected' && settled[1].reason instanceof KubeAlreadyExistsError);
      assert.equal(settled[2]?.status, 'fulfilled');
      const names = (await store.list(builtin.configMap, { namespace: 'default' })).items.map((c) => c.metadata.name);
      assert.deepEqual(names.sort(), ['a', 'b', 'taken']);

      let turned = false;
      setImmediate(() => {
        turned = true;
      });
      let sawTurn = false;
      for (let i = 0; i < 3; i++) {
        await store.create(builtin.configMap, configMap(`in-turn-${String(i)}`));
        sawTurn ||= turned;
      }
      assert.ok(sawTurn, 'the event loop turned between awaited writes');
    } finally {
      await store.close();
    }
  });
});

describe('GroupCommit on the store', () => {
  it('opens one savepoint per write, not two', async () => {
    const store = openEmbeddedStore(':memory:', { clock: new ManualClock() });
    const probe = new Database(':memory:');
    const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...a: unknown[]) => unknown };
    probe.close();
    const run = proto.run;
    let savepoints = 0;
    proto.run = function (this: { source: string }, ...args: unknown[]) {
      if (this.source.startsWith('SAVEPOINT')) savepoints++;
      return run.apply(this, args);
    };
    try {
      await Promise.all(['a', 'b', 'c'].map((name) => store.create(builtin.configMap, configMap(name))));
    } finally {
      proto.run = run;
      await store.close();
    }
    assert.equal(savepoints, 3);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { KubeObject } from '../object.ts';
import { Db } from './db.ts';
import { Hub, type Change } from './watch.ts';

const dir = mkdtempSync(join(tmpdir(), 'hub-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const map = (name: string, data: string, ownerUid?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    ...(ownerUid === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: ownerUid }] }),
  },
  data: { data },
});

/** Counts the SQLite statements run while `fn` runs. */
function statementsDuring(fn: () => void): number {
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
    fn();
  } finally {
    for (const [i, m] of methods.entries()) proto[m] = saved[i] as (...a: unknown[]) => unknown;
  }
  return count;
}

/** The stored object, read and parsed as the writer does (so its text is reused as the change's old state). */
function stored(db: Db, name: string): KubeObject {
  const row = db.get('configmaps', 'default', name);
  if (row === undefined) throw new Error(`${name} is not stored`);
  return db.parse(row);
}

const dataOf = (o: KubeObject | undefined): unknown => (o as { data?: { data?: string } } | undefined)?.data?.data;

function listening(hub: Hub): Change[] {
  const seen: Change[] = [];
  hub.add({
    change: (c) => {
      seen.push(c);
    },
    gone: () => undefined,
  });
  return seen;
}

describe('the hub delivers the change log', () => {
  it("delivers this process's own commits from memory, without reading the log back", () => {
    const db = new Db(':memory:', { changeRetention: 100 });
    const hub = new Hub(db, 1_000, () => undefined);
    const seen = listening(hub);
    try {
      const first = db.write(() => db.put('configmaps', map('a', '1'), 'ADDED', undefined));
      db.write(() => db.put('configmaps', map('a', '2'), 'MODIFIED', stored(db, 'a')));
      const rv = db.currentRv();
      assert.equal(
        statementsDuring(() => {
          hub.pump(rv);
        }),
        0,
      );
      assert.deepEqual(
        seen.map((c) => [c.type, dataOf(c.object), dataOf(c.old)]),
        [
          ['ADDED', '1', undefined],
          ['MODIFIED', '2', '1'],
        ],
      );
      assert.equal(seen[1]?.old?.metadata.resourceVersion, first.metadata.resourceVersion);
    } finally {
      hub.stop();
      db.close();
    }
  });

  it('never delivers what a transaction or a savepoint rolled back, and delivers the rest in order', () => {
    const db = new Db(':memory:', { changeRetention: 100 });
    const hub = new Hub(db, 1_000, () => undefined);
    const seen = listening(hub);
    try {
      db.write(() => {
        db.put('configmaps', map('kept-1', '1'), 'ADDED', undefined);
        assert.throws(() =>
          db.write(() => {
            db.put('configmaps', map('rolled-back', '1'), 'ADDED', undefined);
            throw new Error('this write alone fails');
          }),
        );
        db.put('configmaps', map('kept-2', '1'), 'ADDED', undefined);
      });
      assert.throws(() =>
        db.write(() => {
          db.put('configmaps', map('never', '1'), 'ADDED', undefined);
          throw new Error('the whole transaction fails');
        }),
      );
      db.write(() => db.put('configmaps', map('kept-3', '1'), 'ADDED', undefined));
      hub.pump(db.currentRv());
      assert.deepEqual(
        seen.map((c) => [c.rv, c.object.metadata.name]),
        [
          [1, 'kept-1'],
          [2, 'kept-2'],
          [3, 'kept-3'],
        ],
      );
    } finally {
      hub.stop();
      db.close();
    }
  });

  it("interleaves another process's commits, read from the log, with this one's", () => {
    const path = join(dir, 'two.db');
    const here = new Db(path, { changeRetention: 100 });
    const there = new Db(path, { changeRetention: 100 });
    const hub = new Hub(here, 1_000, () => undefined);
    const seen = listening(hub);
    try {
      here.write(() => here.put('configmaps', map('here-1', '1'), 'ADDED', undefined));
      there.write(() => there.put('configmaps', map('there', '1', 'owner'), 'ADDED', undefined));
      here.write(() => here.put('configmaps', map('here-2', '1'), 'ADDED', undefined));
      here.write(() => here.put('configmaps', map('there', '2'), 'MODIFIED', stored(here, 'there')));
      hub.pump(here.currentRv());
      assert.deepEqual(
        seen.map((c) => [c.rv, c.object.metadata.name, c.refsChanged]),
        [
          [1, 'here-1', true],
          [2, 'there', true],
          [3, 'here-2', true],
          [4, 'there', true],
        ],
      );
      // A status-like write that keeps the owner references is no news to the garbage collector.
      here.write(() => here.put('configmaps', map('here-2', '2'), 'MODIFIED', stored(here, 'here-2')));
      hub.pump(here.currentRv());
      assert.equal(seen.at(-1)?.refsChanged, false);
    } finally {
      hub.stop();
      there.close();
      here.close();
    }
  });
});

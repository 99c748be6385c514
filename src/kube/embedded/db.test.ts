import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { KubeObject } from '../object.ts';
import { Db } from './db.ts';

const owned = (data: string, owners: string[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'dependent',
    namespace: 'default',
    uid: 'uid-dependent',
    ownerReferences: owners.map((uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid })),
  },
  data: { data },
});

type Method = (...a: unknown[]) => unknown;

/** The SQL of each statement run (or, with `get`, also read a row from) while `fn` runs. */
function statementsDuring(fn: () => void, methods: readonly ('run' | 'get')[] = ['run']): string[] {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<'run' | 'get', Method>;
  probe.close();
  const originals = methods.map((m) => [m, proto[m]] as const);
  const seen: string[] = [];
  for (const [m, original] of originals) {
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      seen.push(this.source);
      return original.apply(this, args);
    };
  }
  try {
    fn();
  } finally {
    for (const [m, original] of originals) proto[m] = original;
  }
  return seen;
}

const configMap = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
});

describe('the resourceVersion counter', () => {
  it('is read once when a write transaction begins and written once before it commits, not once per write', () => {
    const db = new Db(':memory:', { changeRetention: 100 });
    try {
      const seen = statementsDuring(() => {
        db.write(() => {
          for (const name of ['a', 'b', 'c', 'd'])
            db.write(() => db.put('configmaps', configMap(name), 'ADDED', undefined));
        });
      }, ['run', 'get']);
      // The counter and the compaction mark read, the counter written: three statements for four writes.
      assert.equal(seen.filter((sql) => sql.includes('meta')).length, 3, seen.join('\n'));
      assert.deepEqual(
        ['a', 'b', 'c', 'd'].map((name) => db.get('configmaps', 'default', name)?.rv),
        [1, 2, 3, 4],
      );
      assert.equal(db.currentRv(), 4);
    } finally {
      db.close();
    }
  });

  it('stays one sequence when two connections to one file write in turn', () => {
    const dir = mkdtempSync(join(tmpdir(), 'db-counter-'));
    const [one, two] = [0, 1].map(() => new Db(join(dir, 'store.db'), { changeRetention: 100 }));
    try {
      for (const [i, db] of [one, two, one, one, two].entries())
        db?.write(() => db.put('configmaps', configMap(`n${String(i)}`), 'ADDED', undefined));
      assert.deepEqual(
        [0, 1, 2, 3, 4].map((i) => one?.get('configmaps', 'default', `n${String(i)}`)?.rv),
        [1, 2, 3, 4, 5],
      );
    } finally {
      one?.close();
      two?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('owner references in the store', () => {
  it('are rewritten when they change, and left alone by a write that keeps them', () => {
    const db = new Db(':memory:', { changeRetention: 100 });
    try {
      const stored = (): KubeObject => {
        const row = db.get('configmaps', 'default', 'dependent');
        if (row === undefined) throw new Error('not stored');
        return db.parse(row);
      };
      db.write(() => db.put('configmaps', owned('1', ['a']), 'ADDED', undefined));
      assert.deepEqual(db.dependents('a'), ['uid-dependent']);
      const kept = statementsDuring(() =>
        db.write(() => db.put('configmaps', owned('2', ['a']), 'MODIFIED', stored())),
      );
      assert.equal(kept.filter((sql) => sql.includes('owner_refs')).length, 0);
      assert.deepEqual(db.dependents('a'), ['uid-dependent']);
      db.write(() => db.put('configmaps', owned('3', ['b']), 'MODIFIED', stored()));
      assert.deepEqual([db.dependents('a'), db.dependents('b')], [[], ['uid-dependent']]);
      db.write(() => db.put('configmaps', owned('4', []), 'MODIFIED', stored()));
      assert.deepEqual(db.dependents('b'), []);
    } finally {
      db.close();
    }
  });
});

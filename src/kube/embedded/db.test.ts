import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

/** The SQL each statement run while `fn` runs. */
function statementsDuring(fn: () => void): string[] {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as { run: (...a: unknown[]) => unknown };
  probe.close();
  const run = proto.run;
  const seen: string[] = [];
  proto.run = function (this: { source: string }, ...args: unknown[]) {
    seen.push(this.source);
    return run.apply(this, args);
  };
  try {
    fn();
  } finally {
    proto.run = run;
  }
  return seen;
}

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

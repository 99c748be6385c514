import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Checkpointer } from './checkpoint.ts';

/** A database in WAL mode whose own connection never checkpoints, with `rows` rows of 4 KB written to its log. */
function walDatabase(rows: number): { dir: string; path: string; db: Database.Database } {
  const dir = mkdtempSync(join(tmpdir(), 'checkpoint-'));
  const path = join(dir, 'store.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (body TEXT)');
  const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
  for (let i = 0; i < rows; i++) insert.run('x'.repeat(4096));
  return { dir, path, db };
}

describe('Checkpointer', () => {
  it('copies the log into the database file from its own thread, once enough commits have come', async () => {
    const { dir, path, db } = walDatabase(200);
    try {
      const before = statSync(path).size;
      let now = 0;
      let checkpointed = 0;
      const checkpointer = new Checkpointer({
        path,
        now: () => now,
        startAfterCommits: 3,
        onError: (error) => {
          throw error;
        },
        onCheckpointed: () => checkpointed++,
      });
      checkpointer.committed();
      checkpointer.committed();
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(checkpointed, 0, 'no thread before the third commit');
      assert.equal(statSync(path).size, before);
      checkpointer.committed();
      now += 10;
      checkpointer.committed(); // one runs, and another within the period would not start anyway
      const count = (): number => checkpointed; // changed by the worker's reply
      while (count() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(statSync(path).size >= before + 200 * 4096, 'the rows are in the database file');
      now += 10;
      checkpointer.committed();
      await checkpointer.close();
      assert.equal(checkpointed, 1, 'one checkpoint per period');
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts no thread for a store that commits a few times, so its close is immediate', () => {
    const { dir, path, db } = walDatabase(1);
    try {
      const checkpointer = new Checkpointer({ path, now: () => 0, onError: () => undefined });
      for (let i = 0; i < 10; i++) checkpointer.committed();
      assert.equal(checkpointer.close(), undefined);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

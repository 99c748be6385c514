import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { KubeGoneError } from '../errors.ts';
import { ManualClock } from '../../util/clock.ts';
import { builtin } from '../resource-type.ts';
import { openEmbeddedStore } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'store-files-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function writeASecret(path: string): Promise<void> {
  const store = openEmbeddedStore(path, { clock: new ManualClock() });
  await store.create(builtin.secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'identity-password', namespace: 'default' },
    data: { password: Buffer.from('s3cret').toString('base64') },
  });
  assert.deepEqual(
    ['', '-wal', '-shm'].map((suffix) => [suffix, modeOf(`${path}${suffix}`).toString(8)]),
    ['', '-wal', '-shm'].map((suffix) => [suffix, '600']),
    'the database, its WAL and its shared memory are the owner’s alone',
  );
  await store.close();
}

describe('embedded store files', () => {
  it('a new store is created 0600, and so are the files SQLite makes beside it', async () => {
    const previous = process.umask(0o022);
    try {
      await writeASecret(join(dir, 'new', 'store.db'));
    } finally {
      process.umask(previous);
    }
  });

  it('a store an older version left world-readable is made 0600 when opened', async () => {
    const path = join(dir, 'old.db');
    writeFileSync(path, '', { mode: 0o644 });
    writeFileSync(`${path}-wal`, '', { mode: 0o644 });
    await writeASecret(path);
  });
});

describe('the change log keeps a change for the watch window only', () => {
  it("a deleted object's data leaves the log once the window has passed; a watch from before it is Gone", async () => {
    const clock = new ManualClock();
    const path = join(dir, 'window.db');
    const store = openEmbeddedStore(path, { clock, watchWindowMs: 60_000 });
    const created = await store.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'gone-identity', namespace: 'default' },
      data: { password: Buffer.from('long-deleted-password').toString('base64') },
    });
    await store.delete(builtin.secret, 'default', 'gone-identity');
    const before = Number(created.metadata.resourceVersion) - 1;
    const changesNamed = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(`SELECT COUNT(*) AS n FROM changes WHERE name = 'gone-identity'`).get() as { n: number };
      } finally {
        db.close();
      }
    };

    clock.advance(59_000);
    const kept = store.expireChanges();
    assert.ok(kept < before + 1, 'within the window, the changes stay');
    assert.equal(changesNamed().n, 2);
    const resumed = store.watch(builtin.secret, { namespace: 'default', resourceVersion: String(before) });
    const first = await resumed[Symbol.asyncIterator]().next();
    assert.equal((first.value as { type: string }).type, 'ADDED', 'a watch within the window resumes');
    await resumed[Symbol.asyncIterator]().return?.();

    clock.advance(2_000);
    assert.ok(store.expireChanges() > before, 'past the window, the log is compacted past them');
    assert.equal(changesNamed().n, 0, "the deleted object's data is no longer in the log");
    const stale = store.watch(builtin.secret, { namespace: 'default', resourceVersion: String(before) });
    await assert.rejects(stale[Symbol.asyncIterator]().next(), KubeGoneError, 'a watch from before is Gone (410)');
    const fresh = await store.list(builtin.secret, { namespace: 'default' });
    assert.deepEqual(fresh.items, [], 'a relist sees the world as it is');
    await store.close();
  });
});

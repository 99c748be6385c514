import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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

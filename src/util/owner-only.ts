/**
 * SQLite files that hold secrets (the embedded store, the built-in cloud's state) are the owner's alone. SQLite
 * creates its -wal and -shm with the database file's mode, so making the database file 0600 before SQLite opens
 * it covers all three; files an older version left world-readable are narrowed too.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

export function ownerOnlySqlite(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

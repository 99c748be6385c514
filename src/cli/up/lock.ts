/**
 * One `openregion up` per directory. The lock is an exclusive SQLite lock on DIR/up.lock, held for the life of the
 * process: the kernel drops it when the process ends however it ends (kill -9 included), so there is never a stale
 * lock to clean up and no pid-reuse guesswork. The holder writes its pid to DIR/up.pid, for the message a second
 * `up` gives.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export class DirectoryLockedError extends Error {
  readonly holderPid: number | undefined;
  constructor(dir: string, holderPid: number | undefined) {
    const holder = holderPid === undefined ? 'another process' : `process ${String(holderPid)}`;
    super(
      `${dir} is in use by another openregion up (${holder}); stop that one first (Ctrl-C in its terminal${
        holderPid === undefined ? '' : `, or kill ${String(holderPid)}`
      }), or give this one another --dir`,
    );
    this.name = 'DirectoryLockedError';
    this.holderPid = holderPid;
  }
}

interface DirectoryLock {
  release(): void;
}

/** Takes the directory's lock, or throws DirectoryLockedError naming the holder. `dir` must exist. */
export function lockDirectory(dir: string, pid: number = process.pid): DirectoryLock {
  const pidFile = join(dir, 'up.pid');
  const db = new Database(join(dir, 'up.lock'), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write in EXCLUSIVE locking mode takes the lock and keeps it until the connection closes.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (at INTEGER); COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    throw new DirectoryLockedError(dir, readPid(pidFile));
  }
  writeFileSync(pidFile, `${String(pid)}\n`);
  return {
    release: () => {
      rmSync(pidFile, { force: true });
      db.close();
    },
  };
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

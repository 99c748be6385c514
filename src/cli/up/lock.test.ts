import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DirectoryLockedError, lockDirectory } from './lock.ts';

describe('the up directory lock', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-lock-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second holder is refused with the first one pid; released, it can be taken again', () => {
    const first = lockDirectory(dir, 4242);
    assert.throws(
      () => lockDirectory(dir),
      (error: unknown) => {
        assert.ok(error instanceof DirectoryLockedError);
        assert.equal(error.holderPid, 4242);
        assert.match(error.message, /in use by another openregion up \(process 4242\)/);
        return true;
      },
    );
    first.release();
    lockDirectory(dir).release();
  });

  it('a holder killed with SIGKILL leaves no stale lock behind', async () => {
    const script = `
      const { lockDirectory } = await import(${JSON.stringify(new URL('./lock.ts', import.meta.url).href)});
      lockDirectory(${JSON.stringify(dir)});
      process.stdout.write('held\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.once('data', () => {
        resolve();
      });
      child.once('exit', (code) => {
        reject(new Error(`the holder exited early (${String(code)})`));
      });
    });
    assert.throws(() => lockDirectory(dir), DirectoryLockedError);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    lockDirectory(dir).release();
  });
});

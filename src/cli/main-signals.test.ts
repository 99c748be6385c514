/**
 * The installed command (bin/openregion.js) and signals: SIGTERM stops it cleanly with the command's own exit code,
 * and, under npm (npx), whose `sh -c` dies on the SIGTERM npm forwards without passing it on, node does not
 * outlive that shell as an orphan.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMAND = 'bin/openregion.js emulator --port 0';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, test: () => boolean, limitMs = 60_000): Promise<void> {
  const deadline = performance.now() + limitMs;
  while (!test()) {
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Resolves once the emulator has said where it listens. */
async function started(child: ChildProcess): Promise<void> {
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await until('the emulator to start', () => out.includes('openregion emulator: http://'));
}

/** The processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

const { npm_command: _command, npm_lifecycle_event: _event, ...plainEnv } = process.env;

describe('bin/openregion.js and signals', { timeout: 120_000 }, () => {
  it("SIGTERM stops it, with the command's exit code and nothing left running", async () => {
    const child = spawn(process.execPath, COMMAND.split(' '), {
      cwd: ROOT,
      env: plainEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await started(child);
      const pid = child.pid ?? 0;
      const spawned = childrenOf(pid); // tsx's esbuild service, when run from source
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
      assert.equal(signal, null, 'it handled SIGTERM rather than being killed by it');
      assert.equal(code, 0);
      await until('its own children to go', () => spawned.every((p) => !alive(p)));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it("under npm, SIGTERM to npm's shell does not leave node running as an orphan", async () => {
    // What `npx openregion …` runs: npm spawns `sh -c '<bin> …'` with npm_command set, and forwards SIGTERM to it.
    const shell = spawn('sh', ['-c', `'${process.execPath}' ${COMMAND}`], {
      cwd: ROOT,
      env: { ...plainEnv, npm_command: 'exec' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let node: number | undefined;
    try {
      await started(shell);
      const children = childrenOf(shell.pid ?? 0);
      // dash may exec its last command, making node the shell itself; the shell here never does for this form.
      node = children[0] ?? shell.pid;
      assert.ok(node !== undefined);
      const exited = once(shell, 'exit');
      shell.kill('SIGTERM');
      await exited;
      const orphan = node;
      await until('node to stop once its shell is gone', () => !alive(orphan), 30_000);
    } finally {
      if (node !== undefined && alive(node)) process.kill(node, 'SIGKILL');
      shell.kill('SIGKILL');
    }
  });
});

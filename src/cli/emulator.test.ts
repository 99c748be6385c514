/**
 * `openregion emulator --demo` serves the cloud `up` makes, so the region commands run against the standalone
 * emulator as the README shows: `region configure` (which needs the `manager` role) and `region register` (which
 * lists flavors and external networks) against a process started with the flag.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

describe('openregion emulator --demo', { timeout: 180_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-emulator-demo-'));
  const cloudsYaml = join(dir, 'clouds.yaml');
  const emulator = spawn(process.execPath, [...CLI, 'emulator', '--demo', '--port', '0', '--clouds-yaml', cloudsYaml], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(emulator, 'exit');

  before(async () => {
    let out = '';
    emulator.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    while (!out.includes('openregion emulator: http://')) {
      if (emulator.exitCode !== null) throw new Error(`the emulator exited ${String(emulator.exitCode)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => {
    emulator.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const openregion = (...args: string[]) =>
    spawnSync(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, OS_CLIENT_CONFIG_FILE: cloudsYaml, OS_CLOUD: 'emulator' },
    });

  it('region configure, then region register, run against it', () => {
    const providerEnv = join(dir, 'demo.env');
    const configured = openregion('region', 'configure', '--prefix', 'demo', '--provider-env', providerEnv);
    assert.equal(configured.status, 0, configured.stderr);
    assert.match(readFileSync(providerEnv, 'utf8'), /demo-region/);

    const registered = openregion(
      'region',
      'register',
      '--name',
      'demo',
      '--provider-env',
      providerEnv,
      '--create-secret',
      '--store',
      join(dir, 'store.db'),
    );
    assert.equal(registered.status, 0, registered.stderr);
    // What the region exports, as register prints it: the demo flavors and the external network.
    assert.match(registered.stdout, /demo\.small/);
    assert.match(registered.stdout, /public/);
  });
});

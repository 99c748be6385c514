/**
 * The first Keystone order of `npm start`, driven through `openregion up`'s real interfaces as a newcomer would
 * drive it: `up` runs as its own process, and each step is the `openregion` command the banner prints, run as a
 * process — `apply -f -` reading the order from standard input, `wait` for Ready within 30 s, `get` of the
 * delivered Secret, `delete`. The delivered clouds.yaml must authenticate against the built-in cloud, and after
 * the delete the Keystone user must be gone from it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { loadCloudConfig } from '../../src/openstack/config.ts';
import { findUserByName } from '../../src/openstack/identity.ts';
import { Session } from '../../src/openstack/session.ts';
import { Transport } from '../../src/openstack/transport.ts';
import { systemClock } from '../../src/util/clock.ts';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const USER = 'workflow-e2e';
const ORDER = `apiVersion: c5c3.io/v1alpha1
kind: KeystoneUser
metadata: {name: ${USER}, namespace: default}
spec: {controlPlaneRef: {name: demo}}
`;

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

/** `openregion <args>` as a process, with `stdin` as its standard input. */
async function openregion(args: readonly string[], stdin = ''): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(stdin);
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, out, err };
}

/** A session for a clouds.yaml's cloud, as any OpenStack tool would read the file. */
function sessionFor(cloudsYaml: string, cloud: string, transport: Transport) {
  const config = loadCloudConfig(
    {
      env: { OS_CLIENT_CONFIG_FILE: 'clouds.yaml' },
      cwd: '/nonexistent',
      home: '/nonexistent',
      readFile: (p) => (p === 'clouds.yaml' ? cloudsYaml : undefined),
    },
    cloud,
  );
  return new Session({ ...config, transport, clock: systemClock });
}

describe('npm start: the first Keystone order through the openregion commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-up-keystone-'));
  const store = ['--store', join(dir, 'store.db')];
  const transport = new Transport({ clock: systemClock, random: Math.random });
  let up: ChildProcess;
  let banner = '';

  before(async () => {
    up = spawn(process.execPath, ['--import', 'tsx', MAIN, 'up', '--dir', dir, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    up.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      up.stdout?.on('data', (chunk: Buffer) => {
        banner += chunk.toString();
        if (banner.includes('and use the region service:')) resolve();
      });
      up.once('exit', (code) => {
        reject(new Error(`openregion up exited (${String(code)}) before it was up: ${stderr}`));
      });
    });
  });

  after(async () => {
    if (up.exitCode === null) {
      up.kill('SIGTERM');
      await once(up, 'exit');
    }
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const adminIdentity = () =>
    sessionFor(readFileSync(join(dir, 'clouds.yaml'), 'utf8'), 'emulator', transport).client('identity');
  let cloudsYaml = '';

  it('the banner shows the order as the first example', () => {
    assert.match(banner, /order a Keystone service account from the demo ControlPlane/);
    assert.match(banner, /apply -f - --store .*<<'EOF'\n\s+apiVersion: c5c3\.io\/v1alpha1\n\s+kind: KeystoneUser/);
  });

  it('apply -f - takes the order from standard input, and it is Ready within 30 s', async () => {
    const applied = await openregion(['apply', '-f', '-', ...store], ORDER);
    assert.equal(applied.code, 0, applied.err);
    assert.equal(applied.out, `keystoneuser.c5c3.io/${USER} created\n`);
    const ready = await openregion([
      'wait',
      'keystoneuser',
      USER,
      '--for',
      'condition=Ready',
      '--timeout',
      '30s',
      ...store,
    ]);
    assert.equal(ready.code, 0, `${ready.out}${ready.err}`);
    assert.match(ready.out, /condition met\n$/);
  });

  it('the delivered clouds.yaml authenticates against the built-in cloud', async () => {
    const got = await openregion(['get', 'secret', `${USER}-credentials`, '-o', 'json', ...store]);
    assert.equal(got.code, 0, got.err);
    const data = (JSON.parse(got.out) as { data: Record<string, string> }).data;
    cloudsYaml = Buffer.from(data['clouds.yaml'] ?? '', 'base64').toString('utf8');
    const cloud = Object.keys((parse(cloudsYaml) as { clouds: Record<string, unknown> }).clouds)[0] ?? '';
    const token = await sessionFor(cloudsYaml, cloud, transport).token();
    assert.equal(token.user.name, USER);
    assert.ok(await findUserByName(adminIdentity(), 'default', USER), 'the Keystone user exists');
  });

  it('delete removes the order and the Keystone user', async () => {
    const deleted = await openregion(['delete', 'keystoneuser', USER, ...store]);
    assert.equal(deleted.code, 0, deleted.err);
    const gone = await openregion(['wait', 'keystoneuser', USER, '--for', 'delete', '--timeout', '60s', ...store]);
    assert.equal(gone.code, 0, `${gone.out}${gone.err}`);
    assert.equal(await findUserByName(adminIdentity(), 'default', USER), undefined);
    const cloud = Object.keys((parse(cloudsYaml) as { clouds: Record<string, unknown> }).clouds)[0] ?? '';
    await assert.rejects(sessionFor(cloudsYaml, cloud, transport).token(), /401/);
  });
});

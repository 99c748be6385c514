/**
 * The real kube-apiserver 1.20 + etcd the integration suites run against (scripts/kube-apiserver.sh). One place
 * decides what happens without the binary: a loud skip on a developer's machine; under CI it is built (about 13
 * minutes, cached for the machine), and a failed build is a failing test, never a silent pass.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const apiserverScript = fileURLToPath(new URL('../../scripts/kube-apiserver.sh', import.meta.url));
const inCI = process.env.CI === 'true';
const howTo = `build it once (about 13 minutes, cached afterwards): ${apiserverScript} build`;

export interface RealApiServer {
  /** The kubeconfig file's path; the first call starts the server, or finds one already running. */
  kubeconfigPath(): Promise<string>;
  /** The kubeconfig's text. */
  kubeconfig(): Promise<string>;
}

const succeeds = (args: string[]): Promise<boolean> =>
  run(apiserverScript, args).then(
    () => true,
    () => false,
  );

async function buildForCI(): Promise<string | undefined> {
  process.stderr.write(`kube-apiserver is not built on this machine: building it now (${apiserverScript} build)\n`);
  const build = spawn(apiserverScript, ['build'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const [code] = (await once(build, 'exit')) as [number | null];
  return code === 0 ? undefined : `${apiserverScript} build exited with ${String(code)}`;
}

/**
 * Registers `suite` against the real server when the binary is there (building it under CI), or the loud skip /
 * the CI failure when it is not. A server this file started is stopped after it; one already running (another
 * suite's, a developer's) is left running.
 */
export async function withRealApiServer(file: string, suite: (server: RealApiServer) => void): Promise<void> {
  let built = await succeeds(['binary']);
  const buildFailure = !built && inCI ? await buildForCI() : undefined;
  built ||= inCI && buildFailure === undefined;
  if (!built && inCI) {
    void it(`kube-apiserver is built (CI runs ${file} against it)`, () => {
      assert.fail(`CI=true and the kube-apiserver build failed (${String(buildFailure)}); ${howTo}`);
    });
    return;
  }
  if (!built) {
    process.stderr.write(
      `\n*** SKIPPING ${file}: kube-apiserver is not built on this machine.\n*** To run it, ${howTo}\n\n`,
    );
    void it(`${file} against a real kube-apiserver`, { skip: `kube-apiserver is not built; ${howTo}` });
    return;
  }
  let started: Promise<{ path: string; ours: boolean }> | undefined;
  const start = () =>
    (started ??= (async () => {
      const ours = !(await succeeds(['status']));
      const { stdout } = await run(apiserverScript, ['start'], { timeout: 180_000 });
      return { path: stdout.trim(), ours };
    })());
  after(async () => {
    if (started !== undefined && (await started).ours) await run(apiserverScript, ['stop'], { timeout: 120_000 });
  });
  suite({
    kubeconfigPath: async () => (await start()).path,
    kubeconfig: async () => readFile((await start()).path, 'utf8'),
  });
}

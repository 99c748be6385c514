/**
 * Private kube-apiservers for the Keystone suites: the binary scripts/kube-apiserver.sh builds, started on free
 * ports with a state directory of their own, so a suite can install, replace and delete the real K-ORC and ESO CRDs
 * (cluster-wide objects) without disturbing the shared server other suites use, and can stand up a second server as
 * a registered target cluster. Each is stopped, and its state removed, by the suite that started it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { apiserverScript } from './real-apiserver.ts';

const run = promisify(execFile);

export interface PrivateApiServer {
  readonly name: string;
  /** The kubeconfig's text (server on 127.0.0.1, a token of group system:masters). */
  readonly kubeconfig: string;
  /** Its audit log: every request about Secrets, at Metadata level (scripts/kube-apiserver.sh). */
  readonly auditLog: string;
  stop(): Promise<void>;
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, '127.0.0.1', () => {
      server.close(() => {
        resolve(true);
      });
    });
  });

/** A port that is free, with the one 10 above it free too (etcd's peer port is its client port + 10). */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 30_000 + Math.floor(Math.random() * 20_000);
    if ((await portFree(port)) && (await portFree(port + 10))) return port;
  }
  throw new Error('no free port pair found');
}

/** Starts kube-apiserver and etcd under a fresh state directory; the binary must be built. */
export async function startPrivateApiServer(name: string): Promise<PrivateApiServer> {
  const state = mkdtempSync(join(tmpdir(), `openregion-${name}-`));
  const env = {
    ...process.env,
    OPENREGION_KUBE_STATE: state,
    OPENREGION_KUBE_PORT: String(await freePortPair()),
    OPENREGION_ETCD_PORT: String(await freePortPair()),
  };
  const stop = async () => {
    await run('bash', [apiserverScript, 'stop'], { env, timeout: 120_000 }).catch(() => undefined);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    const { stdout } = await run('bash', [apiserverScript, 'start'], { env, timeout: 300_000 });
    return { name, kubeconfig: readFileSync(stdout.trim(), 'utf8'), auditLog: join(state, 'audit.log'), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

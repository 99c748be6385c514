/**
 * A measurement, not a test (run by hand; figures in docs/deploying.md §Running the Keystone operator and
 * bench/README.md): the resident memory, time to a live probe port and time to Ready of `serve
 * --controllers=keystone` on a private kube-apiserver holding N Secrets the operator has nothing to do with,
 * cluster-wide (deploy/overlays/keystone-operator-cluster-wide: no --watch-namespaces) and namespaced as the shipped
 * overlay runs it (its watches confined to the ControlPlane's namespace). Run under the shared lock:
 *   flock /tmp/openregion-realsvc.lock node --import tsx test/kube/measure-serve-secrets.ts [N]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledActuatorCrds, c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import { keystoneCrds, keystoneUserType } from '../../src/keystone/apis/index.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { freePort } from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import { startPrivateApiServer } from './keystone-clusters.ts';

const N = Number(process.argv[2] ?? 10_000);
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const server = await startPrivateApiServer('measure-serve-secrets');
const client = kubeClientFrom({ kubeconfig: server.kubeconfig });
const dir = mkdtempSync(join(tmpdir(), 'openregion-measure-'));
try {
  for (const crd of [...keystoneCrds(), ...c5c3StandInCrds(), ...bundledActuatorCrds()]) {
    await client.create(builtin.customResourceDefinition, crd);
  }
  await eventually('KeystoneUsers served', () => client.list(keystoneUserType), 30_000);
  for (const name of ['openstack', 'noise', 'openregion-system']) {
    await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  // N unrelated Secrets of about 1 KiB each, as a cluster's tenants hold.
  const payload = Buffer.alloc(768, 'x').toString('base64');
  for (let i = 0; i < N; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, N - i) }, (_, j) =>
        client.create(builtin.secret, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: `unrelated-${String(i + j)}`, namespace: 'noise' },
          data: { value: payload },
        }),
      ),
    );
  }
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, server.kubeconfig, { mode: 0o600 });
  for (const [label, extra] of [
    ['cluster-wide (no --watch-namespaces)', []],
    ['namespaced, as the shipped overlay (--watch-namespaces=openstack)', ['--watch-namespaces=openstack']],
  ] as const) {
    const port = await freePort();
    const started = Date.now();
    const serve = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        main,
        'serve',
        `--kubeconfig=${kubeconfig}`,
        '--controllers=keystone',
        '--namespace=openregion-system',
        '--clusters-namespace=openregion-system',
        `--health=127.0.0.1:${String(port)}`,
        ...extra,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    await eventually(
      'the probe port answers',
      async () =>
        (await fetch(`http://127.0.0.1:${String(port)}/healthz`).catch(() => undefined))?.ok ? true : undefined,
      300_000,
    );
    const live = Date.now() - started;
    await eventually(
      'serve Ready',
      async () =>
        (await fetch(`http://127.0.0.1:${String(port)}/readyz`).catch(() => undefined))?.ok ? true : undefined,
      300_000,
    );
    const ready = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    const status = readFileSync(`/proc/${String(serve.pid)}/status`, 'utf8');
    const rss = (key: string) => Number(/(\d+) kB/.exec(status.split('\n').find((l) => l.startsWith(key)) ?? '')?.[1]);
    process.stdout.write(
      `${label}: ${String(N)} unrelated Secrets; /healthz after ${String(live)} ms, Ready after ${String(ready)} ms; ` +
        `VmRSS ${String(Math.round(rss('VmRSS:') / 1024))} MiB, VmHWM ${String(Math.round(rss('VmHWM:') / 1024))} MiB\n`,
    );
    serve.kill('SIGTERM');
    await once(serve, 'exit');
  }
} finally {
  client.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

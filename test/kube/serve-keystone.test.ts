/**
 * `openregion serve --controllers keystone` as an operator runs it: the management cluster is a kube-apiserver 1.20
 * + etcd of this suite's own with the real K-ORC and ESO CRDs and no region CRD, reached through $KUBECONFIG (two files merged) and
 * `--context`, with only a token minted for the keystone-operator overlay's ServiceAccount; the shared kube-apiserver
 * is a target cluster, registered by a kubeconfig Secret carrying a token for deploy/target-cluster's identity. An order placed on the target is reconciled there; a changed Secret
 * re-engages the cluster, a deleted one lets it go. Skipped loudly without the binary or kubectl; a failure under CI.
 */
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import { grantNamespaces } from '../../src/cli/target-cluster.ts';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { installCrds, realCrds } from '../../src/keystone/actuators/testing/real-crds.ts';
import { keystoneCrds, keystoneUserType } from '../../src/keystone/apis/index.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { KUBECONFIG_SECRET_LABEL } from '../../src/runtime/multicluster.ts';
import {
  deleteCrds,
  freePort,
  ensureCrds,
  kubectl,
  kubectlPresent,
  mintToken,
  render,
  tokenKubeconfig,
  type Rendered,
} from './deploy-fixture.ts';
import { eventually } from './fixtures.ts';
import { startPrivateApiServer, type PrivateApiServer } from './keystone-clusters.ts';
import { withRealApiServer } from './real-apiserver.ts';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const inCI = process.env.CI === 'true';
const suffix = `s${String(process.pid)}`;
const CLUSTER = 'tgt';

interface Condition {
  type: string;
  reason: string;
  message: string;
}
type Order = KubeObject & { status?: { conditions?: Condition[] } };

const renamed = (kubeconfig: string, name: string): string => {
  const doc = parse(kubeconfig) as {
    clusters: { name: string }[];
    users: { name: string }[];
    contexts: { name: string; context: { cluster: string; user: string } }[];
  };
  return stringify({
    ...doc,
    'current-context': name,
    clusters: doc.clusters.map((c) => ({ ...c, name })),
    users: doc.users.map((u) => ({ ...u, name })),
    contexts: doc.contexts.map((c) => ({ ...c, name, context: { ...c.context, cluster: name, user: name } })),
  });
};

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) {
    void it('kubectl is installed (CI renders deploy/ with kubectl kustomize)', () => {
      assert.fail('CI=true and kubectl is not on the PATH');
    });
  } else {
    process.stderr.write('\n*** SKIPPING test/kube/serve-keystone.test.ts: kubectl is not on the PATH.\n\n');
    void it('serve --controllers keystone', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/serve-keystone.test.ts', (apiserver) => {
    describe('serve --controllers keystone with a registered target cluster, on kube-apiserver 1.20', () => {
      const dir = mkdtempSync(join(tmpdir(), 'openregion-serve-keystone-'));
      // The management cluster is a private kube-apiserver of this suite's (keystone-clusters.ts), holding the real
      // K-ORC and ESO CRDs the operator watches and no region CRD, so the operator, which watches orders in every
      // namespace there, never meets another suite's orders; the shared server is the target cluster, registered for
      // one namespace of this run's.
      let managementServer: PrivateApiServer | undefined;
      const operatorNamespace = 'openregion-system';
      const clustersNamespace = 'c5c3-clusters';
      const ordersNamespace = `orders-${suffix}`;
      let management: KubernetesClient;
      let target: KubernetesClient;
      let targetAdminPath = '';
      let targetSide: Rendered | undefined;
      let createdCrds: string[] = [];
      let serve: ChildProcess | undefined;
      let output = '';
      let health = '';
      let targetKubeconfig = '';

      const registration = (kubeconfig: string, annotations: Record<string, string> = {}) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: CLUSTER,
          namespace: clustersNamespace,
          labels: { [KUBECONFIG_SECRET_LABEL]: 'true' },
          annotations,
        },
        stringData: { kubeconfig, namespaces: ordersNamespace },
      });
      const order = (name: string) => ({
        apiVersion: `${keystoneUserType.group}/${keystoneUserType.version}`,
        kind: 'KeystoneUser',
        metadata: { name, namespace: ordersNamespace },
        spec: { controlPlaneRef: { name: 'cp', namespace: 'control' } },
      });
      /** The order's condition once this process has reconciled it on the target cluster. */
      const reconciledOnTarget = (name: string) =>
        eventually(
          `order ${name} reconciled on the target cluster`,
          async () => {
            const seen = await target.get<Order>(keystoneUserType, ordersNamespace, name);
            return seen.status?.conditions?.find((c) => c.reason === 'NamespaceNotAssigned');
          },
          60_000,
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}; serve's output: ${output.slice(-4_000) || '(none)'}`);
        });
      const count = (pattern: RegExp) => output.split('\n').filter((line) => pattern.test(line)).length;

      before(async () => {
        // The target: the shared server, with the Keystone CRDs, the target-cluster identity and the orders' namespace.
        const targetAdmin = await apiserver.kubeconfig();
        targetAdminPath = join(dir, 'target-admin');
        writeFileSync(targetAdminPath, targetAdmin, { mode: 0o600 });
        target = kubeClientFrom({ kubeconfig: targetAdmin });
        createdCrds = await ensureCrds(target, [...keystoneCrds(), ...c5c3StandInCrds()]);
        await eventually('the target serves KeystoneUsers', () => target.list(keystoneUserType), 30_000);
        await target.create(builtin.namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ordersNamespace },
        });
        targetSide = await render('target-cluster', `serve-target-${suffix}`, suffix);
        await kubectl(targetAdminPath, ['apply', '--server-side', '-f', '-'], targetSide.yaml);
        // The rights in the orders' namespace, as `openregion target-cluster grant` gives them.
        await grantNamespaces(target, [ordersNamespace], {
          namespace: targetSide.namespace,
          name: targetSide.name('openregion-keystone-operator'),
        });
        const targetToken = await mintToken(
          targetAdmin,
          targetSide.namespace,
          targetSide.name('openregion-keystone-operator'),
        );
        targetKubeconfig = tokenKubeconfig(targetAdmin, targetToken, ordersNamespace);

        // The management cluster: no region CRD at all, the Keystone CRDs, the overlay, the registration.
        managementServer = await startPrivateApiServer(`serve-keystone-${suffix}`);
        const managementAdmin = managementServer.kubeconfig;
        const managementPath = join(dir, 'management-admin');
        writeFileSync(managementPath, managementAdmin, { mode: 0o600 });
        management = kubeClientFrom({ kubeconfig: managementAdmin });
        await installCrds(management, realCrds({ eso: 'v2.9' }));
        await eventually('management serves KeystoneUsers', () => management.list(keystoneUserType), 30_000);
        const operator = await render('overlays/keystone-operator-cluster-wide', operatorNamespace, suffix);
        await kubectl(managementPath, ['apply', '--server-side', '-f', '-'], operator.yaml);
        const token = await mintToken(managementAdmin, operatorNamespace, operator.name('openregion'));
        // $KUBECONFIG lists two files: the admin's (its current-context) and the operator's; --context picks the latter.
        writeFileSync(join(dir, 'a'), renamed(managementAdmin, 'admin'), { mode: 0o600 });
        writeFileSync(join(dir, 'b'), renamed(tokenKubeconfig(managementAdmin, token, operatorNamespace), 'operator'), {
          mode: 0o600,
        });
        await management.create(builtin.namespace, {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: clustersNamespace },
        });
        await management.create(builtin.secret, registration(targetKubeconfig));

        const port = await freePort();
        health = `http://127.0.0.1:${String(port)}`;
        serve = spawn(
          process.execPath,
          [
            '--import',
            'tsx',
            main,
            'serve',
            '--context=operator',
            '--controllers=keystone',
            '--leader-election',
            `--namespace=${operatorNamespace}`,
            `--clusters-namespace=${clustersNamespace}`,
            `--health=127.0.0.1:${String(port)}`,
          ],
          {
            env: { ...process.env, KUBECONFIG: `${join(dir, 'a')}:${join(dir, 'b')}` },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        serve.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        serve.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      });

      after(async () => {
        if (serve?.exitCode === null) serve.kill('SIGKILL');
        for (const name of ['first', 'second'])
          await target.delete(keystoneUserType, ordersNamespace, name).catch(() => undefined);
        if (targetSide !== undefined) {
          await grantNamespaces(target, [], {
            namespace: targetSide.namespace,
            name: targetSide.name('openregion-keystone-operator'),
          }).catch(() => undefined);
          const rest = targetSide.objects.filter((o) => o.kind !== 'Namespace');
          const yaml = rest.map((o) => `---\n${JSON.stringify(o)}\n`).join('');
          await kubectl(targetAdminPath, ['delete', '--ignore-not-found', '--wait=false', '-f', '-'], yaml).catch(
            () => '',
          );
        }
        await deleteCrds(target, createdCrds);
        target.close();
        management.close();
        await managementServer?.stop();
        rmSync(dir, { recursive: true, force: true });
      });

      it('starts with the operator token --context picks from $KUBECONFIG, on a cluster without the region CRDs', async () => {
        // Ready can answer before the start-up line reaches this process's pipe: wait for both.
        await eventually(
          '/readyz and the start-up line',
          async () =>
            (await fetch(`${health}/readyz`).catch(() => undefined))?.status === 200 &&
            output.includes('openregion serve started')
              ? true
              : undefined,
          90_000,
        ).catch((error: unknown) => {
          throw new Error(`${String(error)}; serve's output: ${output.slice(-4_000) || '(none)'}`);
        });
        assert.match(output, /"controllers":\["keystone users"\]/);
      });

      it('engages the registered target cluster and reconciles an order placed there', async () => {
        await target.create(keystoneUserType, order('first'));
        const condition = await reconciledOnTarget('first');
        assert.match(condition.message, new RegExp(`on target cluster "${CLUSTER}"`));
        assert.equal(count(/"msg":"cluster engaged"/), 1);
      });

      it('a changed registration Secret re-engages the cluster, whose watches then see new orders', async () => {
        await management.apply(builtin.secret, registration(targetKubeconfig, { 'openregion.test/touched': '1' }), {
          fieldManager: 'openregion-serve-keystone-test',
          force: true,
        });
        await eventually('a second engagement', () =>
          Promise.resolve(count(/"msg":"cluster engaged"/) >= 2 ? true : undefined),
        );
        await target.create(keystoneUserType, order('second'));
        await reconciledOnTarget('second');
      });

      it('a deleted registration Secret disengages the cluster; SIGTERM stops cleanly, refused nothing', async () => {
        await management.delete(builtin.secret, clustersNamespace, CLUSTER);
        await eventually('disengaged', () =>
          Promise.resolve(/"msg":"cluster disengaged"/.test(output) ? true : undefined),
        );
        const process = serve;
        assert.ok(process !== undefined);
        const exited = once(process, 'exit');
        process.kill('SIGTERM');
        const [code] = (await exited) as [number | null];
        assert.equal(code, 0, output);
        assert.doesNotMatch(output, /forbidden/i);
      });
    });
  });
}

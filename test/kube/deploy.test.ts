/**
 * deploy/ on kube-apiserver 1.20, as an operator installs it: each overlay rendered with `kubectl kustomize` and
 * applied with `kubectl apply --server-side` (twice: the second changes nothing), then a token minted for its
 * ServiceAccount shows the generated RBAC grants what the part does and refuses what it does not need. Skipped
 * loudly without the kube-apiserver binary or kubectl, and failing under CI.
 */
import { c5c3StandInCrds } from '../../src/keystone/actuators/crds.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { controlPlaneType, keystoneCrds, keystoneUserType, korcUserType } from '../../src/keystone/apis/index.ts';
import { customResourceDefinition } from '../../src/kube/crd.ts';
import { KubeForbiddenError, KubeNotFoundError } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { KubeObject } from '../../src/kube/object.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { networkType, regionKinds, regionType } from '../../src/region/apis/index.ts';
import { withSpec, validSamples } from '../../src/region/apis/testing/samples.ts';
import { eventually } from './fixtures.ts';
import {
  deleteCrds,
  ensureCrds,
  kubectl,
  kubectlPresent,
  mintToken,
  render,
  tokenKubeconfig,
  type Rendered,
} from './deploy-fixture.ts';
import { withRealApiServer } from './real-apiserver.ts';
import { grantNamespaces } from '../../src/cli/target-cluster.ts';

const suffix = `t${String(process.pid)}`;
const inCI = process.env.CI === 'true';

const forbidden = (error: unknown) => error instanceof KubeForbiddenError;

const hasKubectl = await kubectlPresent();
if (!hasKubectl) {
  if (inCI) {
    void it('kubectl is installed (CI renders deploy/ with kubectl kustomize)', () => {
      assert.fail('CI=true and kubectl is not on the PATH');
    });
  } else {
    process.stderr.write('\n*** SKIPPING test/kube/deploy.test.ts: kubectl is not on the PATH.\n\n');
    void it('deploy/ on kube-apiserver', { skip: 'kubectl is not on the PATH' });
  }
} else {
  await withRealApiServer('test/kube/deploy.test.ts', (apiserver) => {
    describe('deploy/ on kube-apiserver 1.20', () => {
      let admin: KubernetesClient;
      let adminKubeconfig = '';
      let adminPath = '';
      const applied: Rendered[] = [];
      let createdCrds: string[] = [];
      const clients: KubernetesClient[] = [];
      const dir = mkdtempSync(join(tmpdir(), 'openregion-deploy-'));

      /** Renders deploy/<path> into a namespace of this run's, applies it server-side twice, returns it. */
      const install = async (path: string, namespace: string): Promise<Rendered> => {
        const rendered = await render(path, namespace, suffix);
        applied.push(rendered);
        const args = ['apply', '--server-side', '--field-manager=openregion-deploy-test', '-f', '-'];
        await kubectl(adminPath, args, rendered.yaml);
        const again = await kubectl(adminPath, args, rendered.yaml);
        assert.doesNotMatch(again, /configured|created/, `a second apply of ${path} changes nothing:\n${again}`);
        return rendered;
      };

      /** A client holding only a token minted for the rendering's ServiceAccount `base`. */
      const asServiceAccount = async (rendered: Rendered, base: string): Promise<KubernetesClient> => {
        const token = await mintToken(adminKubeconfig, rendered.namespace, rendered.name(base));
        const client = kubeClientFrom({ kubeconfig: tokenKubeconfig(adminKubeconfig, token, rendered.namespace) });
        clients.push(client);
        return client;
      };

      before(async () => {
        adminPath = join(dir, 'kubeconfig');
        adminKubeconfig = await apiserver.kubeconfig();
        writeFileSync(adminPath, adminKubeconfig, { mode: 0o600 });
        admin = kubeClientFrom({ kubeconfig: adminKubeconfig });
        createdCrds = await ensureCrds(admin, [
          ...regionKinds.map(customResourceDefinition),
          ...keystoneCrds(),
          ...c5c3StandInCrds(),
        ]);
        // Not K-ORC's nor ESO's: RBAC is decided before a kind is looked up, so a refusal shows without them.
        await eventually(
          'the CRDs served',
          () => admin.list(networkType).then(() => admin.list(keystoneUserType)),
          30_000,
        );
      });

      after(async () => {
        for (const client of clients) client.close();
        // Everything but the namespaces (1.20 here runs no namespace controller to finish deleting them).
        for (const rendered of applied) {
          const rest = rendered.objects.filter((o) => o.kind !== 'Namespace');
          const yaml = rest.map((o) => `---\n${JSON.stringify(o)}\n`).join('');
          await kubectl(adminPath, ['delete', '--ignore-not-found', '--wait=false', '-f', '-'], yaml).catch(() => '');
        }
        await deleteCrds(admin, createdCrds);
        admin.close();
        rmSync(dir, { recursive: true, force: true });
      });

      it('the region service overlay renders a locked-down Deployment with probes, its Service and a Role alone', async () => {
        const { objects } = await render('overlays/region-service', 'unikorn-region', suffix);
        const kinds = objects.map((o) => o.kind).sort();
        assert.deepEqual(kinds, ['Deployment', 'Namespace', 'Role', 'RoleBinding', 'Service', 'ServiceAccount']);
        const deployment = objects.find((o) => o.kind === 'Deployment') as KubeObject & {
          spec: { template: { spec: { securityContext: object; containers: Record<string, unknown>[] } } };
        };
        const pod = deployment.spec.template.spec;
        assert.deepEqual(pod.securityContext, {
          runAsGroup: 65532,
          runAsNonRoot: true,
          runAsUser: 65532,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        const [container] = pod.containers;
        assert.deepEqual(
          (container?.['securityContext'] as { readOnlyRootFilesystem: boolean }).readOnlyRootFilesystem,
          true,
        );
        assert.deepEqual((container?.['readinessProbe'] as { httpGet: object }).httpGet, {
          path: '/readyz',
          port: 'health',
        });
        assert.deepEqual((container?.['livenessProbe'] as { httpGet: object }).httpGet, {
          path: '/livez',
          port: 'health',
        });
        assert.ok((container?.['args'] as string[]).includes('--leader-election'));
        const service = objects.find((o) => o.kind === 'Service') as KubeObject & {
          spec: { ports: { name: string }[] };
        };
        assert.deepEqual(service.spec.ports.map((p) => p.name).sort(), ['api', 'metrics']);
      });

      it('the ServiceMonitor component renders onto an overlay', async () => {
        const component = mkdtempSync(join(tmpdir(), 'openregion-sm-'));
        try {
          writeFileSync(
            join(component, 'kustomization.yaml'),
            `resources:\n  - ${relative(component, 'deploy/overlays/keystone-operator')}\ncomponents:\n  - ${relative(component, 'deploy/components/servicemonitor')}\n`,
          );
          const out = await kubectl(adminPath, ['kustomize', component]);
          assert.match(out, /kind: ServiceMonitor[\s\S]*port: metrics/);
        } finally {
          rmSync(component, { recursive: true, force: true });
        }
      });

      it('region service: its token works its own namespace, and nothing more', async () => {
        const namespace = `deploy-region-${suffix}`;
        const rendered = await install('overlays/region-service', namespace);
        const sa = await asServiceAccount(rendered, 'openregion');
        const network = {
          ...withSpec('Network', validSamples['Network']?.spec as never),
          metadata: { name: 'n1', namespace },
        };
        await sa.create<KubeObject>(networkType, network);
        await sa.list(networkType, { namespace }); // its informers watch its namespace only
        await assert.rejects(sa.list(networkType), forbidden, 'no other namespace');
        await sa.list(regionType, { namespace });
        await assert.rejects(sa.get(builtin.secret, namespace, 'absent'), KubeNotFoundError, 'its credentials Secrets');
        await sa.create(builtin.lease, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: 'openregion-controllers', namespace },
        });
        await assert.rejects(
          sa.create<KubeObject>(networkType, { ...network, metadata: { name: 'n2', namespace: 'default' } }),
          forbidden,
        );
        await assert.rejects(sa.list(builtin.secret, { namespace: 'default' }), forbidden, 'no Secrets elsewhere');
        // Its own namespace's Secrets are listed and watched: the runtime lookups read the region credentials from
        // an informer (docs/adr/0046-realcloud-seed-fidelity.md), never another namespace's.
        await sa.list(builtin.secret, { namespace });
        await assert.rejects(sa.list(builtin.secret), forbidden, 'no Secrets across namespaces');
        await assert.rejects(sa.get(builtin.lease, namespace, 'someone-elses-lease'), forbidden);
        await assert.rejects(sa.list(keystoneUserType), forbidden, 'nothing of the Keystone operator');
        await assert.rejects(
          sa.delete(builtin.customResourceDefinition, undefined, `networks.${networkType.group}`),
          forbidden,
        );
      });

      it('Keystone operator, cluster-wide overlay: orders and their children everywhere, no region resources', async () => {
        const namespace = `deploy-keystone-${suffix}`;
        const rendered = await install('overlays/keystone-operator-cluster-wide', namespace);
        const sa = await asServiceAccount(rendered, 'openregion');
        await sa.list(keystoneUserType);
        await sa.list(builtin.secret);
        await sa.list(controlPlaneType);
        await sa
          .create(korcUserType, {
            apiVersion: 'openstack.k-orc.cloud/v1alpha1',
            kind: 'User',
            metadata: { name: 'probe', namespace },
            spec: {
              cloudCredentialsRef: { secretName: 's', cloudName: 'c' },
              managementPolicy: 'unmanaged',
              import: { filter: { name: 'probe' } },
            },
          })
          .catch((error: unknown) => {
            // Admission may refuse the sample's shape; the point is that it is not refused for RBAC.
            if (forbidden(error)) throw error;
          });
        await assert.rejects(sa.list(networkType), forbidden);
        await assert.rejects(
          sa.create<KubeObject>(controlPlaneType, {
            apiVersion: 'c5c3.io/v1alpha1',
            kind: 'ControlPlane',
            metadata: { name: 'x', namespace },
          }),
          forbidden,
        );
        await assert.rejects(sa.list(builtin.namespace), forbidden);
      });

      it('target cluster: the orders and delivered Secrets of assigned namespaces only, never a ControlPlane or K-ORC', async () => {
        const namespace = `deploy-target-${suffix}`;
        const rendered = await install('target-cluster', namespace);
        const identity = { namespace, name: rendered.name('openregion-keystone-operator') };
        const [assigned, unassigned] = [`deploy-assigned-${suffix}`, `deploy-unassigned-${suffix}`];
        for (const name of [assigned, unassigned]) {
          await admin.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
          await admin.create(builtin.secret, {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'tenant-secret', namespace: name },
            stringData: { password: 'not for the operator' },
          });
        }
        const sa = await asServiceAccount(rendered, 'openregion-keystone-operator');
        // deploy/target-cluster alone grants nothing.
        await assert.rejects(sa.list(builtin.secret, { namespace: assigned }), forbidden);
        assert.deepEqual(await grantNamespaces(admin, [assigned], identity), { granted: [assigned], revoked: [] });
        await eventually('the grant in effect', () => sa.list(keystoneUserType, { namespace: assigned }), 10_000);
        await sa.get(builtin.secret, assigned, 'tenant-secret');
        await sa.list(builtin.secret, { namespace: assigned });
        await sa.create(builtin.secret, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'delivered', namespace: assigned },
          stringData: { password: 'x' },
        });
        // A Secret in a namespace that is not assigned is unreadable (403), and nothing is listed cluster-wide.
        await assert.rejects(sa.get(builtin.secret, unassigned, 'tenant-secret'), forbidden);
        await assert.rejects(sa.list(builtin.secret, { namespace: unassigned }), forbidden);
        await assert.rejects(sa.list(builtin.secret), forbidden);
        await assert.rejects(sa.list(keystoneUserType), forbidden);
        await assert.rejects(sa.list(controlPlaneType, { namespace: assigned }), forbidden);
        await assert.rejects(sa.list(korcUserType, { namespace: assigned }), forbidden);
        await assert.rejects(sa.list(networkType, { namespace: assigned }), forbidden);
        // Unassigned again: the grant goes with the assignment.
        assert.deepEqual(await grantNamespaces(admin, [], identity), { granted: [], revoked: [assigned] });
        await eventually(
          'the grant revoked',
          () =>
            sa.get(builtin.secret, assigned, 'tenant-secret').then(
              () => undefined,
              (error: unknown) => (forbidden(error) ? true : undefined),
            ),
          10_000,
        );
      });
    });
  });
}

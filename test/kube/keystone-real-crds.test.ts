/**
 * The Keystone orders operator on kube-apiserver 1.20 with the real K-ORC and ESO CRDs (keystone-orders.ts): two
 * private kube-apiservers of this suite's own (keystone-clusters.ts) as the management and the target cluster, so
 * replacing cluster-wide CRDs never disturbs the shared server other suites use.
 */
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { startPrivateApiServer } from './keystone-clusters.ts';
import { keystoneOrdersWithRealCrds } from './keystone-orders.ts';
import { withRealApiServer } from './real-apiserver.ts';

await withRealApiServer('test/kube/keystone-real-crds.test.ts', () => {
  keystoneOrdersWithRealCrds('kube-apiserver', async () => {
    const [managementServer, targetServer] = await Promise.all([
      startPrivateApiServer('keystone-management'),
      startPrivateApiServer('keystone-target'),
    ]);
    const management = kubeClientFrom({ kubeconfig: managementServer.kubeconfig });
    const target = kubeClientFrom({ kubeconfig: targetServer.kubeconfig });
    return {
      management,
      target,
      targetKubeconfig: targetServer.kubeconfig,
      clientFor: (kubeconfig) => kubeClientFrom({ kubeconfig }),
      close: async () => {
        management.close();
        target.close();
        await Promise.all([managementServer.stop(), targetServer.stop()]);
      },
    };
  });
});

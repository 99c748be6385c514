/**
 * The Keystone orders operator on the embedded store with the real K-ORC and ESO CRDs (keystone-orders.ts): two
 * stores as the management and the target cluster. The same suite runs on kube-apiserver in
 * keystone-real-crds.test.ts; here the CRDs' CEL rules are enforced too, which 1.20 drops.
 */
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { systemClock } from '../../src/util/clock.ts';
import { keystoneOrdersWithRealCrds } from './keystone-orders.ts';

keystoneOrdersWithRealCrds('embedded store', () => {
  const management = openEmbeddedStore(':memory:', { clock: systemClock, garbageCollection: true });
  const target = openEmbeddedStore(':memory:', { clock: systemClock, garbageCollection: true });
  return Promise.resolve({
    management,
    target,
    // The provider only needs a kubeconfig to parse; the client it makes is the target store itself.
    targetKubeconfig: 'apiVersion: v1\nkind: Config\nclusters: []\nusers: []\ncontexts: []\n',
    clientFor: () => target,
    close: async () => {
      await management.close();
      await target.close();
    },
  });
});

/**
 * An order against the c5c3 operator's real ControlPlane CRD on the embedded store (keystone-real-controlplane.ts);
 * not on kube-apiserver 1.20, which refuses that CRD (see there).
 */
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { systemClock } from '../../src/util/clock.ts';
import { keystoneOrderWithRealControlPlane } from './keystone-real-controlplane.ts';

keystoneOrderWithRealControlPlane('the embedded store', () => {
  const client = openEmbeddedStore(':memory:', { clock: systemClock, garbageCollection: true });
  return Promise.resolve({ client, close: () => client.close() });
});

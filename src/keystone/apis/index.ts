/**
 * The kinds the Keystone orders operator serves or drives, and the CRD of its own kind. The K-ORC and ESO kinds it
 * drives, and the c5c3 operator's kinds it reads (ControlPlane, KeystoneRoleAssignment,
 * KeystoneApplicationCredential), belong to those projects: their stand-ins are in actuators/crds.ts, installed only
 * where the real CRDs are absent, never here and never in deploy/crds.
 */
import type { KubeObject } from '../../kube/object.ts';
import { keystoneUserCrd } from './keystoneuser.ts';

export * from './controlplane.ts';
export * from './eso.ts';
export * from './keystoneuser.ts';
export * from './korc.ts';
export * from './orders.ts';
export * from './store-versions.ts';

export function keystoneCrds(): KubeObject[] {
  return [keystoneUserCrd()];
}

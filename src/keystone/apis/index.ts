/**
 * The kinds the Keystone orders operator serves or drives, and the CRDs of its own kinds in install order. The
 * K-ORC and ESO kinds it drives belong to those projects: their stand-ins are in actuators/crds.ts, never here.
 */
import type { KubeObject } from '../../kube/object.ts';
import { controlPlaneCrd } from './controlplane.ts';
import { keystoneUserCrd } from './keystoneuser.ts';
import { keystoneApplicationCredentialCrd, keystoneRoleAssignmentCrd } from './orders.ts';

export * from './controlplane.ts';
export * from './eso.ts';
export * from './keystoneuser.ts';
export * from './korc.ts';
export * from './orders.ts';
export * from './store-versions.ts';

export function keystoneCrds(): KubeObject[] {
  return [controlPlaneCrd(), keystoneUserCrd(), keystoneRoleAssignmentCrd(), keystoneApplicationCredentialCrd()];
}

/** The kinds the Keystone orders operator serves or drives, and their CRDs in install order. */
import type { KubeObject } from '../../kube/object.ts';
import { controlPlaneCrd } from './controlplane.ts';
import { pushSecretCrd, secretStoreCrd } from './eso.ts';
import { keystoneUserCrd } from './keystoneuser.ts';
import { korcDomainCrd, korcUserCrd } from './korc.ts';
import { keystoneApplicationCredentialCrd, keystoneRoleAssignmentCrd } from './orders.ts';

export * from './controlplane.ts';
export * from './eso.ts';
export * from './keystoneuser.ts';
export * from './korc.ts';
export * from './orders.ts';

export function keystoneCrds(): KubeObject[] {
  return [
    controlPlaneCrd(),
    keystoneUserCrd(),
    keystoneRoleAssignmentCrd(),
    keystoneApplicationCredentialCrd(),
    korcUserCrd(),
    korcDomainCrd(),
    pushSecretCrd(),
    secretStoreCrd(),
  ];
}

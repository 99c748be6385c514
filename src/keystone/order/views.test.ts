import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ControlPlane } from '../apis/controlplane.ts';
import type { KeystoneUser } from '../apis/keystoneuser.ts';
import type { KeystoneApplicationCredential, KeystoneRoleAssignment } from '../apis/orders.ts';
import type { ControlPlaneGateView } from './decide-admission.ts';
import type { ListedChild } from './names.ts';
import type { ReferencingOrder } from './decide-teardown.ts';

describe('The shared scaffold: its narrow views', () => {
  // Compile-time: the resources of src/keystone/apis/ pass straight into the scaffold's decisions.
  it('the apis types fit the views the decisions read', () => {
    const views = [
      (cp: ControlPlane): ControlPlaneGateView => cp,
      (ra: KeystoneRoleAssignment): ReferencingOrder => ra,
      (ac: KeystoneApplicationCredential): ReferencingOrder => ac,
      (user: KeystoneUser): ListedChild => user,
      (user: KeystoneUser): string | undefined => user.spec.rotation?.interval,
    ];
    assert.equal(views.length, 5);
  });
});

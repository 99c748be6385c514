/**
 * reconcileDelete: the two holds, then the ordered deletes in the ControlPlane's namespace and of the delivered
 * Secret, then the finalizer. It never consults the namespace assignment, so a frozen order tears down too.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { ReconcileContext, Result } from '../../runtime/types.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { pushSecretType } from '../apis/eso.ts';
import { keystoneUserType, type KeystoneUser } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType, keystoneRoleAssignmentType } from '../apis/orders.ts';
import type { ObjectKeyRef } from '../order/decide-admission.ts';
import { deliveredSecretName, type OrderRef } from '../order/names.ts';
import { sweepOrderChildren } from '../order/sweep.ts';
import {
  keystoneUserDeleteRank,
  keystoneUserHolds,
  referenceHold,
  referencingUser,
  teardownOutcome,
} from '../order/decide-teardown.ts';
import { listOptional } from './children.ts';
import { CONDITION_USER_READY, FIELD_MANAGER, KEYSTONE_USER_FINALIZER } from './constants.ts';
import { nextStatus, sameStatus } from './status.ts';
import { defined } from '../../util/defined.ts';

interface TeardownInput {
  readonly order: KeystoneUser;
  readonly ref: OrderRef;
  readonly controlPlaneKey: ObjectKeyRef;
  readonly management: Client;
  readonly orderClient: Client;
  readonly now: number;
}

/** The kinds of the order's children in the ControlPlane's namespace; the rank orders the deletes across them. */
const KEYSTONE_USER_CHILD_TYPES = [pushSecretType, korcUserType, builtin.secret] as const;

export async function reconcileDelete(
  input: TeardownInput,
  ctx: ReconcileContext,
  row: (taken: string) => void = () => undefined,
): Promise<Result> {
  const { order, ref, orderClient } = input;
  if (!(order.metadata.finalizers ?? []).includes(KEYSTONE_USER_FINALIZER)) {
    row('NoFinalizer');
    return {};
  }

  // The holds, read through the order's cluster: a RoleAssignment first, then an application credential.
  const assignments = referencingUser(
    await listOptional(orderClient, keystoneRoleAssignmentType, ref.namespace),
    ref.name,
  );
  const credentials =
    assignments.length > 0
      ? []
      : referencingUser(await listOptional(orderClient, keystoneApplicationCredentialType, ref.namespace), ref.name);
  const hold = referenceHold('user', ref.namespace, keystoneUserHolds(assignments, credentials));
  if (hold.row === 'Held') {
    row(`Held-${hold.reason}`);
    ctx.log.info({ reason: hold.reason }, 'teardown held');
    const status = nextStatus(
      order.status,
      [
        {
          type: CONDITION_USER_READY,
          status: 'False',
          reason: hold.reason,
          message: hold.message,
          ...defined({ observedGeneration: order.metadata.generation }),
        },
      ],
      {},
      order.metadata.generation,
      input.now,
    );
    if (!sameStatus(order.status, status)) {
      await orderClient.update(
        keystoneUserType,
        { ...order, status },
        { subresource: 'status', fieldManager: FIELD_MANAGER },
      );
    }
    return hold.result;
  }

  const cp = await getOptional(
    input.management,
    controlPlaneType,
    input.controlPlaneKey.namespace,
    input.controlPlaneKey.name,
  );
  const sweep = await sweepOrderChildren({
    management: input.management,
    orderClient,
    ref,
    controlPlaneNamespace: input.controlPlaneKey.namespace,
    types: KEYSTONE_USER_CHILD_TYPES,
    rank: keystoneUserDeleteRank,
    delivered: { name: deliveredSecretName(ref.name), orderUid: order.metadata.uid },
  });
  const outcome = teardownOutcome(cp !== undefined, sweep.issued.length, sweep.errors);
  row(outcome.row);
  ctx.log.info({ row: outcome.row, issued: sweep.issued }, 'teardown');
  switch (outcome.row) {
    case 'SweepFailed':
      throw new AggregateError(outcome.errors, 'tearing down the KeystoneUser children');
    case 'WaitingForChildren':
      return outcome.result;
    case 'ReleasedWithoutControlPlane':
      if (sweep.errors.length > 0)
        ctx.log.warn({ errors: sweep.errors.map(String) }, 'sweep errors ignored: the ControlPlane is gone');
      break;
    case 'Released':
      break;
  }
  await orderClient.update(
    keystoneUserType,
    {
      ...order,
      metadata: {
        ...order.metadata,
        finalizers: (order.metadata.finalizers ?? []).filter((f) => f !== KEYSTONE_USER_FINALIZER),
      },
    },
    { fieldManager: FIELD_MANAGER },
  );
  return {};
}

/**
 * The admission gates every order passes before anything in the ControlPlane's namespace is read or written, as one
 * table whose rows are tried in order. The assignment gate is the freeze: an order its ControlPlane does not assign
 * keeps the status it has, and nothing is provisioned, delivered, repaired or swept. The finalizer is installed only
 * past that gate, because an order the operator does not serve has nothing to tear down.
 */
import { isConditionTrue, type ConditionInput } from '../../kube/conditions.ts';
import type { Condition } from '../../kube/object.ts';
import type { Result } from '../../runtime/types.ts';
import { ADMIN_CREDENTIAL_READY } from '../apis/controlplane.ts';
import { MANAGEMENT_CLUSTER } from '../../runtime/types.ts';
import { decideDurations, type DurationField } from './decide-durations.ts';
import { clusterLocation, goQuote } from './format.ts';
import { LABEL_VALUE_MAX, type OrderRef } from './names.ts';
import { KORC_REQUEUE_AFTER_MS, NAMESPACE_ASSIGNMENT_REQUEUE_AFTER_MS, NEXT_PASS_REQUEUE_AFTER_MS } from './result.ts';
import { defined } from '../../util/defined.ts';

/** The ControlPlane fields the gates read (a structural subset of the ControlPlane type). */
export interface ControlPlaneGateView {
  readonly spec: {
    readonly namespaceAssignments?: readonly NamespaceAssignment[] | undefined;
  };
  readonly status?: { readonly conditions?: readonly Condition[] | undefined } | undefined;
}

interface NamespaceAssignment {
  readonly namespace: string;
  /** Absent for the management cluster. */
  readonly targetClusterRef?: { readonly name: string } | undefined;
}

export interface ObjectKeyRef {
  readonly namespace: string;
  readonly name: string;
}

/** spec.controlPlaneRef resolved: an empty namespace is the order's own. */
export function resolveControlPlaneRef(
  orderNamespace: string,
  ref: { readonly name: string; readonly namespace?: string | undefined },
): ObjectKeyRef {
  return {
    namespace: ref.namespace === undefined || ref.namespace === '' ? orderNamespace : ref.namespace,
    name: ref.name,
  };
}

/** The field-index value of an order's controlPlaneRef (`<namespace>/<name>`); none without a name. */
export function controlPlaneRefIndexValues(
  orderNamespace: string,
  ref: { readonly name: string; readonly namespace?: string | undefined } | undefined,
): string[] {
  if (ref === undefined || ref.name === '') return [];
  const key = resolveControlPlaneRef(orderNamespace, ref);
  return [`${key.namespace}/${key.name}`];
}

/** The entry that assigns `namespace` on `cluster`; an entry on one cluster does not cover another's namespace. */
export function namespaceAssignmentFor(
  cp: ControlPlaneGateView,
  namespace: string,
  cluster: string,
): NamespaceAssignment | undefined {
  return cp.spec.namespaceAssignments?.find(
    (entry) => entry.namespace === namespace && (entry.targetClusterRef?.name ?? MANAGEMENT_CLUSTER) === cluster,
  );
}

type GateRow =
  | 'ClusterNameTooLong'
  | 'ControlPlaneNotFound'
  | 'ControlPlaneMissingOnTarget'
  | 'NamespaceNotAssigned'
  | 'InstallFinalizer'
  | 'InvalidDuration'
  | 'WaitingForAdminCredential'
  | 'Admitted';

export type GateDecision =
  /** The pass ends here: write `condition` on both of the order's conditions and return `result`. */
  | {
      readonly row: Exclude<GateRow, 'InstallFinalizer' | 'Admitted'>;
      readonly condition: GateCondition;
      readonly result: Result;
    }
  /** Add the finalizer and come back at once; no condition is written and no child created on this pass. */
  | { readonly row: 'InstallFinalizer'; readonly result: Result }
  | { readonly row: 'Admitted' };

interface GateCondition {
  readonly reason: string;
  readonly message: string;
}

/** The first row, tried before the ControlPlane is read: the cluster name is a label value on every child. */
export function clusterNameGate(order: OrderRef): GateDecision | undefined {
  if (order.cluster.length <= LABEL_VALUE_MAX) return undefined;
  return {
    row: 'ClusterNameTooLong',
    condition: {
      reason: 'ClusterNameTooLong',
      message: `the order's cluster is registered under a name longer than ${String(LABEL_VALUE_MAX)} characters, which cannot label its children; the order is refused`,
    },
    // The cluster's name is its registration Secret's and cannot change: nothing to wait for.
    result: {},
  };
}

interface AdmissionInput {
  readonly order: OrderRef;
  /** The resolved controlPlaneRef (its namespace defaults to the order's). */
  readonly controlPlaneKey: ObjectKeyRef;
  /** Undefined when the ControlPlane was not found; any other read error never reaches the table. */
  readonly controlPlane: ControlPlaneGateView | undefined;
  readonly hasFinalizer: boolean;
  /** The order's duration fields with their bounds (docs/adr/0014-keystone-order-invented-behaviour.md). */
  readonly durations?: readonly DurationField[] | undefined;
}

export function decideAdmission(input: AdmissionInput): GateDecision {
  const { order, controlPlane, controlPlaneKey } = input;
  const early = clusterNameGate(order);
  if (early !== undefined) return early;
  const cp = `${controlPlaneKey.namespace}/${controlPlaneKey.name}`;
  const notAssigned: GateCondition = {
    reason: 'NamespaceNotAssigned',
    message: `ControlPlane ${cp} assigns no namespace ${goQuote(order.namespace)} on ${clusterLocation(order.cluster)} (spec.namespaceAssignments); the order is frozen: nothing is provisioned, delivered or repaired, and what was created stays`,
  };
  if (controlPlane === undefined) {
    // On a target the reason must not tell an owner there which ControlPlanes exist.
    return order.cluster === MANAGEMENT_CLUSTER
      ? {
          row: 'ControlPlaneNotFound',
          condition: {
            reason: 'ControlPlaneNotFound',
            message: `ControlPlane ${cp} not found; the order is deferred until it exists`,
          },
          result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
        }
      : {
          row: 'ControlPlaneMissingOnTarget',
          condition: notAssigned,
          result: { requeueAfterMs: NAMESPACE_ASSIGNMENT_REQUEUE_AFTER_MS },
        };
  }
  if (namespaceAssignmentFor(controlPlane, order.namespace, order.cluster) === undefined) {
    return {
      row: 'NamespaceNotAssigned',
      condition: notAssigned,
      result: { requeueAfterMs: NAMESPACE_ASSIGNMENT_REQUEUE_AFTER_MS },
    };
  }
  if (!input.hasFinalizer) return { row: 'InstallFinalizer', result: { requeueAfterMs: NEXT_PASS_REQUEUE_AFTER_MS } };
  // Whatever the apiserver enforced: before 1.25 the CRD's CEL bounds are dropped. A spec edit wakes the order.
  const durations = decideDurations(input.durations ?? []);
  if (durations.row === 'InvalidDuration')
    return { row: 'InvalidDuration', condition: durations.condition, result: {} };
  if (!isConditionTrue(controlPlane.status?.conditions, ADMIN_CREDENTIAL_READY)) {
    return {
      row: 'WaitingForAdminCredential',
      condition: {
        reason: 'WaitingForAdminCredential',
        message: `ControlPlane ${cp} reports AdminCredentialReady is not True; the order is deferred`,
      },
      result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS },
    };
  }
  return { row: 'Admitted' };
}

/** A gate's condition written on each of the order's conditions (UserReady and DeliveryReady for a KeystoneUser). */
export function gateConditions(
  types: readonly string[],
  condition: GateCondition,
  observedGeneration: number | undefined,
): ConditionInput[] {
  return types.map((type) => ({
    type,
    status: 'False',
    reason: condition.reason,
    message: condition.message,
    ...defined({ observedGeneration }),
  }));
}

/**
 * Watch plumbing the order kinds share: a child in the ControlPlane's namespace maps back to its order by the three
 * ownership labels, and a ControlPlane update wakes its orders only when something the gates read moved.
 */
import { isConditionTrue } from '../../kube/conditions.ts';
import { ADMIN_CREDENTIAL_READY } from '../apis/controlplane.ts';
import type { Condition, KubeObject } from '../../kube/object.ts';
import type { Predicate } from '../../runtime/predicates.ts';
import type { Request } from '../../runtime/types.ts';
import { orderLabelKeys, type OrderKind } from './names.ts';

/**
 * The order a child belongs to. The cluster label becomes the request's cluster, so a child on the management
 * cluster wakes an order on a target. A child without the name or namespace label maps to nothing; a missing
 * cluster label reads as the management cluster.
 */
export function orderChildRequests(kind: OrderKind): (object: KubeObject) => Request[] {
  const keys = orderLabelKeys(kind);
  return (object) => {
    const labels = object.metadata.labels ?? {};
    const name = labels[keys.name];
    const namespace = labels[keys.namespace];
    if (name === undefined || name === '' || namespace === undefined || namespace === '') return [];
    return [{ cluster: labels[keys.cluster] ?? '', namespace, name }];
  };
}

function conditionsOf(object: KubeObject): readonly Condition[] | undefined {
  const status = object['status'];
  if (typeof status !== 'object' || status === null || !('conditions' in status)) return undefined;
  const conditions = status.conditions;
  return Array.isArray(conditions) ? (conditions as Condition[]) : undefined;
}

/**
 * A ControlPlane update passes on a spec change (generation), a deletion starting, or a flip of
 * AdminCredentialReady; every other status write of the plane would fan out to every order for nothing.
 */
export const orderControlPlanePredicate: Predicate = (event) => {
  const old = event.oldObject;
  if (event.type !== 'update' || old === undefined) return true;
  const current = event.object;
  return (
    old.metadata.generation !== current.metadata.generation ||
    old.metadata.deletionTimestamp !== current.metadata.deletionTimestamp ||
    isConditionTrue(conditionsOf(old), ADMIN_CREDENTIAL_READY) !==
      isConditionTrue(conditionsOf(current), ADMIN_CREDENTIAL_READY)
  );
};

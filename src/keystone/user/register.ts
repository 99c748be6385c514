/**
 * The KeystoneUser controller's registration, as docs/spec/keystoneuser-reconciler.md §Watches has it: the order and
 * its delivered Secret on every cluster that serves the kind, its children in the ControlPlane's namespace mapped back
 * by their labels, the orders that reference a user, and the ControlPlane fanned out through a field index.
 */
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import type { Controller, Mapper } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import { Instrumenter } from '../../runtime/metrics.ts';
import {
  annotationChanged,
  deletionStarted,
  generationChanged,
  labelChanged,
  or,
  type Predicate,
} from '../../runtime/predicates.ts';
import { MANAGEMENT_CLUSTER, type Request } from '../../runtime/types.ts';
import { systemClock, type Clock } from '../../util/clock.ts';
import { controlPlaneType } from '../apis/controlplane.ts';
import { pushSecretType } from '../apis/eso.ts';
import { keystoneUserType, type KeystoneUser } from '../apis/keystoneuser.ts';
import { korcUserType } from '../apis/korc.ts';
import { keystoneApplicationCredentialType, keystoneRoleAssignmentType } from '../apis/orders.ts';
import { controlPlaneRefIndexValues } from '../order/decide-admission.ts';
import { orderChildRequests, orderControlPlanePredicate } from '../order/mapping.ts';
import { keystoneUserKind } from '../order/names.ts';
import { CONTROLLER_NAME, KEYSTONE_USER_CONTROL_PLANE_REF_INDEX, keystoneUserSubConditionTypes } from './constants.ts';
import { keystoneUserReconciler } from './reconciler.ts';
import { keystoneUserRowCounter } from './rows.ts';

interface KeystoneUserControllerOptions {
  readonly maxConcurrentReconciles?: number;
  /** The clock the password schedule reads (upstream's Now); the manager's clock when absent. */
  readonly now?: () => number;
  readonly randomBytes?: (size: number) => Buffer;
  /** Times the sub-reconciler steps for the metrics. */
  readonly clock?: Clock;
  /** The instrumenter the ControlPlane reconciler shares; one on the manager's registry when absent. */
  readonly instrumenter?: Instrumenter;
}

/**
 * watch.CRUpdatePredicate: an update passes on a spec change, a label or annotation change, or a deletion
 * starting; the reconciler's own status writes do not wake it.
 */
export const crUpdatePredicate: Predicate = or(generationChanged, labelChanged, annotationChanged, deletionStarted);

/** keystoneUserControlPlaneRefExtractor: `<namespace>/<name>` of the resolved reference, none without a name. */
export function keystoneUserControlPlaneRefExtractor(object: KubeObject): readonly string[] {
  const order = object as Partial<KeystoneUser>;
  return controlPlaneRefIndexValues(object.metadata.namespace ?? '', order.spec?.controlPlaneRef);
}

/** keystoneUserReferenceRequests: the user an order names as userRef, on the order's own cluster. */
export const keystoneUserReferenceRequests: Mapper = (object, event) => {
  const spec = object['spec'] as { userRef?: { name?: unknown } } | undefined;
  const name = spec?.userRef?.name;
  if (typeof name !== 'string' || name === '') return [];
  return [{ cluster: event.cluster, namespace: object.metadata.namespace ?? '', name }];
};

/** controlPlaneToKeystoneUsersMapper: the management cluster's orders that reference the ControlPlane. */
export function controlPlaneToKeystoneUsersMapper(list: (value: string) => readonly KubeObject[]): Mapper {
  return (cp) => {
    try {
      return list(`${cp.metadata.namespace ?? ''}/${cp.metadata.name}`).map((order): Request => ({
        cluster: MANAGEMENT_CLUSTER,
        namespace: order.metadata.namespace ?? '',
        name: order.metadata.name,
      }));
    } catch {
      return [];
    }
  };
}

export function registerKeystoneUserController(
  manager: Manager,
  options: KeystoneUserControllerOptions = {},
): Controller {
  const management = manager.client(MANAGEMENT_CLUSTER);
  if (management === undefined) throw new Error('the management cluster has no client');
  // Only the local manager's cache is indexed: the ControlPlane fan-out reads the management cluster alone
  // (docs/spec/keystoneuser-reconciler.md §Controller Registration).
  manager.index(keystoneUserType, KEYSTONE_USER_CONTROL_PLANE_REF_INDEX, keystoneUserControlPlaneRefExtractor, {
    clusters: 'management',
  });
  const instrumenter =
    options.instrumenter ??
    new Instrumenter(manager.metrics.registry, keystoneUserSubConditionTypes, options.clock ?? systemClock);
  const reconciler = keystoneUserReconciler({
    management,
    resolve: (cluster) => manager.client(cluster),
    instrumenter,
    now: options.now,
    randomBytes: options.randomBytes,
    rows: keystoneUserRowCounter(manager.metrics.registry),
    // The Secret watches below keep the management cluster's Secrets cached.
    cachedSecrets: (namespace) => manager.cachedList(builtin.secret, namespace),
  });
  const childRequests = orderChildRequests(keystoneUserKind);
  const onManagement = { clusters: 'management' } as const;
  const everyServingCluster = { clusters: 'all', clusterServesKind: true, predicates: [crUpdatePredicate] } as const;
  return manager
    .controller(CONTROLLER_NAME)
    .for(keystoneUserType, everyServingCluster)
    .owns(builtin.secret, { clusters: 'all' })
    .watches(korcUserType, childRequests, onManagement)
    .watches(builtin.secret, childRequests, onManagement)
    .watches(pushSecretType, childRequests, onManagement)
    .watches(keystoneRoleAssignmentType, keystoneUserReferenceRequests, everyServingCluster)
    .watches(keystoneApplicationCredentialType, keystoneUserReferenceRequests, everyServingCluster)
    .watches(
      controlPlaneType,
      controlPlaneToKeystoneUsersMapper((value) =>
        manager.list(keystoneUserType, { index: KEYSTONE_USER_CONTROL_PLANE_REF_INDEX, value }),
      ),
      { ...onManagement, predicates: [orderControlPlanePredicate] },
    )
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .complete(reconciler);
}

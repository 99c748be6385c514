/**
 * The KeystoneUser reconciler's vocabulary: its condition types and reasons, its finalizer, the annotations it stamps,
 * its sub-reconciler names and the field index, each spelled as the specification
 * (docs/spec/keystoneuser-reconciler.md) and the upstream operator spell it.
 */

export const CONDITION_USER_READY = 'UserReady';
export const CONDITION_DELIVERY_READY = 'DeliveryReady';
export const CONDITION_READY = 'Ready';

/** The two conditions a gate writes on. */
export const ORDER_CONDITION_TYPES = [CONDITION_USER_READY, CONDITION_DELIVERY_READY] as const;

export const reasons = {
  userProvisioned: 'UserProvisioned',
  serviceAccountCollision: 'ServiceAccountCollision',
  probingForCollision: 'ProbingForCollision',
  secretStoreNotReady: 'SecretStoreNotReady',
  waitingForServiceAccounts: 'WaitingForServiceAccounts',
  serviceAccountsFailed: 'ServiceAccountsFailed',
  transportErrorRetryFailed: 'TransportErrorRetryFailed',
  serviceAccountError: 'ServiceAccountError',
  referencedByRoleAssignments: 'ReferencedByRoleAssignments',
  referencedByApplicationCredentials: 'ReferencedByApplicationCredentials',
  delivered: 'Delivered',
  keystoneNotPublished: 'KeystoneNotPublished',
  backupNotSynced: 'BackupNotSynced',
  deliveryRefused: 'DeliveryRefused',
  deliveryError: 'DeliveryError',
  allReady: 'AllReady',
  notAllReady: 'NotAllReady',
} as const;

export const READY_MESSAGE = 'All sub-conditions are ready';
export const NOT_READY_MESSAGE = 'One or more sub-conditions are not ready';

export const KEYSTONE_USER_FINALIZER = 'c5c3.io/keystoneuser-teardown';

/** The sha256 of the clouds.yaml last stamped on the PushSecret, and its syncedResourceVersion at that moment. */
export const PUSH_HASH_ANNOTATION = 'c5c3.io/keystoneuser-push-hash';
export const PUSH_SYNCED_BEFORE_ANNOTATION = 'c5c3.io/keystoneuser-push-synced-before';
/** The generation the managed User's passwordRef carries, for a reader of the User alone. */
export const PASSWORD_GENERATION_ANNOTATION = 'cobaltcore.c5c3.io/password-generation';
/** When a latched K-ORC transport error was last cleared. */
export const UNLATCHED_AT_ANNOTATION = 'c5c3.io/korc-transport-unlatched-at';

/** The field manager of every apply. */
export const FIELD_MANAGER = 'c5c3-operator';

export const CONTROLLER_NAME = 'keystoneuser';

/** The field index of spec.controlPlaneRef, `<namespace>/<name>` (KeystoneUserControlPlaneRefIndexKey). */
export const KEYSTONE_USER_CONTROL_PLANE_REF_INDEX = 'spec.controlPlaneRef';

export const SUB_RECONCILER_PROVISION = 'KeystoneUserProvision';
export const SUB_RECONCILER_DELIVERY = 'KeystoneUserDelivery';

/** sub_reconciler → condition_type of c5c3_operator_reconcile_errors_total. */
export const keystoneUserSubConditionTypes: ReadonlyMap<string, string> = new Map([
  [SUB_RECONCILER_PROVISION, CONDITION_USER_READY],
  [SUB_RECONCILER_DELIVERY, CONDITION_DELIVERY_READY],
]);

/** The keys of the delivered Secret, in status.secretKeys. */
export const DELIVERED_KEYS = ['clouds.yaml', 'password'] as const;

/** Condition messages relay K-ORC text; they are cut to this length before they are written. */
const MESSAGE_MAX = 1024;

export function truncateMessage(message: string): string {
  return message.length <= MESSAGE_MAX ? message : `${message.slice(0, MESSAGE_MAX - 3)}...`;
}

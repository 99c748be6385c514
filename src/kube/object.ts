/**
 * The Kubernetes object model openregion's controllers use, backend-neutral. Field names and meanings are
 * Kubernetes' own (apimachinery's ObjectMeta, OwnerReference, ManagedFieldsEntry), so objects round-trip
 * unchanged through a real API server.
 */

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller?: boolean;
  readonly blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly time?: string;
  readonly fieldsType: 'FieldsV1';
  /** The fields this manager owns, in Kubernetes' FieldsV1 form (`{"f:data": {"f:password": {}}}`). */
  readonly fieldsV1: Readonly<Record<string, unknown>>;
  readonly subresource?: string;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly generateName?: string;
  readonly uid?: string;
  /** Bumped by the server on every spec (non-status, non-metadata) change; never by a status write. */
  readonly generation?: number;
  /** Opaque; sent back on update for optimistic concurrency. */
  readonly resourceVersion?: string;
  readonly creationTimestamp?: string;
  /** Set when a delete waits for finalizers; the object is gone once they are all removed. */
  readonly deletionTimestamp?: string;
  readonly deletionGracePeriodSeconds?: number;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly finalizers?: readonly string[];
  readonly ownerReferences?: readonly OwnerReference[];
  readonly managedFields?: readonly ManagedFieldsEntry[];
}

/**
 * Any Kubernetes object. Custom resources carry `spec` and `status`; built-ins like Secret carry other top-level
 * fields (`data`, `type`), hence the index signature.
 */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

/** A custom resource with typed spec and status. */
export interface Resource<Spec, Status> extends KubeObject {
  readonly spec: Spec;
  readonly status?: Status;
}

/** core/v1 Namespace. */
export type Namespace = KubeObject;

/** core/v1 Secret: `data` values are base64, `stringData` is folded into `data` by the server on write. */
export interface Secret extends KubeObject {
  readonly type?: string;
  readonly data?: Readonly<Record<string, string>>;
  readonly stringData?: Readonly<Record<string, string>>;
}

/** core/v1 ConfigMap. */
export interface ConfigMap extends KubeObject {
  readonly data?: Readonly<Record<string, string>>;
}

/** coordination.k8s.io/v1 Lease, the record leader election holds. */
export interface LeaseSpec {
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  readonly spec?: LeaseSpec;
}

/** A Kubernetes condition (metav1.Condition). */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
  readonly observedGeneration?: number;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key a work queue and caches use. */
export function objectKey(meta: Pick<ObjectMeta, 'name' | 'namespace'>): string {
  return meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name;
}

/** A controller owner reference to `owner`, as controller-runtime's SetControllerReference builds it. */
export function controllerReference(owner: KubeObject): OwnerReference {
  if (owner.metadata.uid === undefined) throw new Error(`${owner.kind} ${owner.metadata.name} has no uid yet`);
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

export type EventType = 'Normal' | 'Warning';

/** A core/v1 Event, as events.ts records them. */
export interface CoreEvent extends KubeObject {
  readonly involvedObject: {
    readonly apiVersion: string;
    readonly kind: string;
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
  };
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly source: { readonly component: string };
}

/**
 * A core/v1 Event read back defensively: any client may have written it, so any field may be missing (what the
 * event table and the REST API's event lists read).
 */
export interface EventFields {
  readonly type?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly count?: number;
  readonly firstTimestamp?: string;
  readonly lastTimestamp?: string;
  readonly eventTime?: string;
  readonly series?: { readonly count?: number; readonly lastObservedTime?: string };
  readonly source?: { readonly component?: string; readonly host?: string };
  readonly involvedObject?: {
    readonly kind?: string;
    readonly name?: string;
    readonly uid?: string;
    readonly fieldPath?: string;
  };
}

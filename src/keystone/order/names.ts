/**
 * Every name and label an order's children carry (docs/architecture.md §OpenStack is the source of truth: children are
 * re-found by name). An order's children in the ControlPlane's namespace share one prefix, `<name>-<8 hex of
 * sha256(cluster/namespace/name)>-<segment>-`: the name keeps them readable, the hash keeps apart orders of one name
 * on different clusters or namespaces, and the segment keeps apart the order kinds.
 */
import { createHash } from 'node:crypto';

/** What tells one order kind's children from another's. */
export interface OrderKind {
  /** The label key stem: `c5c3.io/<label>-name`. */
  readonly label: string;
  /** The prefix segment after the hash. */
  readonly segment: 'user' | 'project' | 'roleassignment' | 'catalogentry' | 'applicationcredential';
}

export const keystoneUserKind: OrderKind = { label: 'keystoneuser', segment: 'user' };

/** One order, wherever it was placed: `cluster` is '' for the management cluster. */
export interface OrderRef {
  readonly kind: OrderKind;
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

interface OrderLabelKeys {
  readonly name: string;
  readonly namespace: string;
  readonly cluster: string;
}

export function orderLabelKeys(kind: OrderKind): OrderLabelKeys {
  return {
    name: `c5c3.io/${kind.label}-name`,
    namespace: `c5c3.io/${kind.label}-namespace`,
    cluster: `c5c3.io/${kind.label}-cluster`,
  };
}

/** Length of the hash in a prefix, in hex characters. */
const PREFIX_HASH_LENGTH = 8;

/** A label value's limit: the order's name, namespace and cluster are label values on every child. */
export const LABEL_VALUE_MAX = 63;

/** A Secret's or custom resource's name limit (a DNS subdomain). */
export const OBJECT_NAME_MAX = 253;

export function childPrefix(ref: OrderRef): string {
  const hash = createHash('sha256').update(`${ref.cluster}/${ref.namespace}/${ref.name}`).digest('hex');
  return `${ref.name}-${hash.slice(0, PREFIX_HASH_LENGTH)}-${ref.kind.segment}-`;
}

/** The three ownership labels. The cluster label is present even when empty, so the management cluster matches. */
export function childLabels(ref: OrderRef): Record<string, string> {
  const keys = orderLabelKeys(ref.kind);
  return { [keys.name]: ref.name, [keys.namespace]: ref.namespace, [keys.cluster]: ref.cluster };
}

/** What the child test reads of an object. */
export interface ListedChild {
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> | undefined };
}

/**
 * Whether `object` in the ControlPlane's namespace is this order's child: all three labels and the prefix. Neither
 * alone is enough: that namespace holds the plane's own children and every other order's, and one order's name can
 * begin with another's prefix.
 */
export function isOrderChild(ref: OrderRef, object: ListedChild): boolean {
  const labels = object.metadata.labels ?? {};
  const want = childLabels(ref);
  return (
    Object.entries(want).every(([key, value]) => labels[key] === value) &&
    object.metadata.name.startsWith(childPrefix(ref))
  );
}

/**
 * The KeystoneUser's children in the ControlPlane's namespace (docs/spec/keystoneuser-reconciler.md §Child Naming and
 * Placement).
 */
export function keystoneUserChildNames(ref: OrderRef) {
  const prefix = childPrefix(ref);
  return {
    user: `${prefix}user`,
    probe: `${prefix}user-probe`,
    password: (generation: number) => `${prefix}password-v${String(generation)}`,
    source: `${prefix}source`,
    backup: `${prefix}backup`,
  };
}

/** The generation a password Secret's name carries, or undefined when the name is not one of this order's. */
export function passwordGenerationOf(ref: OrderRef, secretName: string): number | undefined {
  const match = /^password-v([1-9][0-9]*)$/.exec(secretName.slice(childPrefix(ref).length));
  return secretName.startsWith(childPrefix(ref)) && match?.[1] !== undefined ? Number(match[1]) : undefined;
}

/** The Secret delivered beside the order, on the order's cluster. */
export function deliveredSecretName(orderName: string): string {
  return `${orderName}-credentials`;
}

/** The OpenBao path a PushSecret writes; the store's policy grants `openstack/keystone/<ns>/+/service-accounts/+`. */
export function orderRemoteKey(controlPlaneNamespace: string, ref: OrderRef, leaf: string): string {
  return `openstack/keystone/${controlPlaneNamespace}/${childPrefix(ref).slice(0, -1)}/service-accounts/${leaf}`;
}

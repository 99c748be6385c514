/**
 * What wakes the region controllers, as small pure predicates and mappers: each kind on its own spec, label and
 * deletion changes (never on its own status writes); workloads when their Identity becomes Available; an Identity
 * when a resource that uses it disappears, since its deletion waits for exactly that.
 */
import { isConditionTrue } from '../../kube/conditions.ts';
import type { Condition, KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { IndexFunc } from '../../runtime/cache.ts';
import type { Mapper } from '../../runtime/controller.ts';
import { deletionStarted, generationChanged, labelChanged, or, type Predicate } from '../../runtime/predicates.ts';
import type { Request } from '../../runtime/types.ts';
import { conditionTypes, labels, referencesOf } from '../apis/shared.ts';
import { identityIDOf } from './ownership.ts';
import { defined } from '../../util/defined.ts';

/** A spec edit, a label edit (ownership labels are inputs) or the start of deletion; not a status or finalizer write. */
export const specOrDeletionChanged: Predicate = or(generationChanged, labelChanged, deletionStarted);

export const deleted: Predicate = (event) => event.type === 'delete';

/** A reference another service held was released: a deletion it blocked may go on now. */
export const referenceReleased: Predicate = (event) =>
  event.type === 'update' &&
  event.oldObject !== undefined &&
  referencesOf(event.oldObject).some((r) => !referencesOf(event.object).includes(r));

const available = (object: KubeObject | undefined): boolean => {
  const status = object?.['status'] as { conditions?: readonly Condition[] } | undefined;
  return isConditionTrue(status?.conditions, conditionTypes.available);
};

/** An object whose Available condition turns True (or that is first seen Available). */
export const becameAvailable: Predicate = (event) => {
  if (event.type === 'delete' || !available(event.object)) return false;
  return event.type === 'create' || !available(event.oldObject);
};

/** The cache index of workloads by the identity they name: what the identity watch fans out through. */
export const IDENTITY_INDEX = 'regions.unikorn-cloud.org/identity-id';

export const byIdentity: IndexFunc = (object) => {
  const id = identityIDOf(object);
  return id === undefined ? [] : [id];
};

/** The Identity a resource names by label, in its own namespace. */
export const identityOf: Mapper = (object, event) => {
  const id = identityIDOf(object);
  return id === undefined ? [] : [{ cluster: event.cluster, namespace: object.metadata.namespace ?? '', name: id }];
};

/** The Network a resource is on, by its network label, in its own namespace: its deletion waits for the resource. */
export const networkOf: Mapper = (object, event) => {
  const id = object.metadata.labels?.[labels.networkID];
  return id === undefined || id === ''
    ? []
    : [{ cluster: event.cluster, namespace: object.metadata.namespace ?? '', name: id }];
};

/** Reads cached objects through an index, as `Manager.list` does. */
type IndexedList = (
  type: ResourceType,
  options: { cluster: string; namespace?: string; index: string; value: string },
) => readonly KubeObject[];

/**
 * The resources of `type` whose cache index `index` holds the event object's name (mappers must not do I/O). An
 * update maps only its new object: the name is the same in both, and the work queue hands the first request to an
 * idle worker at once, so mapping the old object too would queue a second, redundant pass.
 */
export function indexedBy(list: IndexedList, type: ResourceType, index: string): Mapper {
  return (named, event) => {
    if (event.type === 'update' && named !== event.object) return [];
    return list(type, {
      cluster: event.cluster,
      ...defined({ namespace: named.metadata.namespace }),
      index,
      value: named.metadata.name,
    }).map((o): Request => ({ cluster: event.cluster, namespace: o.metadata.namespace ?? '', name: o.metadata.name }));
  };
}

/** The resources of `type` that name an Identity. */
export const usersOf = (list: IndexedList, type: ResourceType): Mapper => indexedBy(list, type, IDENTITY_INDEX);

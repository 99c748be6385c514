/**
 * Event filters, as controller-runtime's predicate package has them: small pure functions of one event, composed
 * by the caller. A create or delete always passes the change predicates; they judge updates only.
 */
import type { KubeObject } from '../kube/object.ts';

export interface ObjectEvent<T extends KubeObject = KubeObject> {
  readonly type: 'create' | 'update' | 'delete';
  readonly object: T;
  /** The object before an update. */
  readonly oldObject?: T;
  /** The cluster the event was seen on ('' = management). */
  readonly cluster: string;
}

export type Predicate = (event: ObjectEvent) => boolean;

const onUpdate =
  (changed: (old: KubeObject, current: KubeObject) => boolean): Predicate =>
  (event) =>
    event.type !== 'update' || event.oldObject === undefined || changed(event.oldObject, event.object);

/** Updates pass only when metadata.generation moved: a spec change, not a status or metadata write. */
export const generationChanged: Predicate = onUpdate(
  (old, current) => old.metadata.generation !== current.metadata.generation,
);

export const labelChanged: Predicate = onUpdate(
  (old, current) => !sameMap(old.metadata.labels, current.metadata.labels),
);

export const annotationChanged: Predicate = onUpdate(
  (old, current) => !sameMap(old.metadata.annotations, current.metadata.annotations),
);

/** Updates pass when the object starts being deleted (a deletionTimestamp appears). */
export const deletionStarted: Predicate = onUpdate(
  (old, current) => old.metadata.deletionTimestamp === undefined && current.metadata.deletionTimestamp !== undefined,
);

export const or =
  (...predicates: Predicate[]): Predicate =>
  (event) =>
    predicates.some((p) => p(event));

export const and =
  (...predicates: Predicate[]): Predicate =>
  (event) =>
    predicates.every((p) => p(event));

export const not =
  (predicate: Predicate): Predicate =>
  (event) =>
    !predicate(event);

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined) {
  const left = Object.entries(a ?? {});
  const right = b ?? {};
  return left.length === Object.keys(right).length && left.every(([k, v]) => right[k] === v);
}

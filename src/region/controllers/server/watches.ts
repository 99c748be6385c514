/**
 * What wakes the Server controller: exactly the three of docs/spec/upstream-region.md §Server controller watches, plus
 * deletion and label edits: a spec edit (generation), the monitor's status.observed write (an image ref flip, an ERROR,
 * a recovery), the create-failure edge, and a vanished server (the monitor's absent observation moves Active to
 * Pending). A foreign operation that changes none of them, such as a rebuild in flight on the spec image, wakes
 * nothing: the provisioning axis does not move.
 */
import { isDeepStrictEqual } from 'node:util';
import { findCondition } from '../../../kube/conditions.ts';
import type { ObjectEvent, Predicate } from '../../../runtime/predicates.ts';
import type { ServerStatus } from '../../apis/server.ts';
import { providerCreateFailureEdge } from './decide.ts';

const statusOf = (object: ObjectEvent['object'] | undefined): ServerStatus | undefined =>
  object?.['status'] as ServerStatus | undefined;

const onUpdate =
  (changed: (old: ServerStatus | undefined, next: ServerStatus | undefined) => boolean): Predicate =>
  (event) =>
    event.type === 'update' && changed(statusOf(event.oldObject), statusOf(event.object));

/** The monitor wrote a different status.observed (the image, the errored marker, the generation). */
export const observedChanged: Predicate = onUpdate((old, next) => !isDeepStrictEqual(old?.observed, next?.observed));

/** A never-booted server was first stamped Healthy=Errored: the bounded create-retry takes it. */
export const createFailureEdge: Predicate = onUpdate(providerCreateFailureEdge);

const activeReason = (status: ServerStatus | undefined) => findCondition(status?.conditions, 'Active')?.reason;

/** The monitor found the server gone (Active fell back to Pending): the reconciler's fresh read recreates it. */
export const vanishedEdge: Predicate = onUpdate((old, next) => {
  const before = activeReason(old);
  return before !== undefined && before !== 'Pending' && activeReason(next) === 'Pending';
});

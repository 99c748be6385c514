/**
 * What wakes the Server controller: exactly the three of docs/spec/upstream-region.md §Server controller watches, plus
 * deletion and label edits: a spec edit (generation), the monitor's status.observed write (an image ref flip, an ERROR,
 * a recovery), the create-failure edge, and a vanished server (the monitor's absent observation moves Active to
 * Pending). A foreign operation that changes none of them, such as a rebuild in flight on the spec image, wakes
 * nothing: the provisioning axis does not move. Beyond upstream's three: a Volume the spec names changing (it
 * became Available, or another server released it), and a build finishing while the server is not yet provisioned.
 */
import { isDeepStrictEqual } from 'node:util';
import { findCondition } from '../../../kube/conditions.ts';
import type { ObjectEvent, Predicate } from '../../../runtime/predicates.ts';
import type { IndexFunc } from '../../../runtime/cache.ts';
import type { Mapper } from '../../../runtime/controller.ts';
import { serverType, type Server, type ServerStatus } from '../../apis/server.ts';
import { indexedBy } from '../watches.ts';
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

/**
 * The build a pass yielded on has finished: the monitor moved Active to Running while Available is not yet True.
 * Without it a server the monitor first saw building would wait for its 10 s re-check.
 */
export const buildFinishedEdge: Predicate = onUpdate((old, next) => {
  const provisioned = findCondition(next?.conditions, 'Available')?.status === 'True';
  return !provisioned && activeReason(old) !== 'Running' && activeReason(next) === 'Running';
});

/** The cache index of Servers by the Volumes their spec.volumes names: what the Volume watch fans out through. */
export const VOLUME_INDEX = 'regions.unikorn-cloud.org/volume-id';

export const byVolume: IndexFunc = (object) => ((object as Server).spec.volumes ?? []).map((v) => v.id);

/**
 * The Servers naming a Volume, from the index: a Volume becoming Available, or its claim being released, is what
 * their waiting or parked attachment rows wait for.
 */
export const serversNaming = (list: Parameters<typeof indexedBy>[0]): Mapper =>
  indexedBy(list, serverType, VOLUME_INDEX);

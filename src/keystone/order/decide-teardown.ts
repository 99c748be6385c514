/**
 * The teardown decisions the order kinds share: the holds checked first, the order of the deletes, and whether the
 * finalizer may go. The teardown never consults the namespace assignment, so a frozen order tears down too.
 */
import type { Result } from '../../runtime/types.ts';
import { goQuote, goQuoteList } from './format.ts';
import {
  isOrderChild,
  keystoneUserChildNames,
  passwordGenerationOf,
  type ListedChild,
  type OrderRef,
} from './names.ts';
import { KORC_REQUEUE_AFTER_MS, REFERENCE_HOLD_REQUEUE_AFTER_MS } from './result.ts';

/** An order that may name this one as its `userRef` (or `projectRef`, for the further kinds). */
export interface ReferencingOrder {
  readonly metadata: { readonly name: string };
  readonly spec?: { readonly userRef?: { readonly name?: string | undefined } | undefined } | undefined;
}

/** The names of the orders in `items` whose userRef names `orderName`, sorted so the message is stable. */
export function referencingUser(items: readonly ReferencingOrder[], orderName: string): string[] {
  return items
    .filter((item) => item.spec?.userRef?.name === orderName)
    .map((item) => item.metadata.name)
    .sort();
}

/** One hold: a kind of order that must be gone before this order's children may go. */
interface HoldCheck {
  readonly kind: string;
  readonly reason: string;
  /** Why deleting now would break something, ending the message. */
  readonly because: string;
  readonly names: readonly string[];
}

type HoldDecision =
  | { readonly row: 'Held'; readonly reason: string; readonly message: string; readonly result: Result }
  | { readonly row: 'NotHeld' };

/** The first hold with referencing orders holds the teardown; nothing is deleted and the pass comes back in a minute. */
export function referenceHold(noun: string, namespace: string, holds: readonly HoldCheck[]): HoldDecision {
  const hold = holds.find((h) => h.names.length > 0);
  if (hold === undefined) return { row: 'NotHeld' };
  return {
    row: 'Held',
    reason: hold.reason,
    message: `${hold.kind}(s) ${goQuoteList(hold.names)} in namespace ${goQuote(namespace)} still reference this ${noun}; delete them first, because ${hold.because}`,
    result: { requeueAfterMs: REFERENCE_HOLD_REQUEUE_AFTER_MS },
  };
}

/** The KeystoneUser's holds, in the order of docs/spec/keystoneuser-reconciler.md §Deletion and Teardown. */
export function keystoneUserHolds(roleAssignments: readonly string[], applicationCredentials: readonly string[]) {
  return [
    {
      kind: 'KeystoneRoleAssignment',
      reason: 'ReferencedByRoleAssignments',
      because: 'K-ORC guards the user with a finalizer while a role assignment references it',
      names: roleAssignments,
    },
    {
      kind: 'KeystoneApplicationCredential',
      reason: 'ReferencedByApplicationCredentials',
      because: 'deleting the user deletes its credentials in Keystone, and K-ORC could no longer delete them',
      names: applicationCredentials,
    },
  ] as const satisfies readonly HoldCheck[];
}

/** Where a KeystoneUser child goes in the delete order: backup, user, probe, passwords by generation, source. */
export function keystoneUserDeleteRank(ref: OrderRef, name: string): readonly [number, number] {
  const names = keystoneUserChildNames(ref);
  if (name === names.backup) return [0, 0];
  if (name === names.user) return [1, 0];
  if (name === names.probe) return [2, 0];
  const generation = passwordGenerationOf(ref, name);
  if (generation !== undefined) return [3, generation];
  if (name === names.source) return [4, 0];
  return [5, 0];
}

/**
 * The deletes to issue, in order: only the order's children (labels and prefix), ranked by `rank`. Every kind's
 * list is passed, because the PushSecret must go first: its deletionPolicy has ESO remove the OpenBao path.
 */
export function plannedDeletes<T extends ListedChild>(
  ref: OrderRef,
  listed: readonly T[],
  rank: (ref: OrderRef, name: string) => readonly [number, number],
): T[] {
  const keyed = listed
    .filter((child) => isOrderChild(ref, child))
    .map((child) => ({ child, key: rank(ref, child.metadata.name) }));
  keyed.sort(
    (a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.child.metadata.name.localeCompare(b.child.metadata.name),
  );
  return keyed.map((k) => k.child);
}

type TeardownOutcome =
  | { readonly row: 'SweepFailed'; readonly errors: readonly unknown[] }
  | { readonly row: 'WaitingForChildren'; readonly result: Result }
  | { readonly row: 'Released' | 'ReleasedWithoutControlPlane' };

/**
 * Whether the finalizer goes. With the ControlPlane present it is held while any delete was still issued (K-ORC and
 * ESO finish theirs asynchronously). With the ControlPlane gone it goes at once, errors and all: K-ORC has no
 * credential left to reach Keystone with, so waiting would wedge the order forever.
 */
export function teardownOutcome(
  controlPlanePresent: boolean,
  issued: number,
  errors: readonly unknown[],
): TeardownOutcome {
  if (!controlPlanePresent) return { row: 'ReleasedWithoutControlPlane' };
  if (errors.length > 0) return { row: 'SweepFailed', errors };
  if (issued > 0) return { row: 'WaitingForChildren', result: { requeueAfterMs: KORC_REQUEUE_AFTER_MS } };
  return { row: 'Released' };
}

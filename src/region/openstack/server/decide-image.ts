/**
 * The image rebuild table (docs/spec/openstack-provider.md §Image rebuild): one pass decides entirely from one fresh
 * GetServer, never from status the monitor wrote (observations are stimulus, never authorisation), and takes at most
 * the one action its row names. R4″ is the single destructive step; every other row waits, parks or reports done.
 *
 *   R1   Spec.Image == nil                     park
 *   R2   image ref unreadable                  park
 *   R3   ref == desired, rebuild task active   yield
 *   R3′  ref == desired, ERROR, launched       park
 *   R3″  ref == desired, otherwise             done
 *   R4   ref != desired, launched_at zero      yield
 *   R4′  ref != desired, any task active       yield
 *   R4″  ref != desired, quiescent             submit
 *
 * Nova commits the ref and task_state together (one compare-and-swap before its 202), so no reader sees the new ref
 * without an active rebuild task: a foreign rebuild on the spec image reads R3, and can never reach R4″.
 */
import type { ServerYield } from '../../provider/contract.ts';
import { Outcome, type Done, type Park } from '../../provider/outcome.ts';
import { rebuildingYield } from './decide-rebuild.ts';
import {
  IMAGE_MISSING_MESSAGE,
  IMAGE_NOT_REALIZED_MESSAGE,
  IMAGE_UNREADABLE_MESSAGE,
  SERVER_ERRORED_REASON,
} from './messages.ts';
import {
  openstackServerImageID,
  sameImage,
  serverLaunched,
  serverRebuildInFlight,
  serverTaskActive,
  type NovaServerState,
} from './nova-server.ts';

export type ImageRow = 'R1' | 'R2' | 'R3' | 'R3′' | 'R3″' | 'R4' | 'R4′' | 'R4″';
type ImageAction = 'park' | 'yield' | 'done' | 'submit';

/** The table as data: the condition each row tests and the one action it takes. */
export const IMAGE_ROWS: Readonly<Record<ImageRow, { readonly condition: string; readonly action: ImageAction }>> = {
  R1: { condition: 'Spec.Image == nil', action: 'park' },
  R2: { condition: 'image ref unreadable', action: 'park' },
  R3: { condition: 'ref == desired, rebuild task active', action: 'yield' },
  'R3′': { condition: 'ref == desired, ERROR, launched', action: 'park' },
  'R3″': { condition: 'ref == desired, otherwise', action: 'done' },
  R4: { condition: 'ref != desired, launched_at zero', action: 'yield' },
  'R4′': { condition: 'ref != desired, any task active', action: 'yield' },
  'R4″': { condition: 'ref != desired, quiescent', action: 'submit' },
};

export interface ImageDecision {
  readonly row: ImageRow;
  readonly action: ImageAction;
}

const decision = (row: ImageRow): ImageDecision => ({ row, action: IMAGE_ROWS[row].action });

/** The row this pass takes, in the table's order; the first matching row wins. */
export function decideServerImage(desiredImageID: string | undefined, server: NovaServerState): ImageDecision {
  if (desiredImageID === undefined || desiredImageID === '') return decision('R1');
  const ref = openstackServerImageID(server);
  if (ref === undefined) return decision('R2');
  if (sameImage(desiredImageID, ref)) {
    if (serverRebuildInFlight(server)) return decision('R3');
    // A never-launched ERROR is a failed create: the bounded create-retry owns it, not this park.
    if (server.status === 'ERROR' && serverLaunched(server)) return decision('R3′');
    return decision('R3″');
  }
  // Before first boot the image is a create parameter, not a rebuild target (Nova: must_have_launched).
  if (!serverLaunched(server)) return decision('R4');
  if (serverTaskActive(server)) return decision('R4′');
  return decision('R4″');
}

const PARK_MESSAGES: Partial<Record<ImageRow, string>> = {
  R1: IMAGE_MISSING_MESSAGE,
  R2: IMAGE_UNREADABLE_MESSAGE,
  'R3′': IMAGE_NOT_REALIZED_MESSAGE,
};

/**
 * The outcome of a row that does not submit: `done` for R3″, a yield naming the row (the 10 s re-check), or
 * a park (user action required, no requeue) with the row's fixed message. R3's yield is the one waiting row that
 * is rebuilding, so the reconciler re-asserts the accepted stamp while the rebuild is in flight; every other row
 * leaves the observed axes to the monitor. R4″'s outcome comes from the rebuild response (decide-rebuild.ts), so
 * asking for it here is a programming error.
 */
export function imageRowOutcome(row: ImageRow): Done<undefined> | ServerYield | Park {
  const { action } = IMAGE_ROWS[row];
  if (action === 'done') return Outcome.ok();
  if (action === 'yield') return row === 'R3' ? rebuildingYield(row) : Outcome.yield(row);
  const message = PARK_MESSAGES[row];
  if (action === 'park' && message !== undefined) return Outcome.park(SERVER_ERRORED_REASON, message);
  throw new Error(`image row ${row} submits a rebuild; its outcome is the rebuild response's`);
}

/**
 * The server status conventions the reconciler and the monitor both write: the Active condition (its message a
 * function of its reason alone) and the fixed stamp a submitted rebuild writes (Active Rebuilding, Healthy Unknown),
 * which is what the monitor maps a REBUILD to, so the two writers agree rather than churn.
 */
import type { ConditionInput } from '../../kube/conditions.ts';
import type { ActiveReason } from './shared.ts';

export const HEALTH_UNKNOWN_MESSAGE = 'unable to determine server status';

const ACTIVE_MESSAGES: Readonly<Record<ActiveReason, string>> = {
  Pending: 'the server is awaiting provider scheduling',
  Queued: 'the server is queued awaiting hardware',
  Building: 'the server is being built',
  Rebuilding: 'the server is being rebuilt',
  Running: 'the server is running',
  Stopping: 'the server is stopping',
  Stopped: 'the server is stopped',
  Error: 'the server is in an error state',
};

/** The Active condition for a reason: True only while Running, the message a function of the reason alone. */
export function activeCondition(reason: ActiveReason): ConditionInput {
  return { type: 'Active', status: reason === 'Running' ? 'True' : 'False', reason, message: ACTIVE_MESSAGES[reason] };
}

/** Written on a 2xx to a rebuild and re-asserted on R3, never derived from the 202 body. */
export const REBUILD_ACCEPTED_STAMP: readonly [ConditionInput, ConditionInput] = [
  activeCondition('Rebuilding'),
  { type: 'Healthy', status: 'Unknown', reason: 'Unknown', message: HEALTH_UNKNOWN_MESSAGE },
];

/**
 * The monitor's two live axes of one server, from one Nova read (and, only for a baremetal flavor in BUILD, one
 * Ironic lookup): the Active condition (where the server is in its lifecycle) and the Healthy condition (whether it
 * is well). Provisioning (Available) is the reconciler's axis; nothing here writes it.
 *
 * Active, first match wins:
 *   A1   status ERROR                                   Error
 *   A2   rebuild in flight (REBUILD, rebuild* task)     Rebuilding
 *   A3   BUILD, not baremetal                           Building
 *   A4   BUILD, baremetal, node pre-deploy or absent    Queued
 *   A5   BUILD, baremetal, node deploying or failed     Building
 *   A6   BUILD, baremetal, Ironic lookup failed         Building
 *   A7   task powering-off                              Stopping
 *   A8   power state RUNNING                            Running
 *   A9   power state SHUTDOWN                           Stopped
 *   A10  otherwise (NOSTATE, PAUSED, CRASHED, …)        unchanged (Pending when never set)
 *
 * Healthy: H1 ERROR → False Errored; H2 rebuild in flight → Unknown (the reconciler's accepted stamp says the same);
 * H3 ACTIVE → True Healthy; H4 UNKNOWN → Unknown; H5 any other status → False Degraded "server is in state X".
 * Nova's fault never reaches a message: it is operator log detail (observe.ts decides when to fetch it).
 */
import { PowerState } from '../../../openstack/compute.ts';
import type { ConditionInput } from '../../../kube/conditions.ts';
import type { ActiveReason } from '../../apis/shared.ts';
import { HEALTH_UNKNOWN_MESSAGE } from '../../apis/server.ts';
import { degradedMessage, ERRORED_MESSAGE, HEALTHY_MESSAGE } from './messages.ts';
import { serverRebuildInFlight, type NovaServerState } from './nova-server.ts';

/** What the mapping reads from Nova; a full compute Server fits. */
export interface MonitoredServer extends NovaServerState {
  readonly 'OS-EXT-STS:power_state'?: number;
}

/** The Ironic lookup for a baremetal server in BUILD: its node, no node yet, or a failure (logged by the caller). */
export type IronicLookup =
  | { readonly kind: 'node'; readonly provisionState: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'failed' };

/** Ironic is consulted only for a flavor marked baremetal in region configuration, and only while Nova says BUILD. */
export const shouldConsultIronic = (server: Pick<NovaServerState, 'status'>, baremetal: boolean): boolean =>
  baremetal && server.status === 'BUILD';

/**
 * Ironic provision states during a Nova BUILD. Queued: not yet picked up, cleaning, inspecting, adopting (waiting on
 * hardware). Building: deploying, and the failure states too, since the node is still in the build pipeline and
 * the failure belongs on the Healthy axis, not on a second lifecycle reason.
 */
export const IRONIC_BUILD_PHASES: Readonly<Record<string, 'Queued' | 'Building'>> = {
  enroll: 'Queued',
  manageable: 'Queued',
  available: 'Queued',
  cleaning: 'Queued',
  'clean wait': 'Queued',
  'clean hold': 'Queued',
  verifying: 'Queued',
  inspecting: 'Queued',
  'inspect wait': 'Queued',
  adopting: 'Queued',
  deploying: 'Building',
  'wait call-back': 'Building',
  'deploy hold': 'Building',
  active: 'Building',
  'deploy failed': 'Building',
  'clean failed': 'Building',
  'inspect failed': 'Building',
  'adopt failed': 'Building',
  error: 'Building',
};

/** Queued or Building from an Ironic provision_state; a state this table does not know claims no progress. */
export function ironicBuildPhase(provisionState: string): 'Queued' | 'Building' {
  return Object.hasOwn(IRONIC_BUILD_PHASES, provisionState)
    ? (IRONIC_BUILD_PHASES[provisionState] ?? 'Queued')
    : 'Queued';
}

export type ActiveRow = 'A1' | 'A2' | 'A3' | 'A4' | 'A5' | 'A6' | 'A7' | 'A8' | 'A9' | 'A10';

interface ActiveMapping {
  readonly row: ActiveRow;
  readonly reason: ActiveReason;
}

export interface ActiveContext {
  /** The Active reason already recorded, kept when Nova's power state says nothing. */
  readonly previous?: ActiveReason | undefined;
  readonly baremetal: boolean;
  /** The lookup's result when shouldConsultIronic held; missing counts as failed (the VM default, Building). */
  readonly ironic?: IronicLookup | undefined;
}

export function mapServerActive(server: MonitoredServer, context: ActiveContext): ActiveMapping {
  if (server.status === 'ERROR') return { row: 'A1', reason: 'Error' };
  if (serverRebuildInFlight(server)) return { row: 'A2', reason: 'Rebuilding' };
  if (server.status === 'BUILD') {
    if (!context.baremetal) return { row: 'A3', reason: 'Building' };
    const ironic = context.ironic ?? { kind: 'failed' };
    if (ironic.kind === 'failed') return { row: 'A6', reason: 'Building' };
    if (ironic.kind === 'absent' || ironicBuildPhase(ironic.provisionState) === 'Queued') {
      return { row: 'A4', reason: 'Queued' };
    }
    return { row: 'A5', reason: 'Building' };
  }
  if (server['OS-EXT-STS:task_state'] === 'powering-off') return { row: 'A7', reason: 'Stopping' };
  const power = server['OS-EXT-STS:power_state'];
  if (power === PowerState.Running) return { row: 'A8', reason: 'Running' };
  if (power === PowerState.Shutdown) return { row: 'A9', reason: 'Stopped' };
  return { row: 'A10', reason: context.previous ?? 'Pending' };
}

export type HealthRow = 'H1' | 'H2' | 'H3' | 'H4' | 'H5';

interface HealthMapping {
  readonly row: HealthRow;
  readonly condition: ConditionInput;
}

const health = (row: HealthRow, status: ConditionInput['status'], reason: string, message: string): HealthMapping => ({
  row,
  condition: { type: 'Healthy', status, reason, message },
});

export function mapServerHealth(server: NovaServerState): HealthMapping {
  if (server.status === 'ERROR') return health('H1', 'False', 'Errored', ERRORED_MESSAGE);
  if (serverRebuildInFlight(server)) return health('H2', 'Unknown', 'Unknown', HEALTH_UNKNOWN_MESSAGE);
  if (server.status === 'ACTIVE') return health('H3', 'True', 'Healthy', HEALTHY_MESSAGE);
  if (server.status === 'UNKNOWN') return health('H4', 'Unknown', 'Unknown', HEALTH_UNKNOWN_MESSAGE);
  return health('H5', 'False', 'Degraded', degradedMessage(server.status));
}

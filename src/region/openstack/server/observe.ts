/**
 * One monitor poll of one server as a pure function: the previous status and what Nova reported (or nothing, when the
 * server vanished) in, the one status write of this poll out. The fields written here are the monitor's own
 * (docs/architecture.md §One writer per status field): status.observed, provisionedAt, macAddress, launchedAt,
 * scheduledAt and the Active and Healthy conditions. Provisioning (Available), the addresses and the create-retry
 * bookkeeping belong to the reconciler and pass through untouched.
 *
 * - observed.generation is stamped on every poll, so the write fires the reconciler's observed wake (the un-park
 *   path of R2, R3′ and a vanished server).
 * - observed.image follows Nova's ref; an unreadable ref keeps the previous value rather than clearing it, and is
 *   marked (observed.imageUnreadable) while it lasts, so the ref reading again, even on the same image, moves
 *   observed and wakes R2's park (docs/spec/openstack-provider.md §Image rebuild: "a later readable ref un-parks it without any spec change").
 * - observed.errored is `status == ERROR` only, never "a fault is present": Nova leaves a stale fault on a
 *   recovered server.
 * - provisionedAt is latched once from launched_at and never cleared: create-retry must never destroy a server
 *   that has booted.
 * - macAddress is written only while ACTIVE (baremetal rebinds the port MAC asynchronously) and never cleared.
 * - a vanished server is an absent observation: observed keeps its image, errored is cleared, Active goes Pending
 *   and Healthy Unknown; the caller persists it, then surfaces not found.
 * - enteredError is true on the poll that first sees ERROR: the caller fetches the fault by id then, and only then,
 *   and logs it; nothing of the fault reaches status.
 */
import { setCondition } from '../../../kube/conditions.ts';
import type { ServerAddress, ServerFault } from '../../../openstack/compute.ts';
import type { ActiveReason } from '../../apis/shared.ts';
import { networkName } from '../names.ts';
import { activeCondition, type ServerStatus } from '../../apis/server.ts';
import {
  mapServerActive,
  mapServerHealth,
  type ActiveRow,
  type HealthRow,
  type IronicLookup,
  type MonitoredServer,
} from './decide-monitor.ts';
import { SERVER_NOT_FOUND_MESSAGE } from './messages.ts';
import { openstackServerImageID, serverLaunched } from './nova-server.ts';
import { defined } from '../../../util/defined.ts';

const VANISHED_HEALTH = {
  type: 'Healthy',
  status: 'Unknown',
  reason: 'Unknown',
  message: SERVER_NOT_FOUND_MESSAGE,
} as const;

/** What a poll reads from Nova; a full compute Server fits. */
export interface ObservedServer extends MonitoredServer {
  readonly created?: string;
  readonly addresses?: Readonly<Record<string, readonly ServerAddress[]>>;
}

export interface ObserveContext {
  /** metadata.generation of the Server this poll observed. */
  readonly generation: number;
  /** spec.networks[0].id: Nova keys `addresses` by that network's name. */
  readonly networkID: string | undefined;
  readonly baremetal: boolean;
  /** The Ironic lookup, when shouldConsultIronic held. */
  readonly ironic?: IronicLookup | undefined;
  readonly now: Date;
}

interface Observation {
  /** The whole status to write, once, for this poll. */
  readonly status: ServerStatus;
  /** This poll is the transition into ERROR: fetch the fault by id, log it, never write it to status. */
  readonly enteredError: boolean;
  /** Nova has no such server: persist `status` anyway, then surface ResourceNotFoundError (create-retry's gate). */
  readonly notFound: boolean;
  /** The mapping rows taken, for the poll's log line and counters; absent when the server is gone. */
  readonly rows?: { readonly active: ActiveRow; readonly health: HealthRow };
}

export function observeServer(
  previous: ServerStatus | undefined,
  server: ObservedServer | undefined,
  context: ObserveContext,
): Observation {
  const prev = previous ?? {};
  const ref = server && openstackServerImageID(server);
  const image = ref ?? prev.observed?.image;
  const observed = {
    generation: context.generation,
    ...defined({ image }),
    errored: server?.status === 'ERROR',
    // The image is sticky, so without this mark a ref readable again on the same image would move nothing.
    ...(server !== undefined && ref === undefined ? { imageUnreadable: true } : {}),
  };
  if (server === undefined) {
    // Nothing in observed may move (the image is sticky, errored may already be false), so the lifecycle says it:
    // Active falls back to Pending, the edge that wakes the reconciler to recreate (and what create-retry resets to).
    let conditions = setCondition(prev.conditions, activeCondition('Pending'), context.now);
    conditions = setCondition(conditions, VANISHED_HEALTH, context.now);
    return { status: { ...prev, conditions, observed }, enteredError: false, notFound: true };
  }

  const previousActive = prev.conditions?.find((c) => c.type === 'Active')?.reason as ActiveReason | undefined;
  const active = mapServerActive(server, {
    previous: previousActive,
    baremetal: context.baremetal,
    ironic: context.ironic,
  });
  const health = mapServerHealth(server);
  let conditions = setCondition(prev.conditions, activeCondition(active.reason), context.now);
  conditions = setCondition(conditions, health.condition, context.now);

  // An unparseable launched_at still proves a boot: the latch must close, so it falls back to this poll's time.
  const launchedAt = serverLaunched(server)
    ? (novaTimestamp(server['OS-SRV-USG:launched_at'] ?? '') ?? prev.launchedAt ?? rfc3339(context.now))
    : prev.launchedAt;
  const scheduledAt = novaTimestamp(server.created ?? '') ?? prev.scheduledAt;
  const provisionedAt = prev.provisionedAt ?? (serverLaunched(server) ? launchedAt : undefined);
  const mac = server.status === 'ACTIVE' ? serverMACAddress(server, context.networkID) : undefined;
  const macAddress = mac ?? prev.macAddress;

  const status: ServerStatus = {
    ...prev,
    conditions,
    observed,
    ...defined({ launchedAt, scheduledAt, provisionedAt, macAddress }),
  };
  const enteredError = server.status === 'ERROR' && prev.observed?.errored !== true;
  return { status, enteredError, notFound: false, rows: { active: active.row, health: health.row } };
}

const MAC = /^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/;

/** The port MAC on the server's network, from the same response (no extra port call); undefined when not reported. */
export function serverMACAddress(server: ObservedServer, networkID: string | undefined): string | undefined {
  if (networkID === undefined) return undefined;
  const entries = server.addresses?.[networkName(networkID)] ?? [];
  return entries.map((a) => a['OS-EXT-IPS-MAC:mac_addr']).find((mac) => mac !== undefined && MAC.test(mac));
}

const NOVA_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * A Nova time as the status stores it (RFC 3339, UTC, whole seconds). Nova writes launched_at without a zone
 * (`2026-11-30T12:00:00.000000`, UTC) and created with one; anything else is undefined.
 */
export function novaTimestamp(text: string): string | undefined {
  const m = NOVA_TIME.exec(text);
  if (m === null) return undefined;
  const zone = m[4] === undefined || m[4] === 'Z' ? 'Z' : m[4];
  const at = new Date(`${m[1] ?? ''}T${m[2] ?? ''}${zone}`);
  return Number.isNaN(at.getTime()) ? undefined : rfc3339(at);
}

const rfc3339 = (at: Date): string => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * What the observation log records of the fault fetched on the transition into ERROR: its code, message and
 * created time. `details` is an admin-only stack trace and stays out; none of it reaches status.
 */
export function serverFaultLog(
  fault: ServerFault | undefined,
): { code: number; message: string; created: string } | undefined {
  return fault === undefined ? undefined : { code: fault.code, message: fault.message, created: fault.created };
}

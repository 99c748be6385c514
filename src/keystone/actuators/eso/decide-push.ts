/**
 * What one pass of the bundled PushSecret actuator does, as ESO's PushSecret controller decides it, written as named
 * rows so each is tested without I/O. The pass performs the one action its row names.
 */
import { createHash } from 'node:crypto';
import type { Condition } from '../../../kube/object.ts';
import { setCondition } from '../../../kube/conditions.ts';
import { PUSH_SECRET_FINALIZER, type PushSecret, type PushSecretStatus } from '../../apis/eso.ts';
import { parseGoDuration } from '../../../util/duration.ts';

type PushDecision =
  /** Being deleted, our finalizer present: with deletionPolicy Delete, remove the remote keys first. */
  | { row: 'D1-release'; action: 'release'; deleteRemote: boolean }
  /** Being deleted, not ours to hold: nothing to do. */
  | { row: 'D2-gone'; action: 'none' }
  /** deletionPolicy Delete without the finalizer: add it, and push on the next pass. */
  | { row: 'F1-add-finalizer'; action: 'add-finalizer' }
  /** deletionPolicy None with the finalizer left from an earlier Delete: drop it. */
  | { row: 'F2-drop-finalizer'; action: 'remove-finalizer' }
  /** The object changed (generation, labels or annotations) since the last successful push. */
  | { row: 'P1-changed'; action: 'push' }
  /** The refresh interval has passed since the last push. */
  | { row: 'P2-refresh-due'; action: 'push' }
  /** Up to date: wait for the refresh (or for ever when the interval is 0). */
  | { row: 'P3-fresh'; action: 'wait'; requeueAfterMs: number | undefined };

const DEFAULT_REFRESH_MS = 3_600_000;

/**
 * ESO's `ctrlutil.GetResourceVersion`: `<generation>-<hash(labels, annotations)>`, so a metadata change (the hash
 * annotation the KeystoneUser reconciler stamps) counts as a change worth a push.
 */
export function resourceVersionOf(ps: Pick<PushSecret, 'metadata'>): string {
  const { generation, labels, annotations } = ps.metadata;
  const canonical = JSON.stringify({ annotations: sorted(annotations), labels: sorted(labels) });
  return `${String(generation ?? 0)}-${createHash('md5').update(canonical).digest('hex')}`;
}

const sorted = (m: Readonly<Record<string, string>> | undefined) =>
  Object.fromEntries(Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The refresh interval in ms; an unparsable one falls back to ESO's default of an hour. */
export function refreshIntervalMs(ps: PushSecret): number {
  const text = ps.spec.refreshInterval;
  return text === undefined ? DEFAULT_REFRESH_MS : (parseGoDuration(text) ?? DEFAULT_REFRESH_MS);
}

export function decidePush(ps: PushSecret, now: number): PushDecision {
  const hasFinalizer = ps.metadata.finalizers?.includes(PUSH_SECRET_FINALIZER) === true;
  const deleteOnRemoval = ps.spec.deletionPolicy === 'Delete';
  if (ps.metadata.deletionTimestamp !== undefined) {
    return hasFinalizer
      ? { row: 'D1-release', action: 'release', deleteRemote: deleteOnRemoval }
      : { row: 'D2-gone', action: 'none' };
  }
  if (deleteOnRemoval && !hasFinalizer) return { row: 'F1-add-finalizer', action: 'add-finalizer' };
  if (!deleteOnRemoval && hasFinalizer) return { row: 'F2-drop-finalizer', action: 'remove-finalizer' };
  if (ps.status?.syncedResourceVersion !== resourceVersionOf(ps)) return { row: 'P1-changed', action: 'push' };
  const interval = refreshIntervalMs(ps);
  const last = ps.status.refreshTime == null ? Number.NaN : Date.parse(ps.status.refreshTime);
  // A refresh interval of 0 pushes once per change; a missing refresh time is treated as due.
  if (interval === 0) return { row: 'P3-fresh', action: 'wait', requeueAfterMs: undefined };
  if (Number.isNaN(last) || last + interval <= now) return { row: 'P2-refresh-due', action: 'push' };
  return { row: 'P3-fresh', action: 'wait', requeueAfterMs: last + interval - now };
}

export const READY_SYNCED_MESSAGE = 'PushSecret synced successfully';

type EsoCondition = Omit<Condition, 'observedGeneration'>;

function ready(ps: PushSecret, status: 'True' | 'False', reason: string, message: string, now: number) {
  const conditions: EsoCondition[] = setCondition(
    ps.status?.conditions,
    { type: 'Ready', status, reason, message },
    new Date(now),
  );
  return conditions;
}

const isoSeconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** ESO's `markAsDone`: the only place syncedResourceVersion moves. */
export function syncedStatus(
  ps: PushSecret,
  synced: NonNullable<PushSecretStatus['syncedPushSecrets']>,
  now: number,
): PushSecretStatus {
  return {
    ...ps.status,
    refreshTime: isoSeconds(now),
    syncedResourceVersion: resourceVersionOf(ps),
    syncedPushSecrets: synced,
    conditions: ready(ps, 'True', 'Synced', READY_SYNCED_MESSAGE, now),
  };
}

/** ESO's `markAsFailed`: Ready False, reason Errored; syncedResourceVersion stays where it was. */
export function failedStatus(ps: PushSecret, message: string, now: number): PushSecretStatus {
  return { ...ps.status, conditions: ready(ps, 'False', 'Errored', message, now) };
}

/**
 * One reconcile pass of a bundled K-ORC actuator: observe → decide → act, repeated until a row ends the pass. Each
 * step re-reads the object, so every effect a step records (status.id, appliedPasswordRef) is persisted before the
 * next step builds on it, and a pass cut short anywhere resumes from what Keystone and the object hold.
 *
 * As K-ORC's ShouldReconcile, an object whose Progressing is False at its generation is left alone unless its
 * spec.resyncPeriod is due (K-ORC's operator default is no resync): the pass its own status write wakes asks
 * Keystone nothing, and a user deleted behind K-ORC's back is noticed on the next resync or spec change.
 */
import { getOptional, type Client } from '../../../kube/client.ts';
import { conditionUnchanged, setCondition } from '../../../kube/conditions.ts';
import type { Condition, KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import type { ReconcileContext, Request, Result } from '../../../runtime/types.ts';
import { isNotFound } from '../../../openstack/errors.ts';
import type { Random } from '../../../util/clock.ts';
import { parseGoDuration } from '../../../util/duration.ts';
import {
  korcConditionsFor,
  terminalAtGeneration,
  upToDateAtGeneration,
  writeFailure,
  type PassEnd,
} from './conditions.ts';
import { decide, decideFromObject, type Facts, type ObjectFacts } from './decide.ts';
import { defined } from '../../../util/defined.ts';

const FIELD_MANAGER = 'openregion-korc-actuator';

/** What a pass needs from the object and from Keystone; `korc` status keeps `conditions`, `id` and `resource`. */
interface KorcObject extends KubeObject {
  readonly spec: {
    readonly managementPolicy?: 'managed' | 'unmanaged' | undefined;
    readonly managedOptions?: { readonly onDelete?: 'delete' | 'detach' | undefined } | undefined;
    readonly resyncPeriod?: string | undefined;
  };
  readonly status?: {
    readonly conditions?: readonly Condition[];
    readonly id?: string;
    readonly resource?: Readonly<Record<string, unknown>>;
    readonly lastSyncTime?: string;
  };
}

/**
 * What `observe` found; `described` is status.resource of the resource it read by status.id, so the step that
 * reports it available does not read it again.
 */
type Observed = Omit<Facts, keyof ObjectFacts> & {
  readonly described?: Readonly<Record<string, unknown>>;
};

/** One kind's I/O: how to look it up, create and delete it in Keystone, and describe it in status.resource. */
export interface KindActuator<T extends KorcObject> {
  readonly type: ResourceType<T>;
  readonly finalizer: string;
  /** Facts except those the pass reads from the object itself (ObjectFacts). */
  observe(object: T): Promise<Observed>;
  /** The create's answer describes the resource: K-ORC reports it Available from that answer, without a read. */
  create(object: T): Promise<{ readonly id: string; readonly described: Readonly<Record<string, unknown>> }>;
  delete(object: T, id: string): Promise<void>;
  setPassword?(object: T, id: string): Promise<void>;
  /** status.resource as Keystone holds it now; the merge patch keeps fields it leaves out (appliedPasswordRef). */
  describe(object: T, id: string): Promise<Readonly<Record<string, unknown>>>;
}

interface PassOptions {
  readonly client: Client;
  /** How often an import whose filter matches nothing looks again. */
  readonly pollMs: number;
  /** The jitter of a resync's requeue (K-ORC adds 0–20 %); Math.random when absent. */
  readonly random?: Random;
}

/** Enough for the longest path (finalizer, create, record password ref, available) with room to spare. */
const MAX_STEPS = 8;

export async function runPass<T extends KorcObject>(
  kind: KindActuator<T>,
  options: PassOptions,
  req: Request,
  ctx: ReconcileContext,
): Promise<Result> {
  const { client } = options;
  for (let step = 0; step < MAX_STEPS; step++) {
    const object = await getOptional(client, kind.type, req.namespace, req.name);
    if (object === undefined) return {};
    const generation = object.metadata.generation ?? 0;
    const resync = resyncOf(object, ctx.clock.now());
    const next = (): Result =>
      resync.periodMs > 0 ? { requeueAfterMs: resync.periodMs * (1 + 0.2 * (options.random ?? Math.random)()) } : {};
    const end = async (e: PassEnd, extra: Readonly<Record<string, unknown>> = {}) =>
      writeStatus(client, kind.type, object, { ...extra, conditions: conditionsAfter(object, e, ctx) });
    const objectFacts: ObjectFacts = {
      deleting: object.metadata.deletionTimestamp !== undefined,
      hasFinalizer: (object.metadata.finalizers ?? []).includes(kind.finalizer),
      terminalAtGeneration: !resync.due && terminalAtGeneration(object.status?.conditions, generation),
      upToDateAtGeneration: !resync.due && upToDateAtGeneration(object.status?.conditions, generation),
      policy: object.spec.managementPolicy ?? 'managed',
      onDelete: object.spec.managedOptions?.onDelete ?? 'delete',
    };
    // Rows the object alone decides cost Keystone nothing: no lookup could change them.
    let decision = decideFromObject(objectFacts);
    let observed: Observed | undefined;
    if (decision === undefined) {
      try {
        observed = await kind.observe(object);
      } catch (error) {
        if (!objectFacts.deleting) {
          await end({ kind: 'transient', message: error instanceof Error ? error.message : String(error) });
        }
        throw error;
      }
      decision = decide({ ...observed, ...objectFacts });
    }
    const { row, action } = decision;
    ctx.log.debug({ row, action: action.kind, step }, 'korc decision');
    switch (action.kind) {
      case 'none':
        // Left alone until the resync is due, as K-ORC requeues an object ShouldReconcile skipped.
        return resync.remainingMs > 0 ? { requeueAfterMs: resync.remainingMs } : {};
      case 'addFinalizer':
        await setFinalizers(client, kind.type, object, [...(object.metadata.finalizers ?? []), kind.finalizer]);
        continue;
      case 'removeFinalizer':
        await setFinalizers(
          client,
          kind.type,
          object,
          (object.metadata.finalizers ?? []).filter((f) => f !== kind.finalizer),
        );
        return {};
      case 'delete':
        try {
          await kind.delete(object, action.id);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        continue;
      case 'adopt':
        await writeStatus(client, kind.type, object, { id: action.id });
        continue;
      case 'forget':
        await writeStatus(client, kind.type, object, { id: null });
        continue;
      case 'create': {
        let created: Awaited<ReturnType<KindActuator<T>['create']>>;
        try {
          created = await kind.create(object);
        } catch (error) {
          return failed(await endWith(end, writeFailure(error, 'creating')), error);
        }
        // As K-ORC, the create's answer is reported Available in the same pass, with the password ref the create
        // set (row P0 would record it one step later): one write, no read. A crash before it is found by name (M0).
        const ref = observed?.password?.ref;
        await end(
          { kind: 'available' },
          {
            id: created.id,
            resource: { ...created.described, ...defined({ appliedPasswordRef: ref }) },
            lastSyncTime: rfc3339(ctx.clock.now()),
          },
        );
        return next();
      }
      case 'recordPasswordRef':
        await writeStatus(client, kind.type, object, { resource: { appliedPasswordRef: action.ref } });
        continue;
      case 'setPassword':
        try {
          await kind.setPassword?.(object, action.id);
        } catch (error) {
          return failed(await endWith(end, writeFailure(error, 'updating')), error);
        }
        await writeStatus(client, kind.type, object, { resource: { appliedPasswordRef: action.ref } });
        continue;
      case 'wait':
        await end({ kind: 'wait', message: action.message });
        return action.poll ? { requeueAfterMs: options.pollMs } : {};
      case 'terminal':
        await end(action);
        return {};
      case 'available': {
        const resource = observed?.described ?? (await kind.describe(object, action.id));
        // A write that changed only lastSyncTime would wake this controller again, for ever; a resync records it.
        if (!resync.due && upToDate(object, resource)) return next();
        await end({ kind: 'available' }, { resource, lastSyncTime: rfc3339(ctx.clock.now()) });
        return next();
      }
    }
  }
  throw new Error(`${kind.type.kind} ${req.namespace}/${req.name}: no end after ${MAX_STEPS} steps`);
}

async function endWith(end: (e: PassEnd) => Promise<void>, e: PassEnd): Promise<PassEnd> {
  await end(e);
  return e;
}

/** A transient failure is rethrown for the runtime's backoff; a terminal one is latched and the pass is done. */
function failed(e: PassEnd, error: unknown): Result {
  if (e.kind === 'transient') throw error;
  return {};
}

/** Available already reported at this generation, and status.resource already holds what Keystone does. */
function upToDate(object: KorcObject, resource: Readonly<Record<string, unknown>>): boolean {
  const conditions = object.status?.conditions;
  const recorded = object.status?.resource ?? {};
  return (
    korcConditionsFor({ kind: 'available' }, object.metadata.generation ?? 0).every((c) =>
      conditionUnchanged(conditions, c),
    ) && Object.entries(resource).every(([k, v]) => recorded[k] === v)
  );
}

function conditionsAfter(object: KorcObject, e: PassEnd, ctx: ReconcileContext): Condition[] {
  const now = new Date(ctx.clock.now());
  let conditions: Condition[] = [...(object.status?.conditions ?? [])];
  for (const input of korcConditionsFor(e, object.metadata.generation ?? 0)) {
    conditions = setCondition(conditions, input, now);
  }
  return conditions;
}

/** A merge patch of status; `null` removes a field. */
async function writeStatus(
  client: Client,
  type: ResourceType,
  object: KubeObject,
  status: Readonly<Record<string, unknown>>,
): Promise<void> {
  await client.patch(
    type,
    object.metadata.namespace,
    object.metadata.name,
    { type: 'merge', patch: { status } },
    { subresource: 'status', fieldManager: FIELD_MANAGER },
  );
}

/** An update carrying the read resourceVersion, so a finalizer change never overwrites a newer object. */
async function setFinalizers(
  client: Client,
  type: ResourceType,
  object: KubeObject,
  finalizers: readonly string[],
): Promise<void> {
  await client.update(
    type,
    { ...object, metadata: { ...object.metadata, finalizers } },
    { fieldManager: FIELD_MANAGER },
  );
}

/** K-ORC's resync: spec.resyncPeriod (none when absent or 0s), due once lastSyncTime is that old or unset. */
function resyncOf(object: KorcObject, now: number): { periodMs: number; due: boolean; remainingMs: number } {
  const periodMs = Math.max(0, parseGoDuration(object.spec.resyncPeriod ?? '0') ?? 0);
  const last = Date.parse(object.status?.lastSyncTime ?? '');
  if (periodMs === 0) return { periodMs, due: false, remainingMs: 0 };
  if (Number.isNaN(last)) return { periodMs, due: true, remainingMs: 0 };
  const remainingMs = last + periodMs - now;
  return { periodMs, due: remainingMs <= 0, remainingMs: Math.max(0, remainingMs) };
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * The provisioner scaffold every region controller shares (unikorn core's Provision/Deprovision manager): read the
 * object fresh, decide with decide.ts, perform that one verdict. The finalizer goes on before the first provider
 * call and comes off only once the provider's delete reports done; the Available condition is this reconciler's
 * alone, written only when it changed, against the resourceVersion the pass read (optimistic concurrency).
 *
 * A thrown provider error is logged for operators through `toOperatorLog` (redacted cause chain) and the pass then
 * fails with a cause-free error, so the runtime backs off without ever logging or showing OpenStack's raw answer.
 */
import type { Client } from '../../kube/client.ts';
import { NotFoundError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { ReconcileContext, Request, Result } from '../../runtime/types.ts';
import type { CallContext } from '../provider/contract.ts';
import { toOperatorLog } from '../provider/messages.ts';
import type { Outcome } from '../provider/outcome.ts';
import {
  deprovisionVerdict,
  failureVerdict,
  missingLabelsVerdict,
  provisionVerdict,
  type Available,
  type Verdict,
} from './decide.ts';
import { ignoreRows, type Phase, type RowObserver } from './metrics.ts';
import { availableCondition, nextStatus, type ProvisionedStatus } from './status.ts';

/**
 * How a controller reaches one capability of a region's provider. Taking a capability rather than the whole
 * Provider lets a provider implementation grow one capability at a time.
 */
export type ProviderLookup<P> = (regionID: string, signal: AbortSignal) => Promise<P>;

/** unikorn core's finalizer, so resources an upstream controller provisioned are released by ours too. */
export const FINALIZER = 'unikorn';

export interface ProvisionedResource extends KubeObject {
  readonly spec: { readonly pause?: boolean | undefined };
  readonly status?: ProvisionedStatus | undefined;
}

/** The provider calls for one object, bound to the inputs built from it. */
export interface ProviderCalls<V> {
  provision(ctx: CallContext): Promise<Outcome<V>>;
  deprovision(ctx: CallContext): Promise<Outcome<undefined>>;
}

/** What one kind's controller plugs into the scaffold. */
export interface Provisioner<R extends ProvisionedResource, V> {
  readonly type: ResourceType;
  /** The calls for this object, or undefined when its labels cannot name its owner, region or identity. */
  bind(object: R): ProviderCalls<V> | undefined;
  /** Dependencies, checked before the finalizer and any provider call; a verdict ends the pass. */
  gate?(object: R, ctx: ReconcileContext): Promise<Verdict | undefined>;
  /** Checked before the provider's delete; a verdict holds the deletion. */
  holdDeletion?(object: R, ctx: ReconcileContext): Promise<Verdict | undefined>;
  /** Status fields besides conditions this reconciler owns, from a done provision. */
  realised?(value: V): Readonly<Record<string, unknown>>;
}

/** The cause-free error a pass fails with after a provider error, so the runtime retries with backoff. */
export class ProviderRetryError extends Error {
  readonly row: string;
  constructor(row: string) {
    super(`provider call failed (${row}); retrying with backoff`);
    this.name = 'ProviderRetryError';
    this.row = row;
  }
}

export async function reconcileProvisioned<R extends ProvisionedResource, V>(
  client: Client,
  provisioner: Provisioner<R, V>,
  req: Request,
  ctx: ReconcileContext,
  observe: RowObserver = ignoreRows,
): Promise<Result> {
  const object = await getOrUndefined<R>(client, provisioner.type, req.namespace, req.name);
  if (object === undefined) return {};
  if (object.spec.pause === true) {
    ctx.log.debug('reconciliation paused');
    return {};
  }
  const deleting = object.metadata.deletionTimestamp !== undefined;
  const io = new PassIo<R>(client, provisioner.type, ctx, deleting ? 'deprovision' : 'provision', observe);
  return deleting ? deprovision(provisioner, object, io) : provision(provisioner, object, io);
}

async function provision<R extends ProvisionedResource, V>(
  provisioner: Provisioner<R, V>,
  object: R,
  io: PassIo<R>,
): Promise<Result> {
  const { ctx } = io;
  const calls = provisioner.bind(object);
  if (calls === undefined) return io.settle(object, missingLabelsVerdict());
  const gated = await provisioner.gate?.(object, ctx);
  if (gated !== undefined) return io.settle(object, gated);
  const current = await io.setFinalizer(object, true);
  let owned: Readonly<Record<string, unknown>> = {};
  const verdict = await callProvider(ctx, 'provision', async () => {
    const outcome = await calls.provision({ signal: ctx.signal });
    logNotDone(ctx, 'provision', outcome);
    if (outcome.kind === 'done' && provisioner.realised !== undefined) owned = provisioner.realised(outcome.value);
    return provisionVerdict(outcome);
  });
  return io.settle(current, verdict, owned);
}

async function deprovision<R extends ProvisionedResource, V>(
  provisioner: Provisioner<R, V>,
  object: R,
  io: PassIo<R>,
): Promise<Result> {
  // Without our finalizer the provider never ran for this object (or has already released it): nothing to do.
  if (!(object.metadata.finalizers ?? []).includes(FINALIZER)) return {};
  const { ctx } = io;
  const held = await provisioner.holdDeletion?.(object, ctx);
  if (held !== undefined) return io.settle(object, held);
  const calls = provisioner.bind(object);
  if (calls === undefined) return io.settle(object, missingLabelsVerdict());
  const verdict = await callProvider(ctx, 'deprovision', async () => {
    const outcome = await calls.deprovision({ signal: ctx.signal });
    logNotDone(ctx, 'deprovision', outcome);
    return deprovisionVerdict(outcome);
  });
  return io.settle(object, verdict);
}

/** Runs a provider call (lookup included); a throw becomes the failure verdict, its cause an operator log line. */
async function callProvider(ctx: ReconcileContext, what: string, call: () => Promise<Verdict>): Promise<Verdict> {
  try {
    return await call();
  } catch (error) {
    const verdict = failureVerdict(error, ctx.signal.aborted);
    ctx.log.error({ provider: toOperatorLog(error), row: verdict.row }, `${what} failed`);
    return verdict;
  }
}

function logNotDone(ctx: ReconcileContext, what: string, outcome: Outcome<unknown>): void {
  if (outcome.kind === 'park' || outcome.kind === 'terminal') {
    ctx.log.warn({ provider: toOperatorLog(outcome) }, `${what} stopped: ${outcome.kind}`);
  }
}

/** The writes of a pass: the finalizer, and a verdict's status write (skipped when unchanged) and result. */
class PassIo<R extends ProvisionedResource> {
  readonly ctx: ReconcileContext;
  readonly #client: Client;
  readonly #type: ResourceType;
  readonly #phase: Phase;
  readonly #observe: RowObserver;

  constructor(client: Client, type: ResourceType, ctx: ReconcileContext, phase: Phase, observe: RowObserver) {
    this.ctx = ctx;
    this.#client = client;
    this.#type = type;
    this.#phase = phase;
    this.#observe = observe;
  }

  async settle(object: R, verdict: Verdict, owned: Readonly<Record<string, unknown>> = {}): Promise<Result> {
    this.ctx.log.debug({ phase: this.#phase, row: verdict.row, action: verdict.action }, 'pass decided');
    this.#observe(this.#phase, verdict.row);
    if (verdict.action === 'release') {
      await this.setFinalizer(object, false);
      return {};
    }
    await this.#write(object, verdict.available, owned);
    if (verdict.action === 'backoff') throw new ProviderRetryError(verdict.row);
    return verdict.requeueAfterMs === undefined ? {} : { requeueAfterMs: verdict.requeueAfterMs };
  }

  /** Adds or removes our finalizer; returns the object as stored (unchanged when there was nothing to do). */
  async setFinalizer(object: R, present: boolean): Promise<R> {
    const finalizers = object.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER) === present) return object;
    const next = present ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER);
    return this.#client.update<R>(this.#type, { ...object, metadata: { ...object.metadata, finalizers: next } });
  }

  async #write(object: R, available: Available, owned: Readonly<Record<string, unknown>>): Promise<void> {
    const input = availableCondition(available, object.metadata.generation);
    const status = nextStatus(object.status, input, this.ctx.clock.now(), owned);
    if (status === undefined) return;
    await this.#client.update<R>(this.#type, { ...object, status }, { subresource: 'status' });
  }
}

export async function getOrUndefined<R extends KubeObject>(
  client: Client,
  type: ResourceType,
  namespace: string,
  name: string,
): Promise<R | undefined> {
  try {
    return await client.get<R>(type, namespace, name);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

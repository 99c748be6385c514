/**
 * The provisioner scaffold every region controller shares (unikorn core's Provision/Deprovision manager): read the
 * object fresh, decide with decide.ts, perform that one verdict. The finalizer goes on before the first provider
 * call and comes off only once the provider's delete reports done; the Available condition is this reconciler's
 * alone, written only when it changed, against the resourceVersion the pass read (optimistic concurrency).
 *
 * A thrown provider error is logged for operators through `toOperatorLog` (redacted cause chain) and the pass then
 * fails with a cause-free error, so the runtime backs off without ever logging or showing OpenStack's raw answer.
 *
 * A kind plugs in through a Provisioner: how to bind one object to its provider calls, its gates, what a done
 * provision realises in status. A call that keeps status of its own (the server's create-retry count and its
 * rebuild-accepted stamp) returns it with its outcome, and may persist bookkeeping before a destructive call.
 */
import { isDeepStrictEqual } from 'node:util';
import { getOptional, type Client } from '../../kube/client.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { Manager } from '../../runtime/manager.ts';
import {
  ReportedFailure,
  type Logger,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '../../runtime/types.ts';
import type { Clock } from '../../util/clock.ts';
import { findCondition } from '../../kube/conditions.ts';
import type { Condition, KubeObject } from '../../kube/object.ts';
import { conditionReasons, conditionTypes, PROVISIONER_FINALIZER } from '../apis/shared.ts';
import type { CallContext, ProviderLookup } from '../provider/contract.ts';
import { ProviderError, QuotaExceededError, ResourceNotFoundError } from '../provider/errors.ts';
import { operatorSummary, toOperatorLog } from '../provider/messages.ts';
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

/** unikorn core's finalizer, so resources an upstream controller provisioned are released by ours too. */
export const FINALIZER = PROVISIONER_FINALIZER;

export interface ProvisionedResource extends KubeObject {
  readonly spec: { readonly pause?: boolean | undefined };
  readonly status?: ProvisionedStatus | undefined;
}

/** The status of a provisioned kind, `{}` before its first write. */
type StatusOf<R extends ProvisionedResource> = NonNullable<R['status']>;

/** What a provision call works with besides cancellation. */
export interface ProvisionContext<S> extends CallContext {
  readonly log: Logger;
  readonly clock: Clock;
  /** The status as this pass read it, or as it last persisted it. */
  readonly status: S;
  /**
   * This pass put the finalizer on, so no provider call was ever made for the object: nothing named for it can exist
   * yet, and a create may skip re-finding by name what it is about to make (ADR 0030).
   */
  readonly firstProvision: boolean;
  /** Writes `status` now, before the call it guards: bookkeeping a restart must neither lose nor repeat. */
  persist(status: S): Promise<void>;
  /** Records an Event about the object (kubectl describe shows it); never fails the pass. */
  event(type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

/**
 * What a provision call ended with: the provider's outcome and, for a call that keeps status fields of its own,
 * the status to write with it (Available and the realised fields are set on top).
 */
export interface Provisioned<V, S> {
  readonly outcome: Outcome<V>;
  readonly status?: S;
}

/** One pass's provider calls for one object, bound to the inputs built from it. */
interface Binding<P, V, S> {
  /** The region whose provider the calls go to. */
  readonly regionID: string;
  /** Dependencies, checked before the finalizer and any provider call; a verdict ends the pass. */
  gate?(ctx: ReconcileContext): Promise<Verdict | undefined>;
  provision(provider: P, ctx: ProvisionContext<S>): Promise<Provisioned<V, S>>;
  deprovision(provider: P, ctx: CallContext): Promise<Outcome<undefined>>;
}

/** What one kind's controller plugs into the scaffold. */
export interface Provisioner<R extends ProvisionedResource, P, V> {
  readonly type: ResourceType<R>;
  readonly lookup: ProviderLookup<P>;
  /** This pass's calls for the object, or undefined when its labels cannot name its owner, region or identity. */
  bind(object: R): Binding<P, V, StatusOf<R>> | undefined;
  /** Checked before the provider's delete; a verdict holds the deletion. */
  holdDeletion?(object: R, ctx: ReconcileContext): Promise<Verdict | undefined>;
  /** Status fields besides conditions this reconciler owns, from a done provision; undefined removes one. */
  realised?(value: V): Readonly<Record<string, unknown>>;
}

/** The cause-free error a pass fails with after a provider error (logged already), so the runtime backs off. */
export class ProviderRetryError extends ReportedFailure {
  readonly row: string;
  constructor(row: string) {
    super(`provider call failed (${row}); retrying with backoff`);
    this.row = row;
  }
}

export async function reconcileProvisioned<R extends ProvisionedResource, P, V>(
  client: Client,
  provisioner: Provisioner<R, P, V>,
  req: Request,
  ctx: ReconcileContext,
  observe: RowObserver = ignoreRows,
): Promise<Result> {
  const object = await getOptional(client, provisioner.type, req.namespace, req.name);
  if (object === undefined) return {};
  if (object.spec.pause === true) {
    ctx.log.debug('reconciliation paused');
    return {};
  }
  const deleting = object.metadata.deletionTimestamp !== undefined;
  const pass = new Pass(client, provisioner, object, ctx, deleting ? 'deprovision' : 'provision', observe);
  return deleting ? pass.deprovision() : pass.provision();
}

/** The reconciler a kind's controller completes with: each pass through the scaffold on the request's cluster. */
export function provisionerReconciler<R extends ProvisionedResource, P, V>(
  manager: Manager,
  provisionerFor: (client: Client) => Provisioner<R, P, V>,
  observe?: RowObserver,
): Reconciler {
  return (req, ctx) => {
    // Reads from the informers, as controller-runtime's cached client (runtime/cached-client.ts says what keeps a
    // lagging answer harmless); writes to the API server.
    const client = manager.cachedClient(req.cluster);
    return client === undefined
      ? Promise.resolve({})
      : reconcileProvisioned(client, provisionerFor(client), req, ctx, observe);
  };
}

/**
 * How loud a failed provider call is. A quota refusal (the tenant's to resolve; status says so) and a dependency
 * OpenStack does not list yet (a server created right after its network) are normal operation: info. Another
 * classified failure is an expected retry with backoff: warn. Anything else is a bug worth an error.
 */
function failureLevel(error: unknown): 'info' | 'warn' | 'error' {
  if (error instanceof QuotaExceededError || error instanceof ResourceNotFoundError) return 'info';
  return error instanceof ProviderError ? 'warn' : 'error';
}

/** Logs a park or terminal outcome's operator-only detail; the tenant sees only its fixed message. */
export function logStopped(log: Logger, what: string, outcome: Outcome<unknown>): void {
  if (outcome.kind === 'park' || outcome.kind === 'terminal') {
    log.warn({ provider: toOperatorLog(outcome) }, `${what} stopped: ${outcome.kind}`);
  }
}

/** One pass over one object: its steps, and its writes (the finalizer, persisted bookkeeping, the verdict). */
class Pass<R extends ProvisionedResource, P, V> {
  readonly #client: Client;
  readonly #provisioner: Provisioner<R, P, V>;
  readonly #ctx: ReconcileContext;
  readonly #phase: Phase;
  readonly #observe: RowObserver;
  /** The object as stored: updated by every write of this pass, so each carries the resourceVersion it follows. */
  #object: R;
  /** The provider's own row behind a yield, park or terminal (a server's `R4″/accepted`), for the Event. */
  #decidedBy: string | undefined;

  constructor(
    client: Client,
    provisioner: Provisioner<R, P, V>,
    object: R,
    ctx: ReconcileContext,
    phase: Phase,
    observe: RowObserver,
  ) {
    this.#client = client;
    this.#provisioner = provisioner;
    this.#object = object;
    this.#ctx = ctx;
    this.#phase = phase;
    this.#observe = observe;
  }

  async provision(): Promise<Result> {
    const binding = this.#provisioner.bind(this.#object);
    if (binding === undefined) return this.#settle(missingLabelsVerdict());
    const gated = await binding.gate?.(this.#ctx);
    if (gated !== undefined) return this.#settle(gated);
    const firstProvision = await this.#setFinalizer(true);
    let status: StatusOf<R> | undefined;
    let owned: Readonly<Record<string, unknown>> = {};
    const verdict = await this.#call(binding.regionID, async (provider) => {
      const provisioned = await binding.provision(provider, this.#provisionContext(firstProvision));
      const { outcome } = provisioned;
      this.#decidedBy = outcome.kind === 'done' ? undefined : outcome.reason;
      logStopped(this.#ctx.log, 'provision', outcome);
      await this.#eventStopped(outcome);
      status = provisioned.status;
      if (outcome.kind === 'done' && this.#provisioner.realised !== undefined) {
        owned = this.#provisioner.realised(outcome.value);
      }
      return provisionVerdict(outcome);
    });
    return this.#settle(verdict, owned, status);
  }

  async deprovision(): Promise<Result> {
    // Without our finalizer the provider never ran for this object (or has already released it): nothing to do.
    if (!(this.#object.metadata.finalizers ?? []).includes(FINALIZER)) return {};
    const held = await this.#provisioner.holdDeletion?.(this.#object, this.#ctx);
    if (held !== undefined) return this.#settle(held);
    const binding = this.#provisioner.bind(this.#object);
    if (binding === undefined) return this.#settle(missingLabelsVerdict());
    const verdict = await this.#call(binding.regionID, async (provider) => {
      const outcome = await binding.deprovision(provider, { signal: this.#ctx.signal });
      this.#decidedBy = outcome.kind === 'done' ? undefined : outcome.reason;
      logStopped(this.#ctx.log, 'deprovision', outcome);
      await this.#eventStopped(outcome);
      return deprovisionVerdict(outcome);
    });
    return this.#settle(verdict);
  }

  /** Looks the provider up and runs `call`; a throw becomes the failure verdict, its cause an operator log line. */
  async #call(regionID: string, call: (provider: P) => Promise<Verdict>): Promise<Verdict> {
    try {
      return await call(await this.#provisioner.lookup(regionID, this.#ctx.signal));
    } catch (error) {
      const verdict = failureVerdict(error, this.#ctx.signal.aborted);
      const level = failureLevel(error);
      this.#ctx.log[level]({ provider: toOperatorLog(error), row: verdict.row }, `${this.#phase} failed`);
      await this.#event(
        'Warning',
        this.#phase === 'provision' ? 'ProvisionFailed' : 'DeprovisionFailed',
        error,
        verdict.row,
      );
      return verdict;
    }
  }

  /** A park or terminal outcome, or a yield carrying the pass's error, as a Warning Event with its operator detail. */
  async #eventStopped(outcome: Outcome<unknown>): Promise<void> {
    if (outcome.kind === 'yield' && outcome.error !== undefined) {
      const failed = this.#phase === 'provision' ? 'ProvisionFailed' : 'DeprovisionFailed';
      await this.#event('Warning', failed, outcome.error, `${outcome.reason}/${outcome.error.code}`);
      return;
    }
    if (outcome.kind !== 'park' && outcome.kind !== 'terminal') return;
    const stage = this.#phase === 'provision' ? 'Provision' : 'Deprovision';
    const row = `${outcome.kind}/${outcome.reason}`;
    await this.#event('Warning', outcome.kind === 'park' ? `${stage}Parked` : `${stage}Stopped`, outcome, row);
  }

  async #event(type: 'Normal' | 'Warning', reason: string, failure: unknown, row: string): Promise<void> {
    await this.#ctx.events?.record(this.#object, type, reason, withRow(operatorSummary(failure), row));
  }

  #provisionContext(firstProvision: boolean): ProvisionContext<StatusOf<R>> {
    const { signal, log, clock } = this.#ctx;
    const current = () => this.#status();
    return {
      signal,
      log,
      clock,
      firstProvision,
      get status() {
        return current();
      },
      persist: async (status) => {
        if (!isSame(this.#object.status, status)) await this.#writeStatus(status);
      },
      event: async (type, reason, message) => {
        await this.#ctx.events?.record(this.#object, type, reason, message);
      },
    };
  }

  /** Logs and counts the verdict, then performs it: the finalizer's release, or the status write and the result. */
  async #settle(
    verdict: Verdict,
    owned: Readonly<Record<string, unknown>> = {},
    status: StatusOf<R> = this.#status(),
  ): Promise<Result> {
    this.#ctx.log.debug({ phase: this.#phase, row: verdict.row, action: verdict.action }, 'pass decided');
    this.#observe(this.#phase, verdict.row);
    if (verdict.action === 'release') {
      await this.#setFinalizer(false);
      await this.#ctx.events?.record(
        this.#object,
        'Normal',
        'Deprovisioned',
        withRow('the provider released the resource; the finalizer is removed', verdict.row),
      );
      return {};
    }
    const before = findCondition(this.#object.status?.conditions, conditionTypes.available);
    await this.#writeAvailable(verdict.available, owned, status);
    await this.#eventAvailable(verdict, before);
    if (verdict.action === 'backoff') throw new ProviderRetryError(verdict.row);
    return verdict.requeueAfterMs === undefined ? {} : { requeueAfterMs: verdict.requeueAfterMs };
  }

  /**
   * The Available condition's change as an Event naming the row that decided it, so `describe` shows the trail
   * (Provisioning, Provisioned, DependencyNotReady …). A failure, park or terminal has its own Warning already;
   * an unchanged condition records nothing.
   */
  async #eventAvailable(verdict: Verdict & { action: 'report' | 'backoff' }, before: Condition | undefined) {
    if (verdict.action === 'backoff' || verdict.row === 'park' || verdict.row === 'terminal') return;
    const { status, reason, message } = verdict.available;
    if (before?.status === status && before.reason === reason && before.message === message) return;
    const type =
      reason === conditionReasons.errored || reason === conditionReasons.dependencyFailed ? 'Warning' : 'Normal';
    const row = this.#decidedBy === undefined ? verdict.row : `${verdict.row}/${this.#decidedBy}`;
    await this.#ctx.events?.record(this.#object, type, reason, withRow(message, row));
  }

  #status(): StatusOf<R> {
    return this.#object.status ?? {};
  }

  /**
   * Adds or removes our finalizer; nothing to do when it already is as asked. True when this call wrote it: the
   * write carries the resourceVersion the pass read, so two passes can never both believe they added it.
   */
  async #setFinalizer(present: boolean): Promise<boolean> {
    const object = this.#object;
    const finalizers = object.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER) === present) return false;
    const next = present ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER);
    this.#object = await this.#client.update(this.#provisioner.type, {
      ...object,
      metadata: { ...object.metadata, finalizers: next },
    });
    return true;
  }

  /** The Available condition on top of `status` and the owned fields; no write when that changes nothing. */
  async #writeAvailable(available: Available, owned: Readonly<Record<string, unknown>>, status: StatusOf<R>) {
    const condition = availableCondition(available, this.#object.metadata.generation);
    const next = nextStatus(this.#object.status, condition, this.#ctx.clock.now(), owned, status);
    if (next !== undefined) await this.#writeStatus(next);
  }

  async #writeStatus(status: StatusOf<R>): Promise<void> {
    this.#object = await this.#client.update(
      this.#provisioner.type,
      { ...this.#object, status },
      { subresource: 'status' },
    );
  }
}

/** An Event's message with the decision row that produced it. */
const withRow = (message: string, row: string): string => `${message} (row ${row})`;

// Deep equality ignores key order: a real API server hands objects back with their keys sorted.
const isSame = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

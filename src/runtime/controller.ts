/**
 * A controller: the watches that turn object events into requests, a work queue, and workers that run the
 * reconciler. The manager attaches the watches to its caches; the controller only maps, filters and reconciles.
 */
import type { Logger } from 'pino';
import { isKubeRace } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import type { Clock, Random } from '../util/clock.ts';
import { contextOf, TRACEPARENT_ANNOTATION, withSpan } from '../util/tracing.ts';
import { requestLogger } from './logger.ts';
import type { ReconcileResultLabel, RuntimeMetrics } from './metrics.ts';
import type { ObjectEvent, Predicate } from './predicates.ts';
import type { Scheduler } from './scheduler.ts';
import { ReportedFailure, requestKey, type EventSink, type Reconciler, type Request } from './types.ts';
import { WorkQueue, type BackoffOptions } from './workqueue.ts';

/** Maps an event's object to the requests it should wake; each request names its own cluster. */
export type Mapper<T extends KubeObject = KubeObject> = (object: T, event: ObjectEvent<T>) => readonly Request[];

export interface WatchOptions {
  /** Every predicate must pass for the event to be mapped. */
  readonly predicates?: readonly Predicate[];
  /** 'all' (default): the management cluster and every engaged target; 'management': the management cluster only. */
  readonly clusters?: 'all' | 'management';
  /** On a target cluster, skip this watch when the cluster does not serve the kind (its other watches still run). */
  readonly clusterServesKind?: boolean;
}

export interface Watch {
  readonly type: ResourceType;
  readonly source: 'for' | 'owns' | 'watches';
  readonly predicates: readonly Predicate[];
  readonly clusters: 'all' | 'management';
  readonly clusterServesKind: boolean;
  readonly map: (event: ObjectEvent) => Request[];
}

export interface ControllerOptions {
  readonly maxConcurrentReconciles?: number;
  readonly backoff?: Partial<BackoffOptions>;
  /** How long `stop` waits for passes in flight before aborting their signals. Default 30 s. */
  readonly drainTimeoutMs?: number;
}

interface ControllerDeps {
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: RuntimeMetrics;
  readonly random: Random;
  /** Whether a cluster is still engaged: a failed pass for a disengaged one is not retried. */
  readonly isEngaged: (cluster: string) => boolean;
  /** The Event sink of an engaged cluster. */
  readonly events?: (cluster: string) => EventSink | undefined;
  /** The cached object a request names (its trace annotation continues the trace of the request that created it). */
  readonly cached?: (type: ResourceType, req: Request) => KubeObject | undefined;
}

interface InFlight {
  readonly req: Request;
  readonly abort: AbortController;
}

export class Controller {
  readonly name: string;
  readonly watches: readonly Watch[];
  readonly #reconciler: Reconciler;
  readonly #options: ControllerOptions;
  readonly #deps: ControllerDeps;
  readonly #inFlight = new Map<string, InFlight>();
  /** The kind the controller reconciles (its `for` watch), named on every line of a pass. */
  readonly #forType: ResourceType | undefined;
  #queue: WorkQueue<Request> | undefined;

  constructor(
    name: string,
    watches: readonly Watch[],
    reconciler: Reconciler,
    options: ControllerOptions,
    deps: ControllerDeps,
  ) {
    this.name = name;
    this.watches = watches;
    this.#reconciler = reconciler;
    this.#options = options;
    this.#deps = deps;
    this.#forType = watches.find((watch) => watch.source === 'for')?.type;
    deps.metrics.initController(name);
  }

  /** The running queue (undefined while stopped); exposed for metrics and tests. */
  get queue(): WorkQueue<Request> | undefined {
    return this.#queue;
  }

  get running(): boolean {
    return this.#queue !== undefined;
  }

  /** Filters an event through the watch's predicates, maps it and queues the requests. */
  handle(watch: Watch, event: ObjectEvent): void {
    if (this.#queue === undefined) return;
    if (!watch.predicates.every((p) => p(event))) return;
    // An update maps both its old and new object; one event must not become two passes of the same request.
    const requests = new Map(watch.map(event).map((req) => [requestKey(req), req]));
    for (const req of requests.values()) this.#queue.add(req);
  }

  enqueue(req: Request): void {
    this.#queue?.add(req);
  }

  start(): void {
    if (this.#queue !== undefined) return;
    const queue = new WorkQueue<Request>({
      keyOf: requestKey,
      scheduler: this.#deps.scheduler,
      random: this.#deps.random,
      observer: this.#deps.metrics.queueObserver(this.name),
      ...(this.#options.backoff === undefined ? {} : { backoff: this.#options.backoff }),
    });
    this.#queue = queue;
    const workers = Math.max(1, this.#options.maxConcurrentReconciles ?? 1);
    for (let i = 0; i < workers; i++) void this.#work(queue);
  }

  /** Stops taking work and drains passes in flight; true when they all finished before the deadline. */
  async stop(): Promise<boolean> {
    const queue = this.#queue;
    if (queue === undefined) return true;
    this.#queue = undefined;
    const drained = await queue.shutDownWithDrain(this.#options.drainTimeoutMs ?? 30_000);
    if (!drained) for (const pass of this.#inFlight.values()) pass.abort.abort(new Error('controller stopped'));
    return drained;
  }

  /** Forgets every request for a disengaged cluster and aborts its passes in flight. */
  dropCluster(cluster: string): void {
    this.#queue?.drop((req) => req.cluster === cluster);
    for (const pass of this.#inFlight.values()) {
      if (pass.req.cluster === cluster) pass.abort.abort(new Error(`cluster "${cluster}" disengaged`));
    }
  }

  async #work(queue: WorkQueue<Request>): Promise<void> {
    for (;;) {
      const req = await queue.get();
      if (req === undefined) return;
      try {
        await this.#process(queue, req);
      } finally {
        queue.done(req);
      }
    }
  }

  async #process(queue: WorkQueue<Request>, req: Request): Promise<void> {
    const { clock, metrics } = this.#deps;
    const key = requestKey(req);
    const abort = new AbortController();
    this.#inFlight.set(key, { req, abort });
    const log = requestLogger(this.#deps.log, req, this.name, this.#forType?.kind);
    const started = clock.now();
    let result: ReconcileResultLabel = 'success';
    try {
      const events = this.#deps.events?.(req.cluster);
      const object = this.#forType === undefined ? undefined : this.#deps.cached?.(this.#forType, req);
      const outcome = await withSpan(
        `reconcile ${this.name}`,
        {
          attributes: {
            'openregion.controller': this.name,
            ...(this.#forType === undefined ? {} : { 'k8s.object.kind': this.#forType.kind }),
            'k8s.namespace.name': req.namespace,
            'k8s.object.name': req.name,
          },
          parent: causeOf(object),
        },
        () => this.#reconciler(req, { signal: abort.signal, log, clock, events }),
      );
      queue.forget(req);
      const after = outcome.requeueAfterMs;
      if (after !== undefined && after > 0) {
        result = 'requeue_after';
        queue.addAfter(req, after);
      }
    } catch (error) {
      result = 'error';
      if (error instanceof ReportedFailure) log.debug({ reason: error.message }, 'retrying with backoff');
      else if (isKubeRace(error)) log.warn({ reason: error.message }, 'reconcile lost a race; retrying');
      else log.error({ err: error }, 'reconcile failed');
      if (!abort.signal.aborted && this.#deps.isEngaged(req.cluster)) queue.addRateLimited(req);
    } finally {
      this.#inFlight.delete(key);
      const seconds = (clock.now() - started) / 1000;
      metrics.observeReconcile(this.name, seconds, result);
      log.debug({ result, seconds }, 'reconciled');
    }
  }
}

/**
 * The trace a reconcile of `object` belongs to: the create's (its traceparent annotation) until the object first
 * reports Available or Ready, so a provisioning reads as one trace; after that each pass starts its own.
 */
export function causeOf(object: KubeObject | undefined): Context {
  const traceparent = object?.metadata.annotations?.[TRACEPARENT_ANNOTATION];
  if (traceparent === undefined) return ROOT_CONTEXT;
  const conditions = (object as { status?: { conditions?: readonly { type: string; status: string }[] } }).status
    ?.conditions;
  const settled = conditions?.some((c) => (c.type === 'Available' || c.type === 'Ready') && c.status === 'True');
  return settled === true ? ROOT_CONTEXT : contextOf({ traceparent });
}

/** The owner named by an object's controller reference, when it is of `ownerType`. */
export function controllerOwner(object: KubeObject, ownerType: ResourceType): string | undefined {
  for (const ref of object.metadata.ownerReferences ?? []) {
    if (ref.controller !== true || ref.kind !== ownerType.kind) continue;
    const slash = ref.apiVersion.indexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    if (group === ownerType.group) return ref.name;
  }
  return undefined;
}

/** The objects an event concerns: an update maps both the old and the new version. */
export function eventObjects(event: ObjectEvent): KubeObject[] {
  return event.oldObject === undefined ? [event.object] : [event.oldObject, event.object];
}

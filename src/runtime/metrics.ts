/**
 * Metrics on a registry of the runtime's own (never prom-client's global one, so two managers in one test process do
 * not collide): controller-runtime's reconcile and work-queue series, and the c5c3 operator's sub-reconciler
 * instrumenter, named and labelled as docs/spec/keystoneuser-reconciler.md §Metrics Instrumentation names them.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { KubeObject } from '../kube/object.ts';
import type { Clock } from '../util/clock.ts';
import type { QueueObserver } from './workqueue.ts';

/** A reconciled object and its kind, as a scrape counts them. */
export interface CountedObject {
  readonly kind: string;
  readonly object: KubeObject;
}

/** A deletion still waiting on finalizers after this long is one an operator looks at. */
const STUCK_DELETION_MS = 15 * 60_000;

/** The condition an object's health reads from: the region kinds' Available, the Keystone orders' Ready. */
const HEALTH_CONDITIONS = ['Available', 'Ready'] as const;

/** controller-runtime's reconcile_time_seconds buckets. */
const reconcileTimeBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

export type ReconcileResultLabel = 'success' | 'error' | 'requeue_after';

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly queueDepth: Gauge<'name'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly leaderStatus: Gauge<'name'>;

  constructor(registry: Registry = new Registry()) {
    this.registry = registry;
    const registers = [registry];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: reconcileTimeBuckets,
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name'],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers,
    });
  }

  /** Adds the process series (CPU, memory, event loop lag, GC) a served process exposes; call once per process. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * `openregion_build_info{version,node_version} 1`: which build a process runs, joinable onto any other series
   * (the `*_build_info` convention).
   */
  buildInfo(version: string, nodeVersion: string): void {
    const name = 'openregion_build_info';
    const gauge =
      (this.registry.getSingleMetric(name) as Gauge<'version' | 'node_version'> | undefined) ??
      new Gauge({
        name,
        help: 'A metric with a constant 1 value labelled by the version openregion was built from and its Node.js',
        labelNames: ['version', 'node_version'],
        registers: [this.registry],
      });
    gauge.set({ version, node_version: nodeVersion }, 1);
  }

  /**
   * Gauges read from the caches at each scrape: `openregion_objects{kind,condition,status,reason}` (objects by
   * their Available, else Ready, condition; `none` before one is written) and `openregion_stuck_deletions{kind}`
   * (deletionTimestamp older than `stuckAfterMs`: a finalizer that is not coming off). Call once per registry.
   */
  countObjects(objects: () => Iterable<CountedObject>, clock: Clock, stuckAfterMs = STUCK_DELETION_MS): void {
    // A registry shared by a second manager (tests) keeps the first one's source.
    if (this.registry.getSingleMetric('openregion_objects') !== undefined) return;
    new Gauge({
      name: 'openregion_objects',
      help: 'Reconciled objects by kind and the status and reason of their Available (else Ready) condition',
      labelNames: ['kind', 'condition', 'status', 'reason'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { kind, object } of objects()) this.inc(healthLabels(kind, object));
      },
    });
    new Gauge({
      name: 'openregion_stuck_deletions',
      help: `Objects whose deletion has waited on finalizers for more than ${String(stuckAfterMs / 1000)} s, by kind`,
      labelNames: ['kind'],
      registers: [this.registry],
      collect() {
        this.reset();
        const now = clock.now();
        const kinds = new Set<string>();
        for (const { kind, object } of objects()) {
          kinds.add(kind);
          const since = object.metadata.deletionTimestamp;
          if (since !== undefined && now - Date.parse(since) > stuckAfterMs) this.inc({ kind });
          else this.inc({ kind }, 0);
        }
        if (kinds.size === 0) this.set(0);
      },
    });
  }

  /** Starts a controller's series at zero, so a scrape shows them before the first reconcile. */
  initController(controller: string): void {
    for (const result of ['success', 'error', 'requeue_after'] as const)
      this.reconcileTotal.inc({ controller, result }, 0);
    this.reconcileErrors.inc({ controller }, 0);
  }

  queueObserver(name: string): QueueObserver {
    this.queueDepth.set({ name }, 0);
    this.queueAdds.inc({ name }, 0);
    this.queueRetries.inc({ name }, 0);
    return {
      depth: (depth) => {
        this.queueDepth.set({ name }, depth);
      },
      add: () => {
        this.queueAdds.inc({ name });
      },
      retry: () => {
        this.queueRetries.inc({ name });
      },
    };
  }

  observeReconcile(controller: string, seconds: number, result: ReconcileResultLabel): void {
    this.reconcileTime.observe({ controller }, seconds);
    this.reconcileTotal.inc({ controller, result });
    if (result === 'error') this.reconcileErrors.inc({ controller });
  }
}

function healthLabels(kind: string, object: KubeObject): Record<'kind' | 'condition' | 'status' | 'reason', string> {
  const conditions = (
    object as { status?: { conditions?: readonly { type: string; status: string; reason?: string }[] } }
  ).status?.conditions;
  for (const type of HEALTH_CONDITIONS) {
    const condition = conditions?.find((c) => c.type === type);
    if (condition !== undefined)
      return { kind, condition: type, status: condition.status, reason: condition.reason ?? '' };
  }
  return { kind, condition: 'none', status: 'Unknown', reason: '' };
}

/**
 * The histogram buckets of docs/spec/keystoneuser-reconciler.md §Metrics Instrumentation for
 * c5c3_operator_reconcile_duration_seconds.
 */
const subReconcilerBuckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The c5c3 operator's instrumenter: every sub-reconciler step observes its duration (on every path, a throw
 * included) and counts an error only when the step throws; `condition_type` comes from the name→condition map, and
 * an unmapped name reads UNKNOWN.
 */
export class Instrumenter {
  readonly #duration: Histogram<'sub_reconciler'>;
  readonly #errors: Counter<'sub_reconciler' | 'condition_type'>;
  readonly #conditionTypes: ReadonlyMap<string, string>;
  readonly #clock: Clock;

  constructor(registry: Registry, conditionTypes: ReadonlyMap<string, string>, clock: Clock) {
    this.#conditionTypes = conditionTypes;
    this.#clock = clock;
    this.#duration = new Histogram({
      name: 'c5c3_operator_reconcile_duration_seconds',
      help: 'Duration of each sub-reconciler step',
      labelNames: ['sub_reconciler'],
      buckets: subReconcilerBuckets,
      registers: [registry],
    });
    this.#errors = new Counter({
      name: 'c5c3_operator_reconcile_errors_total',
      help: 'Sub-reconciler steps that returned an error',
      labelNames: ['sub_reconciler', 'condition_type'],
      registers: [registry],
    });
  }

  conditionTypeOf(subReconciler: string): string {
    return this.#conditionTypes.get(subReconciler) ?? 'UNKNOWN';
  }

  async instrument<T>(subReconciler: string, step: () => Promise<T>): Promise<T> {
    const started = this.#clock.now();
    try {
      return await step();
    } catch (error) {
      this.#errors.inc({ sub_reconciler: subReconciler, condition_type: this.conditionTypeOf(subReconciler) });
      throw error;
    } finally {
      this.#duration.observe({ sub_reconciler: subReconciler }, (this.#clock.now() - started) / 1000);
    }
  }
}

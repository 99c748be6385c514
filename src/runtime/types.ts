/**
 * The reconciler contract, as controller-runtime has it: a reconciler is a function of one request, and the runtime
 * owns queueing, backoff, concurrency, watches and metrics.
 */
import type { Logger } from 'pino';
import type { KubeObject } from '../kube/object.ts';
import type { Clock } from '../util/clock.ts';

export type { Logger } from 'pino';

/** The object to reconcile. `cluster` is '' for the management cluster, else a registered target's name. */
export interface Request {
  readonly cluster: string;
  readonly namespace: string;
  readonly name: string;
}

/** `{}` means done until the next event; `requeueAfterMs` asks for another pass after that long. */
export interface Result {
  readonly requeueAfterMs?: number;
}

export interface ReconcileContext {
  /** Aborts when the manager shuts down past its drain deadline or the request's cluster is disengaged. */
  readonly signal: AbortSignal;
  /** Carries the request's cluster, namespace and name. */
  readonly log: Logger;
  readonly clock: Clock;
  /** Where Events about the reconciled objects go (what `kubectl describe` shows); absent where none are kept. */
  readonly events?: EventSink | undefined;
}

/** Records a core/v1 Event about an object; resolves once written or dropped, never rejects. */
export interface EventSink {
  record(involved: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
}

export type Reconciler = (req: Request, ctx: ReconcileContext) => Promise<Result>;

/**
 * Thrown by a reconciler whose pass failed for a reason it has already logged (and recorded as an Event): the
 * runtime backs off and retries as for any throw, without reporting the failure a second time.
 */
export class ReportedFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The queue key: cluster, namespace and name joined by NUL, which none of them can contain. */
export function requestKey(req: Request): string {
  return `${req.cluster}\u0000${req.namespace}\u0000${req.name}`;
}

export const MANAGEMENT_CLUSTER = '';

/**
 * The requeue intervals the order kinds share and the pass result. A pass keeps the shortest requeue any step asked
 * for; an order that is not both converged and on the management cluster comes back after 10 minutes at the
 * latest, because no watch reaches a target cluster's order from the ControlPlane and some refusals have no event.
 */
import type { Result } from '../../runtime/types.ts';
import { MANAGEMENT_CLUSTER } from '../../runtime/types.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Waiting on K-ORC, ESO, the ControlPlane or a teardown still listing children. */
export const KORC_REQUEUE_AFTER_MS = 10 * SECOND;
/** A namespace that is not assigned (the freeze). */
export const NAMESPACE_ASSIGNMENT_REQUEUE_AFTER_MS = MINUTE;
/** A teardown or rotation held by orders that reference this one. */
export const REFERENCE_HOLD_REQUEUE_AFTER_MS = MINUTE;
/** The refresh of every order that is not a converged order on the management cluster. */
const ORDER_REFRESH_AFTER_MS = 10 * MINUTE;
/** Right after the finalizer is installed: the next pass does the work. */
export const NEXT_PASS_REQUEUE_AFTER_MS = SECOND;

/** The shortest non-zero requeue of `results`; `{}` when none asks for one. */
export function shortestRequeue(...results: readonly Result[]): Result {
  const delays = results.map((r) => r.requeueAfterMs).filter((ms): ms is number => ms !== undefined && ms > 0);
  return delays.length === 0 ? {} : { requeueAfterMs: Math.min(...delays) };
}

type PassRow = 'converged-on-management' | 'refresh';

/** The base result before the steps' own requeues: a converged management order waits for its timer or an event. */
export function orderPassResult(cluster: string, converged: boolean): { row: PassRow; result: Result } {
  return converged && cluster === MANAGEMENT_CLUSTER
    ? { row: 'converged-on-management', result: {} }
    : { row: 'refresh', result: { requeueAfterMs: ORDER_REFRESH_AFTER_MS } };
}

/** The pass result: the shorter of the base result and every step's requeue (the password timer, a held rotation). */
export function passResult(cluster: string, converged: boolean, steps: readonly Result[]): Result {
  return shortestRequeue(orderPassResult(cluster, converged).result, ...steps);
}

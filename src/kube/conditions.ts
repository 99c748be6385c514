/** Conditions as Kubernetes' meta.SetStatusCondition handles them: a no-op write keeps lastTransitionTime. */
import type { Condition } from './object.ts';

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/**
 * The conditions with `input` set. lastTransitionTime moves only when the status flips; a change of reason,
 * message or observedGeneration alone keeps it, so "since when" stays true.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date,
): Condition[] {
  const list = [...(conditions ?? [])];
  const at = list.findIndex((c) => c.type === input.type);
  const existing = at >= 0 ? list[at] : undefined;
  const lastTransitionTime =
    existing && existing.status === input.status
      ? existing.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next: Condition = { ...input, lastTransitionTime };
  if (existing === undefined) list.push(next);
  else list[at] = next;
  return list;
}

export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** True when setting `input` would change nothing: the write can be skipped. */
export function conditionUnchanged(conditions: readonly Condition[] | undefined, input: ConditionInput): boolean {
  const c = findCondition(conditions, input.type);
  return (
    c !== undefined &&
    c.status === input.status &&
    c.reason === input.reason &&
    c.message === input.message &&
    c.observedGeneration === input.observedGeneration
  );
}

export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

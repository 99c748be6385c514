/**
 * The order's status as one pass leaves it: the step conditions set (a no-op keeps lastTransitionTime), Ready
 * re-derived from them, observedGeneration, and the fields the steps set. The write is skipped when nothing moved.
 */
import { isConditionTrue, setCondition, type ConditionInput } from '../../kube/conditions.ts';
import type { KeystoneUserStatus } from '../apis/keystoneuser.ts';
import {
  CONDITION_DELIVERY_READY,
  CONDITION_READY,
  CONDITION_USER_READY,
  NOT_READY_MESSAGE,
  READY_MESSAGE,
  reasons,
} from './constants.ts';
import { defined } from '../../util/defined.ts';

/** Status fields a step sets; `null` removes one (nextPasswordRotation once the schedule is off). */
export type StatusFields = { readonly [K in keyof KeystoneUserStatus]?: KeystoneUserStatus[K] | null };

export function nextStatus(
  current: KeystoneUserStatus | undefined,
  conditions: readonly ConditionInput[],
  fields: StatusFields,
  generation: number | undefined,
  now: number,
): KeystoneUserStatus {
  const at = new Date(now);
  let list = [...(current?.conditions ?? [])];
  for (const input of conditions) list = setCondition(list, input, at);
  const ready = isConditionTrue(list, CONDITION_USER_READY) && isConditionTrue(list, CONDITION_DELIVERY_READY);
  list = setCondition(
    list,
    {
      type: CONDITION_READY,
      status: ready ? 'True' : 'False',
      reason: ready ? reasons.allReady : reasons.notAllReady,
      message: ready ? READY_MESSAGE : NOT_READY_MESSAGE,
      ...defined({ observedGeneration: generation }),
    },
    at,
  );
  const merged = Object.fromEntries(
    Object.entries({ ...current, ...fields }).filter(([, value]) => value !== null),
  ) as KeystoneUserStatus;
  return {
    ...merged,
    conditions: list,
    ...defined({ observedGeneration: generation }),
  };
}

/** Semantic equality of two statuses (key order aside). */
export function sameStatus(a: KeystoneUserStatus | undefined, b: KeystoneUserStatus | undefined): boolean {
  return canonical(a ?? {}) === canonical(b ?? {});
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

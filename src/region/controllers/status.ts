/**
 * The status a pass writes, computed without I/O: the Available condition (Kubernetes' SetStatusCondition
 * semantics) plus any status fields the reconciler owns. `undefined` means the write would change nothing and is
 * skipped, so a level-triggered pass that learns nothing new never churns the object.
 */
import { isDeepStrictEqual } from 'node:util';
import { setCondition, type ConditionInput } from '../../kube/conditions.ts';
import type { Condition } from '../../kube/object.ts';
import { conditionTypes } from '../apis/shared.ts';
import type { Available } from './decide.ts';
import { defined } from '../../util/defined.ts';

/** The status shape every provisioned region kind shares: conditions, and fields its reconciler owns. */
export interface ProvisionedStatus {
  readonly conditions?: readonly Condition[];
  readonly [field: string]: unknown;
}

export function availableCondition(available: Available, generation: number | undefined): ConditionInput {
  return {
    type: conditionTypes.available,
    ...available,
    ...defined({ observedGeneration: generation }),
  };
}

/**
 * The next status, or undefined when it equals the current one. `base` is the status the pass built (its own
 * fields changed; the current one by default); `owned` replaces those top-level fields on top of it, and an owned
 * field given as undefined is removed (a floating IP that went takes `publicIP` with it).
 */
export function nextStatus(
  current: ProvisionedStatus | undefined,
  input: ConditionInput,
  now: number,
  owned: Readonly<Record<string, unknown>> = {},
  base: ProvisionedStatus | undefined = current,
): ProvisionedStatus | undefined {
  const status = base ?? {};
  const fields = Object.entries({ ...status, ...owned }).filter(
    ([key, value]) => value !== undefined || !(key in owned),
  );
  const next = { ...Object.fromEntries(fields), conditions: setCondition(status.conditions, input, new Date(now)) };
  // Deep equality ignores key order: a real API server hands objects back with their keys sorted.
  return isDeepStrictEqual(next, current ?? {}) ? undefined : next;
}

/**
 * Schema pieces the Keystone order kinds and the kinds they drive share. Each is written so its JSON Schema is a
 * structural CRD schema: no `const`, no `anyOf` of literals, maps as `additionalProperties`.
 */
import Type, { type TSchema, type TUnsafe } from 'typebox';
import type { PrinterColumn } from '../../kube/crd.ts';
import type { Condition } from '../../kube/object.ts';

/** A string enum as Kubernetes accepts it (`enum`), typed as the union of its values. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A map of string to T (`additionalProperties`), e.g. labels or a Secret's data. */
export function StringMap<T extends TSchema>(value: T, description?: string): TUnsafe<Record<string, Type.Static<T>>> {
  return Type.Unsafe<Record<string, Type.Static<T>>>({
    type: 'object',
    additionalProperties: value,
    ...(description ? { description } : {}),
  });
}

/** A metav1.Time: RFC 3339 in UTC. */
export const Time = (description?: string) =>
  Type.String({ format: 'date-time', ...(description ? { description } : {}) });

/** A metav1.Duration, e.g. `720h` or `1h30m`; rules compare it with CEL `duration()`. */
export const Duration = (options: { default?: string; description?: string; rules?: readonly Rule[] } = {}) =>
  Type.String({
    ...(options.default !== undefined ? { default: options.default } : {}),
    ...(options.description ? { description: options.description } : {}),
    ...(options.rules ? { 'x-kubernetes-validations': options.rules } : {}),
  });

/**
 * A duration field's bounds: `zeroAllowed` admits `0s` below `min` (a schedule turned off); `min` and `max` are Go
 * durations, inclusive. `field` is the field's path, which a refusal names.
 */
export interface DurationBounds {
  readonly field: string;
  readonly zeroAllowed: boolean;
  readonly min: string;
  readonly max: string;
  /** The messages of the CEL rules, which the reconciler's own refusal repeats. */
  readonly tooShort: string;
  readonly tooLong: string;
}

/** The CEL rules of `bounds`, for a field whose value is `self`. */
export function durationRules(bounds: DurationBounds): Rule[] {
  const zero = bounds.zeroAllowed ? "duration(self) == duration('0s') || " : '';
  return [
    { rule: `${zero}duration(self) >= duration('${bounds.min}')`, message: bounds.tooShort },
    { rule: `duration(self) <= duration('${bounds.max}')`, message: bounds.tooLong },
  ];
}

/** One CEL rule as `x-kubernetes-validations` holds it. */
interface Rule {
  readonly rule: string;
  readonly message: string;
}

/** metav1.Condition, typed as src/kube/object.ts's Condition. */
const ConditionSchema = Type.Unsafe<Condition>({
  type: 'object',
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
  properties: {
    type: { type: 'string', maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    reason: { type: 'string', maxLength: 1024 },
    message: { type: 'string', maxLength: 32768 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    observedGeneration: { type: 'integer', minimum: 0 },
  },
});

/** A condition list keyed by type, as `+listType=map` / `+listMapKey=type` declare it. */
export const Conditions = (maxItems?: number) =>
  Type.Array(ConditionSchema, {
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    ...(maxItems !== undefined ? { maxItems } : {}),
  });

/** The RFC 1123 label shape Kubernetes namespaces have. */
export const DNS_LABEL_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** K-ORC's OpenStackName (and KeystoneUser's userName): no commas, 1..255. */
export const OpenStackName = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 255, pattern: '^[^,]+$', ...(description ? { description } : {}) });

/** The printer columns the Keystone kinds share (`kubectl get`): readiness first and age last, as upstream prints. */
export const columns = {
  ready: { name: 'Ready', type: 'string', jsonPath: ".status.conditions[?(@.type=='Ready')].status" },
  controlPlane: { name: 'ControlPlane', type: 'string', jsonPath: '.spec.controlPlaneRef.name' },
  user: { name: 'User', type: 'string', jsonPath: '.spec.userRef.name' },
  project: { name: 'Project', type: 'string', jsonPath: '.spec.projectRef.name' },
  age: { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
} as const satisfies Record<string, PrinterColumn>;

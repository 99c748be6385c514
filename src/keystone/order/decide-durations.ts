/**
 * The duration fields of an order, checked by the reconciler itself. The CRD's CEL rules bound them too, but an
 * apiserver before 1.25 drops CEL rules (the shipped `deploy/crds/pre-1.25`), and an unchecked `1ns` would read Due on
 * every pass (endless rotation, each revoking the user's tokens) while `999999999999h` makes no valid time. A value
 * out of the bounds the CRD gives (`apis/`, written once) refuses the order with a condition that names the field;
 * what was created stays. docs/adr/0014-keystone-order-invented-behaviour.md records the reason and message.
 */
import type { DurationBounds } from '../apis/common.ts';
import { parseGoDuration } from '../../util/duration.ts';
import { goQuote } from './format.ts';

/** The reason both of the order's conditions carry while a duration field is out of bounds. */
const INVALID_DURATION_REASON = 'InvalidDuration';

export interface DurationField {
  /** The value as stored; absent is valid (the CRD's default applies, or the field is optional). */
  readonly value: string | undefined;
  readonly bounds: DurationBounds;
}

type DurationProblem = 'NotADuration' | 'TooShort' | 'TooLong';

type DurationCheck =
  | { readonly row: 'Valid'; readonly ms: number | undefined }
  | { readonly row: DurationProblem; readonly message: string };

/** One field against its bounds, as the CEL rules read it (Go's time.ParseDuration, inclusive bounds). */
export function checkDuration(field: DurationField): DurationCheck {
  const { value, bounds } = field;
  if (value === undefined) return { row: 'Valid', ms: undefined };
  const ms = parseGoDuration(value);
  const min = parseGoDuration(bounds.min);
  const max = parseGoDuration(bounds.max);
  if (min === undefined || max === undefined) throw new Error(`the bounds of ${bounds.field} are not durations`);
  const quoted = `${bounds.field} ${goQuote(value)}`;
  if (ms === undefined) {
    return { row: 'NotADuration', message: `${quoted} is not a duration (a Go duration such as 720h or 90m)` };
  }
  if (ms === 0 && bounds.zeroAllowed) return { row: 'Valid', ms };
  if (ms < min) return { row: 'TooShort', message: `${quoted}: ${bounds.tooShort}` };
  if (ms > max) return { row: 'TooLong', message: `${quoted}: ${bounds.tooLong}` };
  return { row: 'Valid', ms };
}

type DurationDecision =
  | { readonly row: 'Valid' }
  | {
      readonly row: 'InvalidDuration';
      /** The first field out of bounds, in the order given. */
      readonly field: string;
      readonly condition: { readonly reason: string; readonly message: string };
    };

/** Every duration field of an order; the first one out of bounds refuses it. */
export function decideDurations(fields: readonly DurationField[]): DurationDecision {
  for (const field of fields) {
    const check = checkDuration(field);
    if (check.row === 'Valid') continue;
    return {
      row: 'InvalidDuration',
      field: field.bounds.field,
      condition: {
        reason: INVALID_DURATION_REASON,
        message: `${check.message}; the order is refused until the field is corrected: nothing is provisioned, rotated or delivered, and what was created stays`,
      },
    };
  }
  return { row: 'Valid' };
}

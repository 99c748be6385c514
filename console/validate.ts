/**
 * A form's body checked against the API's own TypeBox schema with the API's own wording (the same `violationsOf`
 * the server answers 400 with), so the console refuses what the API would refuse, with the same message beside the
 * same field. The interpreter (`Value.Errors`) is used rather than the compiler, which generates code at run time
 * and would need the page to allow `eval`.
 */
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { FieldViolation } from '../src/region/http/problem.ts';
import { violationsOf } from '../src/region/http/validation.ts';

export function validate(schema: TSchema, body: unknown): readonly FieldViolation[] {
  return violationsOf([...Value.Errors(schema, body)]);
}

/** Violations by the JSON pointer they name, the first for each. */
export function byPointer(violations: readonly FieldViolation[]): ReadonlyMap<string, FieldViolation> {
  const map = new Map<string, FieldViolation>();
  for (const v of violations) if (!map.has(v.pointer)) map.set(v.pointer, v);
  return map;
}

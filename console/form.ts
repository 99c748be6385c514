/** A form's submit: check the body against the API's schema, send it, and keep the violations to show by field. */
import type { TSchema } from 'typebox';
import { useState } from 'preact/hooks';
import { ApiProblem, type FieldViolation } from './api.ts';
import { byPointer, validate } from './validate.ts';

export interface Submit {
  readonly errors: ReadonlyMap<string, FieldViolation>;
  readonly problem: unknown;
  readonly busy: boolean;
  /** Checks `body` against `schema`; only a body the schema accepts is sent. True when `send` succeeded. */
  run<B>(body: B, send: (body: B) => Promise<unknown>): Promise<boolean>;
}

export function useSubmit(schema: TSchema): Submit {
  const [errors, setErrors] = useState<ReadonlyMap<string, FieldViolation>>(new Map());
  const [problem, setProblem] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const run = async <B>(body: B, send: (body: B) => Promise<unknown>): Promise<boolean> => {
    const violations = validate(schema, body);
    setErrors(byPointer(violations));
    setProblem(undefined);
    if (violations.length > 0) return false;
    setBusy(true);
    try {
      await send(body);
      return true;
    } catch (error) {
      if (error instanceof ApiProblem) setErrors(byPointer(error.errors));
      setProblem(error);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { errors, problem, busy, run };
}

/** The pointers a form shows beside a field, so a problem note lists only the others. */
export const shownPointers = (...pointers: string[]): ReadonlySet<string> => new Set(pointers);

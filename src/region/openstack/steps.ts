/**
 * A provider pass as named steps: each step checks for cancellation first, and the first failure becomes the
 * provider's disposition (classify.ts) with the step named for the operator, never for the tenant.
 */
import { NotFoundError } from '../../openstack/errors.ts';
import { terminalOrThrow } from '../provider/classify.ts';
import type { ResourceKind } from '../provider/errors.ts';
import type { Terminal } from '../provider/outcome.ts';

export class Steps {
  #current: string;

  constructor(
    private readonly signal: AbortSignal,
    private readonly operation: string,
    private readonly resource: ResourceKind,
  ) {
    this.#current = operation;
  }

  run<T>(name: string, call: () => Promise<T>): Promise<T> {
    this.signal.throwIfAborted();
    this.#current = `${this.operation}: ${name}`;
    return call();
  }

  /** Throws the provider error for `error`, or returns its terminal outcome; a cancelled pass rethrows as is. */
  fail(error: unknown): Terminal {
    if (this.signal.aborted) throw error;
    return terminalOrThrow(error, { resource: this.resource, operation: this.#current });
  }
}

/** A delete whose target is already gone has done its job. */
export async function gone(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

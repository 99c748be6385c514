/** Helpers the contract suite's files share. */
import assert from 'node:assert/strict';
import { isNotFound } from '../../src/openstack/errors.ts';

/** Undo steps, run newest first; a failing step is reported and never masks a test's own failure. */
export class Cleanup {
  readonly #steps: { what: string; run: () => Promise<unknown> }[] = [];

  add(what: string, run: () => Promise<unknown>): void {
    this.#steps.push({ what, run });
  }

  async run(): Promise<void> {
    for (const step of this.#steps.reverse()) {
      try {
        await step.run();
      } catch (error) {
        if (!isNotFound(error)) process.stderr.write(`cleanup ${step.what}: ${String(error)}\n`);
      }
    }
  }
}

/** `value`, asserted present. */
export function must<T>(value: T | undefined, what: string): T {
  assert.ok(value !== undefined, `expected ${what}`);
  return value;
}

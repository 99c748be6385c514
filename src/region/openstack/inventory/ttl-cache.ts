/**
 * One value loaded on demand and kept for `ttlMs` on the injected clock (upstream's 1 h TimeoutCache for flavors
 * and volume types). Loads are single-flight: concurrent callers share one request; a failed load is not kept.
 */
import type { Clock } from '../../../util/clock.ts';

export class TtlCache<T> {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #load: () => Promise<T>;
  #value: { readonly at: number; readonly value: T } | undefined;
  #loading: Promise<T> | undefined;

  constructor(clock: Clock, ttlMs: number, load: () => Promise<T>) {
    this.#clock = clock;
    this.#ttlMs = ttlMs;
    this.#load = load;
  }

  get(): Promise<T> {
    const held = this.#value;
    if (held !== undefined && this.#clock.now() - held.at < this.#ttlMs) return Promise.resolve(held.value);
    this.#loading ??= this.#load().then(
      (value) => {
        this.#value = { at: this.#clock.now(), value };
        this.#loading = undefined;
        return value;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }
}

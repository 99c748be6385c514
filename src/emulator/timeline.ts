/**
 * Asynchronous behaviour without timers: a service schedules "at time T, do this" (a server finishing its build,
 * a load balancer leaving PENDING_UPDATE), and the emulator settles everything due before it answers each
 * request. The same code then runs on real time or on a manual clock a test advances, deterministically.
 */
export class Timeline {
  #pending: { readonly at: number; readonly seq: number; readonly apply: () => void }[] = [];
  #seq = 0;

  /** Runs `apply` once the clock reaches `at`. Entries due at the same time run in the order scheduled. */
  at(at: number, apply: () => void): void {
    this.#pending.push({ at, seq: this.#seq++, apply });
  }

  /** Applies every entry due at `now`, earliest first, including entries those entries schedule. */
  settle(now: number): void {
    for (;;) {
      let next = -1;
      for (let i = 0; i < this.#pending.length; i++) {
        const entry = this.#pending[i];
        const best = this.#pending[next];
        if (
          entry &&
          entry.at <= now &&
          (!best || entry.at < best.at || (entry.at === best.at && entry.seq < best.seq))
        ) {
          next = i;
        }
      }
      if (next < 0) return;
      const [entry] = this.#pending.splice(next, 1);
      entry?.apply();
    }
  }

  get size(): number {
    return this.#pending.length;
  }

  clear(): void {
    this.#pending = [];
  }
}

/**
 * Asynchronous behaviour without timers: a service schedules "at time T, this transition" (a server finishing its
 * build, a load balancer leaving PENDING_UPDATE), and the emulator settles everything due before it answers each
 * request. The same code then runs on real time or on a manual clock a test advances, deterministically.
 *
 * A scheduled transition is data — a kind the service defined once and a plain payload — never a closure, so a
 * persistent emulator keeps what is due across a restart (`snapshot`, `restore`) exactly as it keeps its records.
 */

interface Due {
  readonly at: number;
  readonly seq: number;
  readonly kind: string;
  /** Plain data (structured-clone-able): ids, the course (`op`) it was scheduled for, what the transition needs. */
  readonly payload: unknown;
}

export interface TimelineSnapshot {
  readonly seq: number;
  readonly pending: readonly Due[];
}

export type Schedule<P> = (at: number, payload: P) => void;

export class Timeline {
  readonly #kinds = new Map<string, (payload: never) => void>();
  #pending: Due[] = [];
  #seq = 0;

  /** Declares a transition kind once; returns what schedules one. `apply` looks its records up by the payload's ids. */
  define<P>(kind: string, apply: (payload: P) => void): Schedule<P> {
    if (this.#kinds.has(kind)) throw new Error(`the transition ${kind} is defined twice`);
    this.#kinds.set(kind, apply);
    return (at, payload) => {
      this.#pending.push({ at, seq: this.#seq++, kind, payload });
    };
  }

  /** Applies every entry due at `now`, earliest first (same time: scheduling order), including ones they schedule. */
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
      if (entry) (this.#kinds.get(entry.kind) as ((payload: unknown) => void) | undefined)?.(entry.payload);
    }
  }

  get size(): number {
    return this.#pending.length;
  }

  clear(): void {
    this.#pending = [];
  }

  snapshot(): TimelineSnapshot {
    return { seq: this.#seq, pending: this.#pending.map((entry) => ({ ...entry })) };
  }

  /** Takes back what `snapshot` returned; refuses a kind this emulator does not define (another version wrote it). */
  restore(snapshot: TimelineSnapshot): void {
    const unknown = snapshot.pending.find((entry) => !this.#kinds.has(entry.kind));
    if (unknown !== undefined) throw new Error(`no transition ${unknown.kind} is defined`);
    this.#pending = snapshot.pending.map((entry) => ({ ...entry }));
    this.#seq = snapshot.seq;
  }
}

/**
 * Random faults for chaos runs: off until a test switches it on through the control API, then each OpenStack
 * request may meet a 5xx burst, a reset connection, an answer lost after the change was made, added latency, or a
 * 409 race, each drawn from a PRNG seeded by the test, and each counted by kind. Route faults (route-faults.ts) hit
 * chosen routes exactly; chaos hits any route, at rates.
 */

export const CHAOS_FAULT_KINDS = ['burst', 'reset', 'lost-answer', 'latency', 'conflict'] as const;
export type ChaosFaultKind = (typeof CHAOS_FAULT_KINDS)[number];

export interface ChaosSettings {
  readonly seed: number;
  /** Per request, the chance of each fault starting (a burst: that route answers 503 `burstLength` times). */
  readonly rates: Readonly<Partial<Record<ChaosFaultKind, number>>>;
  /** The longest burst; each is 1..burstLength answers. */
  readonly burstLength?: number;
  /** The most latency added to one request; each gets 0..latencyMs. */
  readonly latencyMs?: number;
}

/** What chaos does to one request, decided before it is served. */
type ChaosFault =
  | { readonly kind: 'burst'; readonly status: number }
  | { readonly kind: 'reset' }
  | { readonly kind: 'lost-answer' }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'conflict' };

/** What a cloud's API answers when a service behind its proxy fails or restarts. */
const BURST_STATUSES = [500, 502, 503] as const;
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Keystone's token issue is how every client starts; a 409 there is no race any cloud has. */
const NO_CONFLICT_PREFIX = '/identity/';

/** mulberry32: a small, well-distributed 32-bit PRNG; the same start value gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export class Chaos {
  #settings: ChaosSettings | undefined;
  #random: () => number = () => 1;
  /** Route template → the answers its current burst still owes. */
  readonly #bursts = new Map<string, { owed: number; status: number }>();
  #counts = emptyCounts();

  configure(settings: ChaosSettings): void {
    this.#settings = settings;
    this.#random = seededRandom(settings.seed);
    this.#bursts.clear();
    this.#counts = emptyCounts();
  }

  /** Stops injecting; the counts stay readable until the next configure or reset. */
  off(): void {
    this.#settings = undefined;
    this.#bursts.clear();
  }

  reset(): void {
    this.off();
    this.#counts = emptyCounts();
  }

  get settings(): ChaosSettings | undefined {
    return this.#settings;
  }

  /** Faults injected since configured, by kind (a burst counts each answer it spoils). */
  get counts(): Readonly<Record<ChaosFaultKind, number>> {
    return { ...this.#counts };
  }

  /** Decides the fault, if any, for one request to a route template; counts it. */
  decide(method: string, route: string): ChaosFault | undefined {
    const settings = this.#settings;
    if (settings === undefined) return undefined;
    const burst = this.#bursts.get(route);
    if (burst !== undefined) {
      if (burst.owed <= 1) this.#bursts.delete(route);
      else this.#bursts.set(route, { ...burst, owed: burst.owed - 1 });
      return this.#count({ kind: 'burst', status: burst.status });
    }
    const rate = (kind: ChaosFaultKind) => settings.rates[kind] ?? 0;
    const roll = (kind: ChaosFaultKind) => rate(kind) > 0 && this.#random() < rate(kind);
    if (roll('burst')) {
      const length = 1 + Math.floor(this.#random() * Math.max(1, settings.burstLength ?? 3));
      const status = BURST_STATUSES[Math.floor(this.#random() * BURST_STATUSES.length)] ?? 503;
      if (length > 1) this.#bursts.set(route, { owed: length - 1, status });
      return this.#count({ kind: 'burst', status });
    }
    if (roll('reset')) return this.#count({ kind: 'reset' });
    if (MUTATING.has(method) && roll('lost-answer')) return this.#count({ kind: 'lost-answer' });
    if (MUTATING.has(method) && !route.startsWith(NO_CONFLICT_PREFIX) && roll('conflict'))
      return this.#count({ kind: 'conflict' });
    if (roll('latency'))
      return this.#count({ kind: 'latency', ms: Math.floor(this.#random() * (settings.latencyMs ?? 500)) });
    return undefined;
  }

  #count(fault: ChaosFault): ChaosFault {
    this.#counts[fault.kind]++;
    return fault;
  }
}

function emptyCounts(): Record<ChaosFaultKind, number> {
  return Object.fromEntries(CHAOS_FAULT_KINDS.map((kind) => [kind, 0])) as Record<ChaosFaultKind, number>;
}

/**
 * Faults injected on chosen routes through the control API: a burst of 5xx answers, added latency, or a reset
 * connection with no answer at all. Each rule matches a method (or any) and a route template, and fires `count`
 * times (or until cleared).
 */
export type RouteFaultKind =
  | { readonly kind: 'status'; readonly status: number; readonly message?: string }
  | { readonly kind: 'latency'; readonly ms: number }
  | { readonly kind: 'reset' };

export type RouteFaultRule = RouteFaultKind & {
  /** Omit to match every method. */
  readonly method?: string | undefined;
  /** A route template as registered, e.g. `/compute/v2.1/servers/{server_id}`; `*` matches every route. */
  readonly route: string;
  /** How many matching requests it hits; omit for all until cleared. */
  readonly count?: number | undefined;
};

export class RouteFaults {
  #rules: { rule: RouteFaultRule; left: number }[] = [];

  add(rule: RouteFaultRule): void {
    this.#rules.push({ rule, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.#rules = [];
  }

  /** The faults that hit this request, consuming one use of each. */
  take(method: string, route: string): RouteFaultKind[] {
    const hits: RouteFaultKind[] = [];
    for (const entry of this.#rules) {
      const { rule } = entry;
      if (entry.left <= 0) continue;
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.route !== '*' && rule.route !== route) continue;
      entry.left--;
      hits.push(rule);
    }
    this.#rules = this.#rules.filter((e) => e.left > 0);
    return hits;
  }

  list(): RouteFaultRule[] {
    return this.#rules.map((e) => e.rule);
  }
}

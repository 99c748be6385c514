/** Counts every request by service, method and path template: the figures behind metrics and benchmarks. */
import type { RequestEvent } from './transport.ts';

interface RequestCount {
  readonly serviceType: string;
  readonly method: string;
  readonly urlTemplate: string;
  /** Attempts sent, retries included. */
  readonly requests: number;
  /** Attempts that were retries of an earlier one. */
  readonly retries: number;
  /** Attempts answered with a status of 400 or more, or with no answer at all. */
  readonly failures: number;
  readonly totalMs: number;
}

export class RequestAccounting {
  readonly #counts = new Map<string, RequestCount>();

  /** Pass as the transport's observer. */
  readonly observe = (event: RequestEvent): void => {
    const key = `${event.serviceType} ${event.method} ${event.urlTemplate}`;
    const c = this.#counts.get(key);
    const failed = event.status === 'error' || event.status >= 400;
    this.#counts.set(key, {
      serviceType: event.serviceType,
      method: event.method,
      urlTemplate: event.urlTemplate,
      requests: (c?.requests ?? 0) + 1,
      retries: (c?.retries ?? 0) + (event.attempt > 0 ? 1 : 0),
      failures: (c?.failures ?? 0) + (failed ? 1 : 0),
      totalMs: (c?.totalMs ?? 0) + event.durationMs,
    });
  };

  counts(): RequestCount[] {
    return [...this.#counts.values()].sort(
      (a, b) =>
        b.requests - a.requests || `${a.serviceType}${a.urlTemplate}`.localeCompare(`${b.serviceType}${b.urlTemplate}`),
    );
  }

  /** Requests sent, optionally only those matching `filter`. */
  total(filter: Partial<Pick<RequestCount, 'serviceType' | 'method' | 'urlTemplate'>> = {}): number {
    let sum = 0;
    for (const c of this.#counts.values()) {
      if (filter.serviceType !== undefined && c.serviceType !== filter.serviceType) continue;
      if (filter.method !== undefined && c.method !== filter.method) continue;
      if (filter.urlTemplate !== undefined && c.urlTemplate !== filter.urlTemplate) continue;
      sum += c.requests;
    }
    return sum;
  }

  reset(): void {
    this.#counts.clear();
  }
}

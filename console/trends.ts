/**
 * Trends for the operator view: the runtime's counters sampled at each read, kept for the last few minutes in the
 * page, and drawn as small SVG lines. Counters become rates per interval (errors since the last read), the latency
 * histogram's sum over its count becomes the mean latency of the calls made in the interval.
 */
export interface Sample {
  readonly queueDepth: number;
  readonly errors: number;
  readonly openstackRequests: number;
  readonly openstackErrors: number;
  readonly openstackLatencySeconds: number;
}

/** How many samples a trend keeps: two minutes at one read a second. */
export const KEPT = 120;

export interface Series {
  readonly queueDepth: readonly number[];
  readonly errors: readonly number[];
  readonly openstackErrors: readonly number[];
  /** Milliseconds; 0 for an interval with no calls. */
  readonly openstackLatencyMs: readonly number[];
}

/** The series the view draws from the samples, oldest first (a counter reset reads as 0, not a negative rate). */
export function seriesOf(samples: readonly Sample[]): Series {
  const deltas = (pick: (s: Sample) => number) =>
    samples.slice(1).map((s, i) => Math.max(0, pick(s) - pick(samples[i] ?? s)));
  const requests = deltas((s) => s.openstackRequests);
  const latency = deltas((s) => s.openstackLatencySeconds);
  return {
    queueDepth: samples.map((s) => s.queueDepth),
    errors: deltas((s) => s.errors),
    openstackErrors: deltas((s) => s.openstackErrors),
    openstackLatencyMs: requests.map((n, i) => (n === 0 ? 0 : Math.round(((latency[i] ?? 0) / n) * 1000))),
  };
}

/**
 * Durations as Go's time.ParseDuration reads them: the one parser for every duration openregion reads. A
 * metav1.Duration field (`rotation.interval: 720h`) is decoded with it upstream, so an interval means the same here
 * as in a Go operator reading the same object; the CLI's `--timeout` takes the same spelling, as kubectl's does.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)/y;

/** Milliseconds, or undefined when `text` is not a Go duration. */
export function parseGoDuration(text: string): number | undefined {
  const sign = text.startsWith('-') ? -1 : 1;
  const body = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  if (body === '0') return 0;
  if (body === '') return undefined;
  let total = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < body.length) {
    const at = TERM.lastIndex;
    const match = TERM.exec(body);
    const [, number, unit] = match ?? [];
    if (match === null || match.index !== at || number === undefined || unit === undefined) return undefined;
    if (number === '' || number === '.') return undefined;
    total += Number(number) * (UNIT_MS[unit] ?? Number.NaN);
  }
  return Number.isFinite(total) ? sign * total : undefined;
}

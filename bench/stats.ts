/** Small helpers every benchmark shares. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** Milliseconds `run` took. */
export async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** The p-th percentile (nearest rank) of `samples`, rounded to 0.01 ms. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round((sorted[rank] ?? Number.NaN) * 100) / 100;
}

/** A figure beside its target: `5.02 (target ≤ 5: missed)`. */
export function judged(value: number, relation: '≤' | '<' | '≥', target: number): string {
  const met = relation === '≤' ? value <= target : relation === '<' ? value < target : value >= target;
  return `${String(value)} (target ${relation} ${String(target)}: ${met ? 'met' : 'missed'})`;
}

/** The event loop's delay while `run` runs (perf_hooks.monitorEventLoopDelay, 10 ms resolution): p99 and max, ms. */
export async function loopDelayDuring<T>(run: () => Promise<T>): Promise<{ result: T; p99Ms: number; maxMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await run();
    return { result, p99Ms: round2(histogram.percentile(99) / 1e6), maxMs: round2(histogram.max / 1e6) };
  } finally {
    histogram.disable();
  }
}

/**
 * CPU time (user + system) this process spent while `run` ran, ms. With BENCH_PROFILE=<dir>, the window is also
 * written as a V8 CPU profile, `<dir>/<label>.cpuprofile` (open it in Chrome's DevTools), to explain a figure.
 */
export async function cpuDuring<T>(label: string, run: () => Promise<T>): Promise<{ result: T; cpuMs: number }> {
  return profiled(label, async () => {
    const before = process.cpuUsage();
    const result = await run();
    const used = process.cpuUsage(before);
    return { result, cpuMs: (used.user + used.system) / 1000 };
  });
}

/** `run`, and with BENCH_PROFILE=<dir> its V8 CPU profile written to `<dir>/<label>.cpuprofile`. */
export async function profiled<T>(label: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env['BENCH_PROFILE'];
  if (dir === undefined) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${label.replace(/[^\w.-]+/g, '-')}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

const round2 = (n: number): number => Math.round(n * 100) / 100;

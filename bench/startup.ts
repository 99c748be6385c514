/**
 * CLI start-up: the wall time of `openregion --version` from the built package (`npm run build`, compiled
 * JavaScript, no tsx), next to a bare `node` (the floor on this machine) and to the same command run from source
 * through tsx (what every call cost before the build). Target: a median under 300 ms for the built package.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { percentile } from './stats.ts';

export const STARTUP_TARGET_MS = 300;
const RUNS = 15;
const root = fileURLToPath(new URL('../', import.meta.url));

/** Wall-clock milliseconds of each of `runs` runs of `node ...args`, one after another. */
function wallTimes(args: readonly string[], runs: number): number[] {
  return Array.from({ length: runs }, () => {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
    const ms = performance.now() - started;
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
    return ms;
  });
}

export function benchStartup(): Record<string, number | string> {
  // Always measure a build of the sources at hand.
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(`${root}dist/cli/main.js`)) throw new Error(`npm run build: ${build.stderr}`);
  const bare = wallTimes(['-e', ''], RUNS);
  const built = wallTimes(['bin/openregion.js', '--version'], RUNS);
  const source = wallTimes(['--import', 'tsx', 'src/cli/main.ts', '--version'], 3);
  const median = percentile(built, 50);
  return {
    'bare node (node -e ""), median (ms)': percentile(bare, 50),
    'openregion --version, built, median (ms)': median,
    'openregion --version, built, p90 (ms)': percentile(built, 90),
    'openregion --version, built, fastest (ms)': percentile(built, 0),
    'openregion --version, from source (tsx), median (ms)': percentile(source, 50),
    'target (ms)': STARTUP_TARGET_MS,
    'target (median)': median < STARTUP_TARGET_MS ? 'met' : 'missed',
  };
}

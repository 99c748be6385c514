/**
 * CLI start-up: the wall time of `openregion --version` from the built package (`npm run build`, compiled
 * JavaScript, no tsx), next to a bare `node` (the floor on this machine) and to the same command run from source
 * through tsx (what every call cost before the build). Target: a median under 300 ms for the built package.
 * Also one Tab of shell completion (`openregion __complete …`, which the completion scripts run) from the built
 * package against a store holding openregion's CRDs and an object: the kinds, and one kind's object names.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from './stats.ts';

export const STARTUP_TARGET_MS = 300;
const RUNS = 15;
const root = fileURLToPath(new URL('../', import.meta.url));

/**
 * The CPU (user + system) this process's finished children have used, in ms: Linux's cutime and cstime. On a
 * shared machine a command's wall time measures its neighbours too; its CPU time measures only the command.
 */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
  return (Number(fields[13]) + Number(fields[14])) / ticksPerMs;
}

/** Wall-clock and CPU milliseconds of each of `runs` runs of `node ...args`, one after another. */
function times(args: readonly string[], runs: number, env: NodeJS.ProcessEnv = process.env) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const [started, cpuBefore] = [performance.now(), childrenCpuMs()];
    const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env });
    wall.push(performance.now() - started);
    cpu.push(childrenCpuMs() - cpuBefore);
    if (result.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${result.stderr}`);
  }
  return { wall, cpu };
}

const wallTimes = (args: readonly string[], runs: number, env?: NodeJS.ProcessEnv) => times(args, runs, env).wall;

export function benchStartup(): Record<string, number | string> {
  // Always measure a build of the sources at hand.
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(`${root}dist/cli/main.js`)) throw new Error(`npm run build: ${build.stderr}`);
  const bareRuns = times(['-e', ''], RUNS);
  const bare = bareRuns.wall;
  const built = wallTimes(['bin/openregion.js', '--version'], RUNS);
  const source = wallTimes(['--import', 'tsx', 'src/cli/main.ts', '--version'], 3);
  const median = percentile(built, 50);
  const tab = completionTimes();
  return {
    'bare node (node -e ""), median (ms)': percentile(bare, 50),
    'bare node (node -e ""), CPU median (ms)': percentile(bareRuns.cpu, 50),
    'openregion --version, built, median (ms)': median,
    'openregion --version, built, p90 (ms)': percentile(built, 90),
    'openregion --version, built, fastest (ms)': percentile(built, 0),
    'openregion --version, from source (tsx), median (ms)': percentile(source, 50),
    'target (ms)': STARTUP_TARGET_MS,
    'target (median)': median < STARTUP_TARGET_MS ? 'met' : 'missed',
    'completion Tab, kinds, built, median (ms)': percentile(tab.kinds, 50),
    'completion Tab, object names, built, median (ms)': percentile(tab.names, 50),
    'completion Tab, object names, built, p90 (ms)': percentile(tab.names, 90),
    'completion Tab, object names, built, CPU median (ms)': percentile(tab.namesCpu, 50),
    'completion target (median)': percentile(tab.names, 50) < STARTUP_TARGET_MS ? 'met' : 'missed',
  };
}

/** One Tab's wall time, built: `get <TAB>` (the kinds) and `get networks <TAB>` (names), on a store made for it. */
function completionTimes(): { kinds: number[]; names: number[]; namesCpu: number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'openregion-bench-completion-'));
  try {
    const store = join(dir, 'store.db');
    const network = `apiVersion: region.unikorn-cloud.org/v1alpha1
kind: Network
metadata: {name: 0b3c1a9e-1111-4c5e-9d7a-000000000001, labels: {unikorn-cloud.org/name: net-1}}
spec: {prefix: 10.0.0.0/24, dnsNameservers: []}
`;
    writeFileSync(join(dir, 'network.yaml'), network);
    for (const file of ['deploy/crds', join(dir, 'network.yaml')]) {
      const applied = spawnSync(process.execPath, ['bin/openregion.js', 'apply', '-f', file, '--store', store], {
        cwd: root,
        encoding: 'utf8',
      });
      if (applied.status !== 0) throw new Error(`openregion apply -f ${file}: ${applied.stderr}`);
    }
    const env = { ...process.env, OPENREGION_STORE: store };
    const names = times(['bin/openregion.js', '__complete', 'get', 'networks', ''], RUNS, env);
    return {
      kinds: wallTimes(['bin/openregion.js', '__complete', 'get', ''], RUNS, env),
      names: names.wall,
      namesCpu: names.cpu,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench`: every benchmark, one after another in this process, printed as tables and written to
 * bench/results.json with the machine they ran on. Figures, not assertions: these machines are noisy, so compare
 * runs taken together, and ratios taken within one run. bench/README.md explains each scenario and its limit.
 *
 * BENCH_QUICK=1 runs the server scenarios at 100 servers only (memory at 0 and 100) and skips the store, emulator
 * and image-cache figures; BENCH_ONLY=<text> runs only the scenarios whose name contains it, BENCH_SKIP=<text>
 * all but those. The whole run is sized to finish within 30 minutes (bench/README.md lists each scenario's time):
 * the headline scenarios at 1,000 servers on the embedded store, the kube-apiserver ones at 300 servers over 30
 * projects unless BENCH_KUBE_SERVERS and BENCH_KUBE_PROJECTS say otherwise (the 1,000 and 10,000), the
 * KeystoneUser orders at 300 unless BENCH_ORDERS says otherwise.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { benchConvergence } from './convergence.ts';
import { benchEmulator } from './emulator.ts';
import { closeFleet } from './fleet.ts';
import { benchImageCache } from './image-cache.ts';
import { benchKeystoneFailover } from './keystone-failover.ts';
import { benchKeystoneOrders } from './keystone-orders.ts';
import { benchEmbedded } from './kube-embedded.ts';
import { closeBenchApiserver } from './kube-apiserver.ts';
import { benchHighAvailability, benchKubeServe, benchSharding } from './kube-serve.ts';
import { benchMemory } from './memory.ts';
import { benchRebuildWave } from './rebuild-wave.ts';
import { benchSdkCompare, type Skipped } from './sdk-compare.ts';
import { benchStartup } from './startup.ts';
import { benchSteadyState } from './steady-state.ts';

type Figures = Record<string, number | string>;

const quick = process.env['BENCH_QUICK'] === '1';
const only = process.env['BENCH_ONLY'];
const skip = process.env['BENCH_SKIP'];
const fleet = quick ? 100 : 1_000;
/**
 * BENCH_KUBE_SERVERS=1000 (or 10000): the kube-apiserver scenarios' wave, 300 by default (100 with BENCH_QUICK):
 * three waves on kube-apiserver and one on the embedded store at 1,000 took 40 minutes alone on a loaded machine.
 */
const kubeFleet = Number(process.env['BENCH_KUBE_SERVERS'] ?? (quick ? 100 : 300));
const kubeCount = kubeFleet.toLocaleString('en');
/**
 * BENCH_ORDERS=1000: the KeystoneUser orders scenario's count, 300 by default (100 with BENCH_QUICK); at 1,000 it
 * took 9 of a whole run's minutes on 2 cores at load 13, and its figures are per order.
 */
const orders = Number(process.env['BENCH_ORDERS'] ?? (quick ? 100 : 300));

// Order matters: steady state and the rebuild wave measure the last convergence's system.
const benches: Record<string, () => Promise<Figures | Skipped>> = {
  'CLI start-up': () => Promise.resolve(benchStartup()),
  ...(quick
    ? {}
    : {
        'kube embedded store': benchEmbedded,
        'OpenStack emulator': benchEmulator,
        'image cache': benchImageCache,
        'convergence, 100 servers': () => benchConvergence(100),
      }),
  [`convergence, ${fleet.toLocaleString('en')} servers`]: () => benchConvergence(fleet),
  [`steady state, ${fleet.toLocaleString('en')} servers`]: benchSteadyState,
  [`rebuild wave, ${fleet.toLocaleString('en')} servers`]: benchRebuildWave,
  memory: async () => {
    await closeFleet();
    return benchMemory(quick ? [100] : [1_000, 10_000]);
  },
  [`KeystoneUser orders, ${orders.toLocaleString('en')}`]: () => benchKeystoneOrders(orders),
  [`kube-apiserver: serve beside the embedded store, ${kubeCount} servers`]: () => benchKubeServe(kubeFleet),
  [`kube-apiserver: two replicas, the leader killed mid-wave, ${kubeCount} servers`]: () =>
    benchHighAvailability(kubeFleet),
  [`kube-apiserver: two regions sharded, ${kubeCount} servers each`]: () => benchSharding(kubeFleet),
  [`KeystoneUser fail-over, ${kubeCount} Ready orders (kube-apiserver)`]: () => benchKeystoneFailover(kubeFleet),
  'client vs openstacksdk and gophercloud (dev cloud)': benchSdkCompare,
};

const machine = {
  cores: availableParallelism(),
  cpu: cpus()[0]?.model ?? 'unknown',
  'memory (GiB)': Math.round(totalmem() / 2 ** 30),
  node: process.version,
};
process.stdout.write(`machine: ${JSON.stringify(machine)}${quick ? ' (BENCH_QUICK)' : ''}\n`);

const results: Record<string, Figures | Skipped> = {};
/** Each scenario's wall time (s), and the load average when it ended: what the README's run-time table lists. */
const durations: Record<string, { seconds: number; load: string }> = {};
const runStarted = performance.now();
try {
  for (const [name, run] of Object.entries(benches)) {
    if (only !== undefined && !name.includes(only)) continue;
    if (skip !== undefined && name.includes(skip)) continue;
    process.stdout.write(`\n${name} (${String(machine.cores)} cores)\n`);
    const started = performance.now();
    const figures = await run();
    results[name] = figures;
    if ('skipped' in figures) process.stdout.write(`  skipped: ${String(figures.skipped)}\n`);
    else console.table(figures);
    const seconds = Math.round((performance.now() - started) / 1000);
    durations[name] = {
      seconds,
      load: loadavg()
        .map((l) => l.toFixed(1))
        .join(' '),
    };
    process.stdout.write(`  (${String(seconds)} s, load average ${durations[name].load})\n`);
  }
} finally {
  await closeFleet();
  await closeBenchApiserver();
}

// Every figure with a target, together: what the table asks after.
process.stdout.write('\ntargets\n');
for (const [name, figures] of Object.entries(results)) {
  if ('skipped' in figures) continue;
  for (const [figure, value] of Object.entries(figures)) {
    if (typeof value === 'string' && value.includes('(target '))
      process.stdout.write(`  ${name}: ${figure} = ${value}\n`);
  }
}
const totalSeconds = Math.round((performance.now() - runStarted) / 1000);
process.stdout.write(`\nwhole run: ${String(Math.round(totalSeconds / 60))} min (${String(totalSeconds)} s)\n`);
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ at: new Date().toISOString(), machine, quick, totalSeconds, durations, results }, null, 2)}\n`,
);

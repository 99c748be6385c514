/**
 * `npm run bench`: every benchmark, one after another in this process, printed as tables and written to
 * bench/results.json with the machine they ran on. Figures, not assertions: these machines are noisy, so compare
 * runs taken together, and ratios taken within one run. bench/README.md explains each scenario and its limit.
 *
 * BENCH_QUICK=1 runs the server scenarios at 100 servers only (memory at 0 and 100) and skips the store, emulator
 * and image-cache figures; BENCH_ONLY=<ids> runs only the scenarios with those ids (comma-separated, exact; the
 * list is below), BENCH_SKIP=<ids> all but those. The whole run is sized to finish within 30 minutes, and ends
 * with each scenario's time (bench/README.md lists them): the headline scenarios at 1,000 servers on the embedded
 * store, the kube-apiserver ones at 300 servers over 30 projects unless BENCH_KUBE_SERVERS and BENCH_KUBE_PROJECTS
 * say otherwise (the 1,000; 10,000 alone, see bench/README.md), the KeystoneUser orders at 300 unless
 * BENCH_ORDERS says otherwise, the client comparison at 250 servers unless BENCH_SDK_SERVERS says otherwise.
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

/**
 * Every scenario, by the id BENCH_ONLY and BENCH_SKIP name (comma-separated, each matched exactly: a title such as
 * "kube-apiserver: …" shares words with "KeystoneUser fail-over … (kube-apiserver)", so titles are not matched).
 * Order matters: steady state and the rebuild wave measure the last convergence's system.
 */
const benches: { id: string; title: string; run: () => Promise<Figures | Skipped> }[] = [
  { id: 'startup', title: 'CLI start-up', run: () => Promise.resolve(benchStartup()) },
  ...(quick
    ? []
    : [
        { id: 'kube-embedded', title: 'kube embedded store', run: benchEmbedded },
        { id: 'emulator', title: 'OpenStack emulator', run: benchEmulator },
        { id: 'image-cache', title: 'image cache', run: benchImageCache },
        { id: 'convergence-100', title: 'convergence, 100 servers', run: () => benchConvergence(100) },
      ]),
  {
    id: 'convergence',
    title: `convergence, ${fleet.toLocaleString('en')} servers`,
    run: () => benchConvergence(fleet),
  },
  { id: 'steady-state', title: `steady state, ${fleet.toLocaleString('en')} servers`, run: benchSteadyState },
  { id: 'rebuild-wave', title: `rebuild wave, ${fleet.toLocaleString('en')} servers`, run: benchRebuildWave },
  {
    id: 'memory',
    title: 'memory',
    run: async () => {
      await closeFleet();
      return benchMemory(quick ? [100] : [1_000, 10_000]);
    },
  },
  {
    id: 'orders',
    title: `KeystoneUser orders, ${orders.toLocaleString('en')}`,
    run: () => benchKeystoneOrders(orders),
  },
  {
    id: 'kube-serve',
    title: `kube-apiserver: serve beside the embedded store, ${kubeCount} servers`,
    run: () => benchKubeServe(kubeFleet),
  },
  {
    id: 'kube-ha',
    title: `kube-apiserver: two replicas, the leader killed mid-wave, ${kubeCount} servers`,
    run: () => benchHighAvailability(kubeFleet),
  },
  {
    id: 'kube-sharding',
    title: `kube-apiserver: two regions sharded, ${kubeCount} servers each`,
    run: () => benchSharding(kubeFleet),
  },
  {
    id: 'keystone-failover',
    title: `KeystoneUser fail-over, ${kubeCount} Ready orders (kube-apiserver)`,
    run: () => benchKeystoneFailover(kubeFleet),
  },
  { id: 'sdk-compare', title: 'client vs openstacksdk and gophercloud (dev cloud)', run: benchSdkCompare },
];

/** BENCH_ONLY / BENCH_SKIP as a set of ids; an id no scenario has is an error, not an empty run. */
function selection(variable: string): Set<string> | undefined {
  const value = process.env[variable];
  if (value === undefined || value === '') return undefined;
  const ids = new Set(value.split(',').map((id) => id.trim()));
  const known = new Set(benches.map((b) => b.id));
  const unknown = [...ids].filter((id) => !known.has(id));
  if (unknown.length > 0) {
    process.stderr.write(`${variable}: no scenario ${unknown.join(', ')}; the scenarios: ${[...known].join(', ')}\n`);
    process.exit(2);
  }
  return ids;
}
const only = selection('BENCH_ONLY');
const skip = selection('BENCH_SKIP');

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
  for (const { id, title: name, run } of benches) {
    if (only !== undefined && !only.has(id)) continue;
    if (skip?.has(id) === true) continue;
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
// Where the run's time went: the 30-minute budget (bench/README.md) is judged on these.
const totalSeconds = Math.round((performance.now() - runStarted) / 1000);
process.stdout.write('\ntime\n');
for (const [name, { seconds, load }] of Object.entries(durations))
  process.stdout.write(`  ${String(seconds).padStart(5)} s  ${name} (load average at its end ${load})\n`);
process.stdout.write(
  `\nwhole run: ${String(Math.round(totalSeconds / 60))} min (${String(totalSeconds)} s; target ≤ 30 min: ${
    totalSeconds <= 1800 ? 'met' : 'missed'
  })\n`,
);
writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify({ at: new Date().toISOString(), machine, quick, totalSeconds, durations, results }, null, 2)}\n`,
);

/**
 * The chaos suite: `openregion up` (what `npm start` runs) as a child process, a seeded random workload through its
 * REST API, while the built-in cloud injects 5xx bursts, resets, lost answers, latency and 409 races, the workload
 * puts servers, volumes and load balancers into ERROR and deletes cloud resources out of band, and the process is
 * killed (SIGKILL) and restarted at random points. At the end of each seed:
 *
 * - after a last restart with the faults off (the resync that repairs drift nothing polls), every resource settles
 *   (provisioned, or errored with its reason) or is gone;
 * - the cloud holds exactly what the store says: every record in a tenant project belongs to a live region
 *   resource, one each, and every provisioned resource has its record;
 * - once everything is deleted and `region gc` has run with the cloud's admin credentials (the documented cleanup,
 *   docs/deploying.md), nothing is stuck in the store, and the cloud holds exactly what it held before the
 *   workload: the leak report counts every kind, `default` security groups, published images and quota records
 *   included.
 *
 * Budget: CHAOS_SEEDS seeds (default 2) of CHAOS_OPS operations (default 40); CHAOS_SEED=n runs seed n alone, which
 * is what a failure prints. The workload's operations are the seed's; the cloud's faults are seeded too, though
 * which request meets which fault depends on timing, so a reproduction is close, not exact.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { parseDevEnv } from '../../src/cli/up/files.ts';
import { seededRandom } from '../../src/emulator/chaos.ts';
import { storeEncryption } from '../../src/cli/store-encryption.ts';
import { openEmbeddedStore } from '../../src/kube/embedded/store.ts';
import { regionKinds, regionType } from '../../src/region/apis/index.ts';
import { systemClock } from '../../src/util/clock.ts';
import { REPO, restClient, startChildUp, type ChildUp } from '../up/child.ts';
import { BuiltInCloud, type ChaosCounts } from './cloud.ts';
import { baselineOf, disagreements, leaksAfterTeardown, leaksByKind } from './ledger.ts';
import { regionGc } from '../../src/cli/region-gc.ts';
import { COLLECTIONS, inventory, Workload, type Inventory, type Read, type Tenancy } from './workload.ts';

const SEEDS = Number(process.env.CHAOS_SEEDS ?? 2);
const OPS = Number(process.env.CHAOS_OPS ?? 40);
const SEED = process.env.CHAOS_SEED === undefined ? undefined : Number(process.env.CHAOS_SEED);
const BASE_SEED = Number(process.env.CHAOS_BASE_SEED ?? Date.now() % 1_000_000_000);
/** Bounds on waiting, not assertions about speed: retries back off up to minutes. */
const SETTLE_MS = 360_000;
const POLL_MS = 1_000;
/** A kill on average every this many operations, and at least one per seed. */
const OPS_PER_KILL = 25;
/** The cloud's fault rates per OpenStack request while the workload runs. */
const RATES = { burst: 0.03, reset: 0.02, 'lost-answer': 0.03, latency: 0.05, conflict: 0.04 };
const NAMESPACE = 'unikorn-region';

const seeds = SEED !== undefined ? [SEED] : Array.from({ length: SEEDS }, (_, i) => BASE_SEED + i);

interface SeedReport {
  seed: number;
  operations: number;
  byOperation: Record<string, number>;
  refusals: number;
  faults: Record<string, number>;
  restarts: number;
  leaks: number;
  /** Leaks after the documented cleanup, by kind (default security groups, published images, quota records …). */
  leaksByKind: Record<string, number>;
  /** What the teardown left for `region gc`, by kind, and how many default groups gc deleted. */
  leftBehind: Record<string, number>;
  collected: number;
  seconds: number;
  /** Where the time went: the workload, settling, the teardown. */
  phases: Record<string, number>;
}

const reports: SeedReport[] = [];

const reproduce = (seed: number) => `CHAOS_SEED=${String(seed)} CHAOS_OPS=${String(OPS)} npm run test:chaos`;

describe(`chaos: ${String(seeds.length)} seeds × ${String(OPS)} operations against up, killed and restarted`, () => {
  after(() => {
    const total = (pick: (r: SeedReport) => number) => reports.reduce((sum, r) => sum + pick(r), 0);
    const faults: Record<string, number> = {};
    for (const r of reports) for (const [k, v] of Object.entries(r.faults)) faults[k] = (faults[k] ?? 0) + v;
    process.stdout.write(
      `chaos total: ${String(reports.length)} seeds, ${String(total((r) => r.operations))} operations, ` +
        `faults ${JSON.stringify(faults)}, ${String(total((r) => r.restarts))} restarts, ` +
        `${String(total((r) => r.leaks))} leaks, ${total((r) => r.seconds).toFixed(0)} s\n`,
    );
  });

  for (const seed of seeds) {
    it(`seed ${String(seed)} (${reproduce(seed)})`, async () => {
      try {
        reports.push(await runSeed(seed));
      } catch (error) {
        // An assertion's message says what diverged; anything else needs its stack.
        const message =
          error instanceof assert.AssertionError
            ? error.message
            : error instanceof Error
              ? String(error.stack)
              : String(error);
        throw new Error(`chaos seed ${String(seed)} failed; reproduce with: ${reproduce(seed)}\n${message}`, {
          cause: error,
        });
      }
    });
  }
});

async function runSeed(seed: number): Promise<SeedReport> {
  const started = Date.now();
  const random = seededRandom(seed);
  mkdirSync(join(REPO, '.cache'), { recursive: true });
  const root = mkdtempSync(join(REPO, '.cache', `chaos-${String(seed)}-`));
  const dir = join(root, '.openregion');
  let up: ChildUp = await startChildUp(dir, ['--log-level', 'info']);
  let cloud = new BuiltInCloud(dir);
  const rest = restClient(dir, () => up.api);
  const report: SeedReport = {
    seed,
    operations: 0,
    byOperation: {},
    refusals: 0,
    faults: {},
    restarts: 0,
    leaks: 0,
    leaksByKind: {},
    leftBehind: {},
    collected: 0,
    seconds: 0,
    phases: {},
  };
  let phaseStart = Date.now();
  const phase = (name: string) => {
    report.phases[name] = Math.round((Date.now() - phaseStart) / 1000);
    phaseStart = Date.now();
  };
  const addFaults = (counts: ChaosCounts) => {
    for (const [kind, n] of Object.entries(counts)) report.faults[kind] = (report.faults[kind] ?? 0) + n;
  };
  const chaosOn = async () => {
    const { status } = await cloud.control('POST', '/chaos', {
      seed: seed * 1_000 + report.restarts,
      rates: RATES,
      burstLength: 4,
      latencyMs: 400,
    });
    assert.equal(status, 201, 'chaos configured');
  };
  let ok = false;
  try {
    const tenancy = await tenancyOf(dir, rest);
    const baseline = baselineOf(await cloud.state());
    const workload = new Workload(rest, () => cloud, tenancy);
    const firstKill = Math.floor(random() * OPS);
    await chaosOn();
    for (let op = 0; op < OPS; op++) {
      if (op === firstKill || random() < 1 / OPS_PER_KILL) {
        addFaults(await cloud.chaosCounts());
        assert.equal(await up.stop('SIGKILL'), null, 'killed');
        up = await startChildUp(dir, ['--log-level', 'info']);
        cloud = new BuiltInCloud(dir);
        report.restarts += 1;
        await chaosOn();
      }
      const result = await workload.step(random);
      if (result !== undefined) {
        report.operations += 1;
        report.byOperation[result.operation] = (report.byOperation[result.operation] ?? 0) + 1;
        if (result.status !== undefined && result.status >= 400) report.refusals += 1;
        // A 503 problem document is the API's documented answer while the cloud it must read fails; any other
        // 5xx is a crash.
        const unavailable = result.status === 503 && result.problem?.endsWith('/unavailable') === true;
        assert.ok(
          result.status === undefined || result.status < 500 || unavailable,
          `the region API answered ${String(result.status)} to ${result.detail ?? result.operation}`,
        );
      }
      await sleep(Math.floor(random() * 200));
    }
    addFaults(await cloud.chaosCounts());
    const sabotage = Object.entries(report.byOperation).filter(([op]) => /^(ERROR|out-of-band)/.test(op));
    for (const [op, n] of sabotage) report.faults[op] = n;
    assert.equal((await cloud.control('DELETE', '/chaos')).status, 200);
    phase('workload');
    // One more kill and start: every object gets a pass against a healthy cloud, as the informers' periodic resync
    // (ten minutes) would give it; that pass is what repairs out-of-band deletes of what no monitor polls.
    assert.equal(await up.stop('SIGKILL'), null, 'killed');
    up = await startChildUp(dir, ['--log-level', 'info']);
    cloud = new BuiltInCloud(dir);
    report.restarts += 1;

    // 1. Everything settles or is gone.
    const settled = await until('every resource settled or gone', SETTLE_MS, async () => {
      const now = await inventory(rest, tenancy);
      const open = unsettled(now);
      return open.length === 0 ? now : open;
    });
    phase('settle');
    // 2. The cloud holds exactly what the store says.
    const disagree = disagreements(await cloud.state(), settled, baseline);
    assert.deepEqual(disagree, [], 'the cloud holds exactly what the store says');

    // 3. Everything deleted: nothing stuck, nothing leaked.
    for (const network of settled.network) await rest('DELETE', `${COLLECTIONS.network}/${network.metadata.id}`);
    const { organizationID, projectID } = tenancy;
    for (const identity of settled.identity) {
      await rest(
        'DELETE',
        `/api/v1/organizations/${organizationID}/projects/${projectID}/identities/${identity.metadata.id}`,
      );
    }
    await until('everything deleted', SETTLE_MS, async () => {
      const now = await inventory(rest, tenancy);
      const left = Object.entries(now).flatMap(([kind, items]) => items.map((i) => `${kind} ${summary(i)}`));
      return left.length === 0 ? true : left;
    });
    phase('teardown');
    // What the teardown counted as left behind, before the documented cleanup runs.
    report.leftBehind = leaksByKind(leaksAfterTeardown(await cloud.state(), baseline));
    // The documented cleanup: `openregion region gc` with the cloud's admin credentials (docs/deploying.md).
    const gc = await regionGc(adminSources(dir), { osCloud: 'emulator' }, { write: () => true });
    report.collected = gc.deleted.length;
    assert.deepEqual(gc.failed, [], 'region gc deleted every group it proved ours');
    phase('gc');
    const leaks = leaksAfterTeardown(await cloud.state(), baseline);
    report.leaks = leaks.length;
    report.leaksByKind = leaksByKind(leaks);
    assert.deepEqual(
      leaks.map((l) => `${l.kind}: ${l.detail}`),
      [],
      'the cloud holds what it held before the workload',
    );
    assert.equal(await up.stop('SIGINT'), 0, 'a clean stop');
    const stuck = await storeLeftovers(join(dir, 'store.db'));
    assert.deepEqual(stuck, [], 'no object left in the store, none stuck on a finalizer');
    ok = true;
  } finally {
    await up.stop('SIGKILL');
    report.seconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `chaos seed ${String(seed)}: ${String(report.operations)} operations ${JSON.stringify(report.byOperation)}, ` +
        `${String(report.refusals)} refused, faults ${JSON.stringify(report.faults)}, ${String(report.restarts)} restarts, ` +
        `left for gc ${JSON.stringify(report.leftBehind)}, gc deleted ${String(report.collected)} default groups, ` +
        `${String(report.leaks)} leaks ${JSON.stringify(report.leaksByKind)}, ${report.seconds.toFixed(0)} s ${JSON.stringify(report.phases)}${ok ? '' : `; kept ${root}`}\n`,
    );
    if (!ok) {
      const errors = up.logs.filter((l) => l.level >= 50).slice(-10);
      for (const line of errors) process.stdout.write(`  last run's error log: ${JSON.stringify(line)}\n`);
    } else rmSync(root, { recursive: true, force: true });
  }
  return report;
}

/** The admin's clouds.yaml `up` wrote (cloud `emulator`), as `region gc --os-cloud emulator` would read it. */
function adminSources(dir: string) {
  return {
    env: { OS_CLIENT_CONFIG_FILE: join(dir, 'clouds.yaml') },
    cwd: dir,
    home: dir,
    readFile: (path: string) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

async function tenancyOf(dir: string, rest: ReturnType<typeof restClient>): Promise<Tenancy> {
  const env = parseDevEnv(readFileSync(join(dir, 'dev.env'), 'utf8'));
  const regionID = env['OPENREGION_REGION_ID'] ?? '';
  const ids = async (path: string) => ((await rest('GET', path)).json as Read[]).map((r) => r.metadata.id);
  const [imageIDs, flavors, classes] = await Promise.all([
    ids(`/api/v2/regions/${regionID}/images`),
    ids(`/api/v2/regions/${regionID}/flavors`),
    ids(`/api/v2/regions/${regionID}/volumeclasses`),
  ]);
  const flavorID = flavors[0];
  const volumeClassID = classes[0];
  assert.ok(imageIDs.length > 0 && flavorID !== undefined && volumeClassID !== undefined, 'the demo region');
  return {
    organizationID: env['OPENREGION_ORGANIZATION_ID'] ?? '',
    projectID: env['OPENREGION_PROJECT_ID'] ?? '',
    regionID,
    imageIDs,
    flavorID,
    volumeClassID,
  };
}

/** Resources neither settled nor gone: deleting, or provisioning still. */
function unsettled(now: Inventory): string[] {
  return Object.entries(now).flatMap(([kind, items]) =>
    items
      .filter(
        (i) =>
          i.metadata.deletionTime !== undefined || !['provisioned', 'error'].includes(i.metadata.provisioningStatus),
      )
      .map((i) => `${kind} ${summary(i)}`),
  );
}

const summary = (read: Read): string =>
  `${read.metadata.id} "${read.metadata.name}" ${read.metadata.provisioningStatus}${
    read.metadata.deletionTime === undefined ? '' : ' (deleting)'
  } ${JSON.stringify(read.status ?? {}).slice(0, 400)}`;

/** Polls until `probe` returns something other than a list of what is still open; fails with that list. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | string[]>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const result = await probe();
    if (!isOpenList(result)) return result;
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${String(ms / 1000)} s; still open:\n${result.join('\n')}`);
    await sleep(POLL_MS);
  }
}

const isOpenList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/** Objects of every region kind but the Region itself still in the store after the teardown. */
async function storeLeftovers(path: string): Promise<string[]> {
  // Up's store, opened as the CLI does: with the encryption key beside it, and no garbage collector of its own.
  const store = openEmbeddedStore(path, {
    clock: systemClock,
    garbageCollection: false,
    encryption: storeEncryption(path, { clock: systemClock }),
  });
  try {
    const left: string[] = [];
    for (const { type } of regionKinds) {
      if (type === regionType) continue;
      const list = await store.list(type, { namespace: NAMESPACE });
      for (const item of list.items) {
        const { name, deletionTimestamp, finalizers } = item.metadata;
        left.push(
          `${type.kind} ${name}${deletionTimestamp === undefined ? '' : ` deleting since ${deletionTimestamp}`} finalizers ${JSON.stringify(finalizers ?? [])}`,
        );
      }
    }
    return left;
  } finally {
    await store.close();
  }
}

/**
 * The Keystone operator's fail-over with N Ready orders, on kube-apiserver 1.20 (bench/README.md "KeystoneUser
 * fail-over"): the namespaced overlay applied to a private server, `serve` replicas with the Deployment's args, the
 * ServiceAccount's token and the `fast` Lease profile, K-ORC and ESO played by the bundled stand-ins in this process,
 * the emulator's Keystone and KV in this process too (so its calls are counted as it receives them). N orders are
 * created and converge to Ready; once quiet, the leader is SIGKILLed, twice: the standby takes over at
 * --keystone-concurrency 1 (the default), then a fresh standby at 4. Figures: the time to the Lease, the time until
 * the new leader has re-read every order (a finished pass each, its queue empty), and every Keystone and KV call
 * the emulator received from the kill until quiet after the re-read: writes must be 0.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { keystoneUserType, type KeystoneUser } from '../src/keystone/apis/index.ts';
import { builtin } from '../src/kube/resource-type.ts';
import { kubectlPresent } from '../test/kube/deploy-fixture.ts';
import {
  CP_NS,
  identityOf,
  keystonePasses,
  killLeader,
  startNamespacedOperator,
  type FailoverFigures,
  type NamespacedOperator,
  type ServeProcess,
} from '../test/kube/keystone-operator-fixture.ts';
import { apiserverScript } from '../test/kube/real-apiserver.ts';
import { EmulatorCalls, totalOf } from './emulator-calls.ts';
import { inLanes, QUIET_MS } from './fleet.ts';
import type { Skipped } from './sdk-compare.ts';

const ORDERS_NS = 'tenant-orders';
// Debug logs name each finished pass: how the re-read is told complete (killLeader).
const FLAGS = ['--leader-election-profile=fast', '--log-level=debug'];
/** How long the leader's passes may take to settle after the orders are Ready before the kill goes ahead anyway. */
const SETTLE_MS = 120_000;

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const isWrite = (key: string) =>
  /^(?:identity|v1) (?:POST|PUT|PATCH|DELETE) /.test(key) && !key.includes('/auth/tokens');
const sumOf = (counts: ReadonlyMap<string, number>, keep: (key: string) => boolean) =>
  totalOf(new Map([...counts].filter(([k]) => keep(k))));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 1_000): Promise<void> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Waits until the emulator has received no call, and `leader` (when given) has finished no KeystoneUser pass, for
 * QUIET_MS; gives up after `timeoutMs`. The ms waited, and whether it went quiet.
 */
async function quiet(
  calls: EmulatorCalls,
  leader?: ServeProcess,
  timeoutMs = SETTLE_MS,
): Promise<{ ms: number; quiet: boolean }> {
  const started = performance.now();
  const activity = async () =>
    totalOf(calls.snapshot()) + (leader === undefined ? 0 : ((await keystonePasses(leader))?.passes ?? 0));
  let last = await activity();
  let since = performance.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = await activity();
    if (now !== last) [last, since] = [now, performance.now()];
    if (performance.now() - since >= QUIET_MS) return { ms: performance.now() - started, quiet: true };
    if (performance.now() - started >= timeoutMs) return { ms: performance.now() - started, quiet: false };
  }
}

const readyCount = async (cluster: NamespacedOperator) =>
  (await cluster.admin.list<KeystoneUser>(keystoneUserType, { namespace: ORDERS_NS })).items.filter(
    (o) => o.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
  ).length;

async function replica(cluster: NamespacedOperator, concurrency: number): Promise<ServeProcess> {
  const serve = await cluster.serve([...FLAGS, `--keystone-concurrency=${String(concurrency)}`]);
  await until('a replica Ready', () => serve.ready(), 300_000, 200).catch((error: unknown) => {
    throw new Error(`${String(error)}; ${serve.output().slice(-2_000)}`);
  });
  await until('it stands for election', () => Promise.resolve(identityOf(serve) !== undefined), 30_000, 100);
  return serve;
}

export async function benchKeystoneFailover(orders: number): Promise<Record<string, number | string> | Skipped> {
  const built = await promisify(execFile)('bash', [apiserverScript, 'binary']).then(
    () => true,
    () => false,
  );
  if (!built) return { skipped: `kube-apiserver is not built (bash ${apiserverScript} build)` };
  if (!(await kubectlPresent())) return { skipped: 'kubectl is not on the PATH' };
  const cluster = await startNamespacedOperator({
    name: 'bench-keystone-failover',
    watched: [CP_NS, ORDERS_NS],
    namespaces: [],
    assigned: [ORDERS_NS],
  });
  const calls = new EmulatorCalls(cluster.emulator.url);
  try {
    const first = await replica(cluster, 4);
    await until(
      'the first replica leads',
      async () => {
        const lease = await cluster.admin
          .get(builtin.lease, cluster.rendered.namespace, 'openregion-controllers')
          .catch(() => undefined);
        return (lease?.['spec'] as { holderIdentity?: string } | undefined)?.holderIdentity === identityOf(first);
      },
      60_000,
      200,
    );
    const second = await replica(cluster, 1);

    const createdAt = performance.now();
    await inLanes(orders, async (i) => {
      await cluster.admin.create(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name: `order-${String(i)}`, namespace: ORDERS_NS },
        spec: { controlPlaneRef: { name: 'cp', namespace: CP_NS } },
      });
    });
    process.stderr.write(`  fail-over: ${String(orders)} orders created; waiting for Ready\n`);
    await until('every order Ready', async () => (await readyCount(cluster)) === orders, 3_600_000, 5_000);
    process.stderr.write(`  fail-over: every order Ready after ${s(performance.now() - createdAt)}\n`);
    const convergeMs = performance.now() - createdAt;

    const failover = async (leader: ServeProcess, standby: ServeProcess) => {
      const settled = await quiet(calls, leader);
      const passesBefore = (await keystonePasses(leader))?.passes ?? 0;
      calls.take();
      const figures: FailoverFigures = await killLeader(
        cluster.admin,
        leader,
        standby,
        orders,
        cluster.rendered.namespace,
      );
      await quiet(calls, undefined, 120_000);
      const seen = calls.take();
      const stillReady = await readyCount(cluster);
      return {
        ...figures,
        keystoneCalls: sumOf(seen, (k) => k.startsWith('identity ')),
        keystoneWrites: sumOf(seen, (k) => k.startsWith('identity ') && isWrite(k)),
        kvWrites: sumOf(seen, (k) => k.startsWith('v1 ') && isWrite(k)),
        stillReady,
        settled,
        passesBefore,
      };
    };
    const atOne = await failover(first, second);
    process.stderr.write(`  fail-over at concurrency 1: ${JSON.stringify(atOne)}\n`);
    const third = await replica(cluster, 4);
    const atFour = await failover(second, third);
    return {
      orders,
      'orders to Ready (replica at concurrency 4)': s(convergeMs),
      'concurrency 1: leader passes before the kill': atOne.passesBefore,
      'concurrency 1: waited for the leader to settle': `${s(atOne.settled.ms)}${atOne.settled.quiet ? '' : ' (not quiet)'}`,
      'concurrency 1: kill → Lease': s(atOne.leaseMs),
      'concurrency 1: kill → every order re-read': s(atOne.rereadMs),
      'concurrency 1: re-read passes (first → last)': s(atOne.passesMs),
      'concurrency 1: passes': atOne.passes,
      'concurrency 1: Keystone calls / writes': `${String(atOne.keystoneCalls)} / ${String(atOne.keystoneWrites)}`,
      'concurrency 1: KV writes': atOne.kvWrites,
      'concurrency 1: Ready after': atOne.stillReady,
      'concurrency 4: waited for the leader to settle': `${s(atFour.settled.ms)}${atFour.settled.quiet ? '' : ' (not quiet)'}`,
      'concurrency 4: kill → Lease': s(atFour.leaseMs),
      'concurrency 4: kill → every order re-read': s(atFour.rereadMs),
      'concurrency 4: re-read passes (first → last)': s(atFour.passesMs),
      'concurrency 4: passes': atFour.passes,
      'concurrency 4: Keystone calls / writes': `${String(atFour.keystoneCalls)} / ${String(atFour.keystoneWrites)}`,
      'concurrency 4: KV writes': atFour.kvWrites,
      'concurrency 4: Ready after': atFour.stillReady,
      'Keystone writes during the re-reads': `${String(atOne.keystoneWrites + atFour.keystoneWrites)} (target = 0: ${
        atOne.keystoneWrites + atFour.keystoneWrites === 0 ? 'met' : 'missed'
      })`,
    };
  } finally {
    calls.close();
    await cluster.close();
  }
}

/**
 * The Keystone orders operator's cost: N KeystoneUser orders placed in the store as `openregion apply` places them,
 * on the system `openregion up` starts (system.ts: the embedded store, the KeystoneUser controller with the bundled
 * K-ORC and ESO actuators, the demo ControlPlane `default/demo`, the emulator's Keystone and KV in a process of its
 * own), until every order is Ready with its credentials Secret delivered; then the calls of a quiet window with
 * nothing changing, and the teardown of every order. bench/README.md gives each limit and why.
 */
import { request } from 'node:http';
import { keystoneUserType, type KeystoneUser } from '../src/keystone/apis/keystoneuser.ts';
import { korcUserType, pushSecretType } from '../src/keystone/apis/index.ts';
import { builtin } from '../src/kube/resource-type.ts';
import { listUsers } from '../src/openstack/identity.ts';
import { Transport } from '../src/openstack/transport.ts';
import { CONTROL_PLANE_NAME, CONTROL_PLANE_NAMESPACE } from '../src/cli/up/keystone.ts';
import { systemClock } from '../src/util/clock.ts';
import { perUnitByVerb, round, totalOf } from './emulator-calls.ts';
import { BENCH_KV_TOKEN, emulatorAdmin } from './emulator-process.ts';
import { closeFleet, inLanes, QUIET_MS } from './fleet.ts';
import { judged, loopDelayDuring, profiled, timed } from './stats.ts';
import { startSystem, waitUntil, type BenchSystem } from './system.ts';

/** The window the steady state is measured over; the figure is extrapolated to an hour. */
const STEADY_WINDOW_MS = 90_000;
/** up's own demo period; the scenario has no server to poll. */
const MONITOR_PERIOD_MS = 10_000;
const PREFIX = 'bench-ks';

/** The calls an order strictly needs (README "KeystoneUser orders"): the collision probe's lookup, the create. */
const KEYSTONE_LIMIT = 2;
/** One push of the credentials document: its metadata (the managed-by mark) and its data. */
const KV_WRITE_LIMIT = 2;
/** The seed's flow: finalizer; probe; managed User; backup pushed; delivered. */
const PASS_LIMIT = 5;
/** The Keystone user's delete, and the KV path's removal as ESO does it (managed-by read, data, metadata). */
const TEARDOWN_LIMIT = 4;
/** K-ORC reads the user before its delete and confirms it gone after. */
const TEARDOWN_KORC_READS = 2;

type Counts = ReadonlyMap<string, number>;

/**
 * KV paths carry the order's own name (`v1 PUT /kv-v2/data/openstack/keystone/default/<prefix>/…`): counted as
 * one template per verb and mount section, so the table reads per kind of call, not per order.
 */
function templated(counts: Counts): Map<string, number> {
  const out = new Map<string, number>();
  for (const [key, n] of counts) {
    const kv = /^(v1 [A-Z]+ \/[^/]+\/(?:data|metadata))\/[^?]*(\?.*)?$/.exec(key);
    const k = kv === null ? key : `${kv[1] ?? ''}/{path}${kv[2] ?? ''}`;
    out.set(k, (out.get(k) ?? 0) + n);
  }
  return out;
}

const only = (counts: Counts, service: string): Map<string, number> =>
  new Map([...counts].filter(([k]) => k.startsWith(`${service} `)));
const writes = (counts: Counts): number =>
  totalOf(new Map([...counts].filter(([k]) => /^v1 (?:PUT|POST|DELETE) /.test(k))));

/** Reconcile passes finished so far per controller (the runtime's counter, as /metrics shows it). */
async function passes(system: BenchSystem): Promise<Map<string, number>> {
  const text = await (await fetch(`${system.control.api}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^controller_runtime_reconcile_total\{[^}]*controller="([^"]+)"[^}]*\} (\d+)/gm)) {
    out.set(m[1] ?? '', (out.get(m[1] ?? '') ?? 0) + Number(m[2]));
  }
  return out;
}

function passesSince(before: Counts, after: Counts, orders: number): Record<string, number> {
  return Object.fromEntries(
    [...after]
      .filter(([name]) => !name.startsWith('region-'))
      .map(([name, n]): [string, number] => [name, round((n - (before.get(name) ?? 0)) / orders)])
      .filter(([, n]) => n !== 0),
  );
}

/**
 * Waits until QUIET_MS pass with no call at all (no server is polled here) and no reconcile pass: passes still
 * draining a queue make no call, and would otherwise be counted as the steady state's.
 */
async function quiet(system: BenchSystem): Promise<void> {
  const activity = async () => [totalOf(await system.calls.snapshot()), totalOf(await passes(system))].join('/');
  for (let i = 0; i < 50; i++) {
    const before = await activity();
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if ((await activity()) === before) return;
  }
  throw new Error('the system never went quiet');
}

const order = (i: number): KeystoneUser => ({
  apiVersion: 'c5c3.io/v1alpha1',
  kind: 'KeystoneUser',
  metadata: { name: `${PREFIX}-${String(i)}`, namespace: CONTROL_PLANE_NAMESPACE },
  spec: { controlPlaneRef: { name: CONTROL_PLANE_NAME } },
});

const isDelivered = (o: KeystoneUser): boolean =>
  o.status?.secretName !== undefined &&
  (o.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** The KV paths left under the ControlPlane's namespace (the emulator's listing, not counted as a call). */
function kvPathsLeft(system: BenchSystem): Promise<number> {
  const url = new URL(`/v1/kv-v2/metadata/openstack/keystone/${CONTROL_PLANE_NAMESPACE}?list=true`, system.calls.url);
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'x-vault-token': BENCH_KV_TOKEN } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => {
        resolve(res.statusCode === 404 ? 0 : (JSON.parse(body) as { data: { keys: string[] } }).data.keys.length);
      });
    })
      .on('error', reject)
      .end();
  });
}

export async function benchKeystoneOrders(count: number): Promise<Record<string, number | string>> {
  await closeFleet();
  const system = await startSystem({ projects: 0, monitorPeriodMs: MONITOR_PERIOD_MS });
  const transport = new Transport({ clock: systemClock, random: Math.random });
  try {
    const { store } = system.control;
    const admin = emulatorAdmin(system.calls.authUrl, transport).client('identity');
    const benchUsers = async () => (await listUsers(admin)).filter((u) => u.name.startsWith(PREFIX)).length;
    const secretsBefore = (await store.list(builtin.secret, { namespace: CONTROL_PLANE_NAMESPACE })).items.length;
    const ordersNow = async () =>
      (await store.list(keystoneUserType, { namespace: CONTROL_PLANE_NAMESPACE })).items.filter((o) =>
        o.metadata.name.startsWith(PREFIX),
      );
    await quiet(system);
    await system.calls.take();
    const passesBefore = await passes(system);

    let placedMs = 0;
    // BENCH_PROFILE: the convergence window as a CPU profile, to explain the event loop's figure.
    const converge = await loopDelayDuring(() =>
      profiled(`keystone-orders-${String(count)}-converging`, () =>
        timed(async () => {
          placedMs = await timed(() =>
            inLanes(count, async (i) => {
              await store.create(keystoneUserType, order(i));
            }),
          );
          await waitUntil(async () => {
            const all = await ordersNow();
            return all.length === count && all.every(isDelivered);
          }, 250);
        }),
      ),
    );
    const delivered = (await store.list(builtin.secret, { namespace: CONTROL_PLANE_NAMESPACE })).items.filter((s) =>
      /^bench-ks-\d+-credentials$/.test(s.metadata.name),
    ).length;
    const untilReady = templated(await system.calls.snapshot());
    await quiet(system);
    const converged = templated(await system.calls.take());
    const passesConverged = await passes(system);
    const keystone = only(converged, 'identity');
    const kv = only(converged, 'v1');
    const keystonePerOrder = round(totalOf(keystone) / count);
    const kvWritesPerOrder = round(writes(kv) / count);
    const orderPasses = ((passesConverged.get('keystoneuser') ?? 0) - (passesBefore.get('keystoneuser') ?? 0)) / count;

    // Steady state: nothing changes for a window; every call and pass in it is the cost of standing still.
    await new Promise((resolve) => setTimeout(resolve, STEADY_WINDOW_MS));
    const steady = templated(await system.calls.take());
    const passesSteady = await passes(system);
    const perHour = (n: number) => round((n * 3_600_000) / STEADY_WINDOW_MS, 1);
    const steadyKeystone = perHour(totalOf(only(steady, 'identity')));
    const steadyPasses = perHour(
      [...passesSteady].reduce((sum, [name, n]) => sum + n - (passesConverged.get(name) ?? 0), 0),
    );

    // Teardown: every order deleted as `openregion delete` deletes it, until none is listed and the system is quiet.
    const teardownMs = await timed(async () => {
      await inLanes(count, async (i) => {
        await store.delete(keystoneUserType, CONTROL_PLANE_NAMESPACE, `${PREFIX}-${String(i)}`);
      });
      await waitUntil(async () => (await ordersNow()).length === 0, 250);
    });
    await quiet(system);
    const teardown = templated(await system.calls.take());
    // The operator's calls only: the region's own (its image listing) are no teardown's.
    const teardownPerOrder = round((totalOf(only(teardown, 'identity')) + totalOf(only(teardown, 'v1'))) / count);
    const left = {
      users: await benchUsers(),
      kv: await kvPathsLeft(system),
      secrets: (await store.list(builtin.secret, { namespace: CONTROL_PLANE_NAMESPACE })).items.length - secretsBefore,
      korcUsers: (await store.list(korcUserType, { namespace: CONTROL_PLANE_NAMESPACE })).items.length,
      pushSecrets: (await store.list(pushSecretType, { namespace: CONTROL_PLANE_NAMESPACE })).items.length,
    };
    const seconds = converge.result / 1000;
    return {
      orders: count,
      'wall time to all Ready and delivered (s)': round(seconds),
      'of it placing the orders (s)': round(placedMs / 1000),
      'orders Ready per second': round(count / seconds, 1),
      'credentials Secrets delivered': delivered,
      'event loop p99 while converging (ms)': judged(converge.p99Ms, '<', 50),
      'event loop max while converging (ms)': converge.maxMs,
      'KeystoneUser passes per order': judged(round(orderPasses), '≤', 2 * PASS_LIMIT),
      'every controller, passes per order': JSON.stringify(passesSince(passesBefore, passesConverged, count)),
      'Keystone calls per order, until Ready': round(totalOf(only(untilReady, 'identity')) / count),
      'Keystone calls per order, until quiet': judged(keystonePerOrder, '≤', 2 * KEYSTONE_LIMIT),
      'Keystone calls by path, per order': JSON.stringify(perKey(keystone, count)),
      'KV writes per order': judged(kvWritesPerOrder, '≤', KV_WRITE_LIMIT),
      'KV calls by path, per order': JSON.stringify(perKey(kv, count)),
      'other calls per order': JSON.stringify(
        perUnitByVerb(new Map([...converged].filter(([k]) => !/^(identity|v1) /.test(k))), count),
      ),
      [`steady state: window measured (s)`]: STEADY_WINDOW_MS / 1000,
      'steady state: Keystone calls per hour (extrapolated)': judged(steadyKeystone, '≤', 0),
      'steady state: KV calls per hour (extrapolated)': perHour(totalOf(only(steady, 'v1'))),
      'steady state: reconcile passes per hour (extrapolated)': steadyPasses,
      'steady state: passes in the window, by controller': JSON.stringify(
        passesSince(passesConverged, passesSteady, 1),
      ),
      'steady state: calls by path in the window': JSON.stringify(Object.fromEntries(steady)),
      'teardown wall time (s)': round(teardownMs / 1000),
      'teardown calls per order': judged(teardownPerOrder, '≤', TEARDOWN_LIMIT + TEARDOWN_KORC_READS),
      'teardown calls by path, per order': JSON.stringify(perKey(teardown, count)),
      'left after teardown: Keystone users, KV paths, Secrets, K-ORC Users, PushSecrets': judged(
        left.users + left.kv + left.secrets + left.korcUsers + left.pushSecrets,
        '≤',
        0,
      ),
      'left after teardown, by kind': JSON.stringify(left),
    };
  } finally {
    await transport.close();
    await system.stop();
  }
}

const perKey = (counts: Counts, units: number): Record<string, number> =>
  Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => [k, round(n / units)]));

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '../kube/client.ts';
import { KubeInternalError } from '../kube/errors.ts';
import { builtin } from '../kube/resource-type.ts';
import { ManualClock } from '../util/clock.ts';
import type { Logger } from 'pino';
import { DEFAULT_LEASE_TIMINGS, LeaderElector, leaseTimingsProblem, type LeaseTimings } from './leader.ts';
import { silentLogger } from './logger.ts';
import { Manager } from './manager.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { capturedLogger } from './testing/logger.ts';
import { eventually, objectOf, widgetType } from './testing/helpers.ts';

/** A replica's view of the API: `down` makes every call fail, as a partition would. */
function partitionable(client: Client): { client: Client; setDown: (down: boolean) => void } {
  let down = false;
  const guard = <T>(call: () => T): T => {
    if (down) throw new KubeInternalError('connection refused');
    return call();
  };
  return {
    setDown: (d) => {
      down = d;
    },
    client: {
      get: (t, ns, n) => guard(() => client.get(t, ns, n)),
      list: (t, o) => guard(() => client.list(t, o)),
      watch: (t, o) => guard(() => client.watch(t, o)),
      create: (t, o, w) => guard(() => client.create(t, o, w)),
      update: (t, o, w) => guard(() => client.update(t, o, w)),
      patch: (t, ns, n, p, w) => guard(() => client.patch(t, ns, n, p, w)),
      apply: (t, o, a) => guard(() => client.apply(t, o, a)),
      delete: (t, ns, n, d) => guard(() => client.delete(t, ns, n, d)),
      servedVersions: (g, p) => guard(() => client.servedVersions(g, p)),
    },
  };
}

function setup() {
  const store = new FakeClient();
  const scheduler = new ManualScheduler(new ManualClock());
  const replica = (identity: string, logger: Logger = silentLogger(), timings: Partial<LeaseTimings> = {}) => {
    const view = partitionable(store);
    const log: string[] = [];
    const elector = new LeaderElector({
      client: view.client,
      scheduler,
      log: logger,
      namespace: 'kube-system',
      name: 'openregion',
      identity,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      ...timings,
      onStartedLeading: () => log.push('started'),
      onStoppedLeading: () => log.push('stopped'),
    });
    return {
      elector,
      log,
      setDown: (down: boolean) => {
        view.setDown(down);
      },
    };
  };
  const lease = () => store.get(builtin.lease, 'kube-system', 'openregion');
  return { store, scheduler, replica, lease };
}

describe('LeaderElector', () => {
  it('acquires a free lease, renews it, and keeps a standby waiting', async () => {
    const { scheduler, replica, lease } = setup();
    const a = replica('a');
    const b = replica('b');
    a.elector.start();
    await scheduler.advance(0);
    b.elector.start();
    await scheduler.advance(0);
    assert.equal(a.elector.isLeader, true);
    assert.equal(b.elector.isLeader, false);
    const first = await lease();
    assert.equal(first.spec?.holderIdentity, 'a');
    assert.equal(first.spec.leaseDurationSeconds, 15);
    assert.match(first.spec.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await scheduler.advance(60_000);
    assert.equal(b.elector.isLeader, false, 'a renewed lease is never taken');
    assert.notEqual((await lease()).spec?.renewTime, first.spec.renewTime);
    assert.deepEqual(a.log, ['started']);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('hands over at once when the leader releases the lease', async () => {
    const { scheduler, replica, lease } = setup();
    const a = replica('a');
    const b = replica('b');
    a.elector.start();
    await scheduler.advance(0);
    b.elector.start();
    await scheduler.advance(0);
    await a.elector.stop();
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal((await lease()).spec?.holderIdentity, '');
    await scheduler.advance(2_000);
    assert.equal(b.elector.isLeader, true);
    const taken = await lease();
    assert.equal(taken.spec?.holderIdentity, 'b');
    assert.equal(taken.spec.leaseTransitions, 1);
    await b.elector.stop();
  });

  it('a partitioned leader stops at its renew deadline; the standby takes over once the lease expires', async () => {
    const { scheduler, replica, lease } = setup();
    const a = replica('a');
    const b = replica('b');
    a.elector.start();
    b.elector.start();
    await scheduler.advance(0);
    assert.equal(a.elector.isLeader, true);
    a.setDown(true);
    await scheduler.advance(8_000);
    assert.equal(a.elector.isLeader, true, 'still inside the renew deadline');
    await scheduler.advance(2_000);
    assert.equal(a.elector.isLeader, false, 'gave up after 10 s without a renewal');
    assert.deepEqual(a.log, ['started', 'stopped']);
    assert.equal(b.elector.isLeader, false, 'the lease has not expired yet');
    await scheduler.advance(6_000);
    assert.equal(b.elector.isLeader, true);
    assert.equal((await lease()).spec?.holderIdentity, 'b');

    // The old leader comes back and sees a live holder: it stays a standby.
    a.setDown(false);
    await scheduler.advance(20_000);
    assert.equal(a.elector.isLeader, false);
    assert.equal(b.elector.isLeader, true);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('rejects a renew deadline that is not shorter than the lease', () => {
    const { store, scheduler } = setup();
    assert.throws(
      () =>
        new LeaderElector({
          client: store,
          scheduler,
          log: silentLogger(),
          namespace: 'n',
          name: 'l',
          identity: 'a',
          leaseDurationMs: 5_000,
          renewDeadlineMs: 5_000,
          onStartedLeading: () => undefined,
          onStoppedLeading: () => undefined,
        }),
      /renew deadline/,
    );
  });
});

describe('Manager with leader election', () => {
  it('reconciles only while leading, is ready as a standby too, and stops reconciling on loss', async () => {
    const store = new FakeClient();
    const scheduler = new ManualScheduler(new ManualClock());
    const view = partitionable(store);
    const passes: string[] = [];
    let lost = 0;
    const manager = new Manager({
      client: view.client,
      clock: scheduler.clock,
      scheduler,
      random: () => 0,
      resyncMs: 3_600_000,
      leaderElection: { namespace: 'kube-system', name: 'openregion', identity: 'a' },
      onLostLeadership: () => lost++,
    });
    manager
      .controller('widgets')
      .for(widgetType)
      .complete((req) => {
        passes.push(req.name);
        return Promise.resolve({});
      });
    await store.create(builtin.lease, {
      ...objectOf(builtin.lease, 'kube-system', 'openregion'),
      spec: { holderIdentity: 'other', leaseDurationSeconds: 15 },
    });
    await store.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await manager.start();
    await scheduler.advance(0);
    assert.equal(manager.isLeader, false);
    assert.equal(manager.health.readyz().status, 200, 'a standby is Ready: its caches serve');
    assert.doesNotMatch(manager.health.readyz().body, /leader/);
    assert.match(manager.health.healthz().body, /\[\+\]leader-election ok/, "liveness watches the election's loop");
    assert.match(await manager.metrics.registry.metrics(), /leader_election_master_status\{name="openregion"\} 0/);
    assert.deepEqual(passes, [], 'a standby does not reconcile');

    await scheduler.advance(16_000);
    assert.equal(manager.isLeader, true);
    await eventually(() => passes.length === 1, 'the new leader reconciles what is cached');
    assert.equal(manager.health.readyz().status, 200);
    assert.match(await manager.metrics.registry.metrics(), /leader_election_master_status\{name="openregion"\} 1/);

    view.setDown(true);
    await scheduler.advance(10_000);
    await eventually(() => lost === 1, 'lost leadership');
    assert.match(await manager.metrics.registry.metrics(), /leader_election_master_status\{name="openregion"\} 0/);
    view.setDown(false);
    await store.create(widgetType, objectOf(widgetType, 'ns', 'b'));
    await settle();
    assert.deepEqual(passes, ['a'], 'no reconcile after losing the lease');
    await manager.stop();
    assert.equal(lost, 1, 'a graceful stop is not reported as a loss');
  });
});

describe('leader election liveness', () => {
  it('stays live while the loop makes attempts, standby or leader; fails once an attempt hangs past lease + tolerance', async () => {
    const scheduler = new ManualScheduler(new ManualClock(0));
    const store = new FakeClient();
    let hang = false;
    const view = partitionable(store);
    const client: Client = {
      ...view.client,
      get: (t, ns, n) => (hang ? new Promise(() => undefined) : store.get(t, ns, n)),
    };
    await store.create(builtin.lease, {
      ...objectOf(builtin.lease, 'kube-system', 'live'),
      spec: { holderIdentity: 'other', leaseDurationSeconds: 15 },
    });
    const elector = new LeaderElector({
      client,
      scheduler,
      log: silentLogger(),
      namespace: 'kube-system',
      name: 'live',
      identity: 'me',
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    elector.start();
    await scheduler.advance(60_000);
    assert.equal(elector.isLeader, true, 'took the lease once the other holder lapsed');
    assert.equal(elector.check(20_000), true);
    hang = true;
    await scheduler.advance(30_000);
    assert.equal(elector.check(20_000), true, 'within a lease plus the tolerance');
    await scheduler.advance(10_000);
    assert.match(String(elector.check(20_000)), /leader has not renewed lease live for \d+s/);
  });
});

describe('leader election liveness before the replica stands', () => {
  it('is live while the caches still list, before start, however long that takes', async () => {
    const scheduler = new ManualScheduler(new ManualClock(Date.parse('2026-12-05T00:00:00Z')));
    const elector = new LeaderElector({
      client: new FakeClient(),
      scheduler,
      log: silentLogger(),
      namespace: 'kube-system',
      name: 'late',
      identity: 'me',
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    });
    assert.equal(elector.check(20_000), true, 'not standing yet: the probe server answers while caches list');
    await scheduler.advance(120_000);
    assert.equal(elector.check(20_000), true);
    elector.start();
    await scheduler.advance(1_000);
    assert.equal(elector.check(20_000), true);
    await elector.stop();
  });
});

describe('leader election timings and what a replica logs', () => {
  it("defaults to controller-runtime's 15 s / 10 s / 2 s", () => {
    assert.deepEqual(DEFAULT_LEASE_TIMINGS, { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
    assert.equal(leaseTimingsProblem(DEFAULT_LEASE_TIMINGS), undefined);
    assert.equal(
      leaseTimingsProblem({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 }),
      undefined,
    );
  });

  it('refuses timings that cannot elect safely, saying why', () => {
    const problem = (leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number) =>
      leaseTimingsProblem({ leaseDurationMs, renewDeadlineMs, retryPeriodMs });
    assert.match(
      problem(10_000, 10_000, 2_000) ?? '',
      /renew deadline \(10s\) must be shorter than the lease duration/,
    );
    assert.match(problem(15_000, 2_000, 2_000) ?? '', /longer than 1\.2 retry periods/);
    assert.match(problem(2_500, 1_000, 200) ?? '', /whole number of seconds/);
    assert.match(problem(0, 0, 0) ?? '', /retry period/);
    assert.match(problem(500, 300, 100) ?? '', /at least 1s/);
  });

  it('every replica logs its identity and timings when it starts, leader or not', async () => {
    const { scheduler, replica } = setup();
    const la = capturedLogger();
    const lb = capturedLogger();
    const a = replica('a', la.log);
    const b = replica('b', lb.log);
    a.elector.start();
    await scheduler.advance(0);
    b.elector.start();
    await scheduler.advance(0);
    assert.equal(b.elector.isLeader, false);
    const standing = lb.records().find((r) => r.msg === 'standing for election');
    assert.equal(standing?.identity, 'b');
    assert.equal(standing.lease, 'kube-system/openregion');
    assert.equal(standing.leaseDurationMs, 15_000);
    await a.elector.stop();
    await b.elector.stop();
  });

  it('a new leader logs the holder it replaced and how long nobody led', async () => {
    const { scheduler, replica } = setup();
    const fast = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500 };
    const la = capturedLogger();
    const lb = capturedLogger();
    const a = replica('a', la.log, fast);
    const b = replica('b', lb.log, fast);
    a.elector.start();
    await scheduler.advance(0);
    b.elector.start();
    await scheduler.advance(1_000);
    const crashedAt = scheduler.clock.now();
    a.setDown(true); // as if SIGKILLed: no more renewals, no release
    await scheduler.advance(5_000);
    assert.equal(b.elector.isLeader, true);
    const became = lb.records().find((r) => r.msg === 'became leader');
    assert.equal(became?.identity, 'b');
    assert.equal(became.previousHolder, 'a');
    assert.equal(became.released, false);
    assert.equal(became.leaseTransitions, 1);
    const gap = became.gapMs as number;
    // The last renewal came at most a retry period before the crash; the takeover once the lease expired after it.
    assert.ok(gap >= 3_000 && gap <= 3_000 + 2 * 500, `gap ${String(gap)}`);
    assert.ok(scheduler.clock.now() - crashedAt >= 3_000);
    assert.equal(typeof became.unchangedForMs, 'number');
    const first = la.records().find((r) => r.msg === 'became leader');
    assert.equal(first?.previousHolder, null, 'the first holder created the Lease');
    await b.elector.stop();
    a.setDown(false);
    await a.elector.stop();
  });

  it('after a release the new leader still names the holder that released it', async () => {
    const { scheduler, replica } = setup();
    const lb = capturedLogger();
    const a = replica('a');
    const b = replica('b', lb.log);
    a.elector.start();
    await scheduler.advance(0);
    b.elector.start();
    await scheduler.advance(0);
    await a.elector.stop();
    await scheduler.advance(2_000);
    const became = lb.records().find((r) => r.msg === 'became leader');
    assert.equal(became?.previousHolder, 'a');
    assert.equal(became.released, true);
    await b.elector.stop();
  });
});

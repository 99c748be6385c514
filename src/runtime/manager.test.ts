import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConflictError } from '../kube/errors.ts';
import type { KubeObject } from '../kube/object.ts';
import { ManualClock } from '../util/clock.ts';
import { Manager } from './manager.ts';
import { generationChanged, labelChanged, or } from './predicates.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { capturedLogger } from './testing/logger.ts';
import { eventually, gadgetType, objectOf, widgetType } from './testing/helpers.ts';
import { ReportedFailure, type Reconciler, type Request, type Result } from './types.ts';

const show = (r: Request) => `${r.cluster}|${r.namespace}/${r.name}`;

function setup() {
  const client = new FakeClient();
  const clock = new ManualClock();
  const scheduler = new ManualScheduler(clock);
  const manager = new Manager({ client, clock, scheduler, random: () => 0, resyncMs: 3_600_000 });
  const passes: string[] = [];
  const record =
    (result: (req: Request) => Promise<Result> | Result = () => ({})): Reconciler =>
    async (req) => {
      passes.push(show(req));
      return result(req);
    };
  return { client, clock, scheduler, manager, passes, record };
}

/** A gate a reconcile pass waits on, so a test can hold passes in flight. */
function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    open: () => {
      open();
    },
    opened,
  };
}

describe('Manager and controllers', () => {
  it('for(): every event on the reconciled kind wakes its own request', async () => {
    const { client, manager, passes, record } = setup();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'existing'));
    manager.controller('widgets').for(widgetType).complete(record());
    await manager.start();
    await eventually(() => passes.length === 1);
    await client.create(widgetType, objectOf(widgetType, 'ns', 'new'));
    await client.delete(widgetType, 'ns', 'existing');
    await eventually(() => passes.length === 3);
    assert.deepEqual(passes, ['|ns/existing', '|ns/new', '|ns/existing']);
    await manager.stop();
  });

  it('namespacesOf: the management caches of a kind watch only its namespaces; other kinds every namespace', async () => {
    const client = new FakeClient();
    const scheduler = new ManualScheduler(new ManualClock());
    const manager = new Manager({
      client,
      clock: scheduler.clock,
      scheduler,
      random: () => 0,
      namespacesOf: (type) => (type === widgetType ? ['mine'] : undefined),
    });
    const passes: string[] = [];
    const record: Reconciler = (req) => {
      passes.push(show(req));
      return Promise.resolve({});
    };
    for (const ns of ['mine', 'theirs']) {
      await client.create(widgetType, objectOf(widgetType, ns, 'w'));
      await client.create(gadgetType, objectOf(gadgetType, ns, 'g'));
    }
    manager.controller('widgets').for(widgetType).complete(record);
    manager.controller('gadgets').for(gadgetType).complete(record);
    await manager.start();
    await eventually(() => passes.length === 3);
    await settle();
    assert.deepEqual(passes.sort(), ['|mine/g', '|mine/w', '|theirs/g']);
    assert.deepEqual(
      manager.list(widgetType).map((o) => o.metadata.namespace),
      ['mine'],
    );
    await manager.stop();
  });

  it('de-duplicates: events for a key while its pass is in flight give exactly one more pass', async () => {
    const { client, manager, passes, record } = setup();
    const hold = gate();
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(
        record(async () => {
          await hold.opened;
          return {};
        }),
      );
    await manager.start();
    const w = await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => passes.length === 1);
    let current = w;
    for (let i = 0; i < 5; i++) current = await client.update(widgetType, { ...current, spec: { n: i } });
    await settle();
    assert.equal(passes.length, 1, 'no second pass while the first is in flight');
    hold.open();
    await eventually(() => passes.length === 2);
    await settle();
    assert.equal(passes.length, 2);
    await manager.stop();
  });

  it('runs different keys concurrently up to maxConcurrentReconciles, never one key twice at once', async () => {
    const { client, manager, record } = setup();
    const running = new Map<string, number>();
    let peak = 0;
    let peakPerKey = 0;
    const hold = gate();
    manager
      .controller('widgets')
      .for(widgetType)
      .withOptions({ maxConcurrentReconciles: 2 })
      .complete(
        record(async (req) => {
          const n = (running.get(req.name) ?? 0) + 1;
          running.set(req.name, n);
          peakPerKey = Math.max(peakPerKey, n);
          peak = Math.max(
            peak,
            [...running.values()].reduce((a, b) => a + b, 0),
          );
          await hold.opened;
          running.set(req.name, n - 1);
          return {};
        }),
      );
    await manager.start();
    for (const name of ['a', 'b', 'c']) await client.create(widgetType, objectOf(widgetType, 'ns', name));
    await eventually(() => peak === 2);
    await settle();
    assert.equal(peak, 2, 'the third key waits for a worker');
    hold.open();
    await eventually(() => [...running.values()].every((n) => n === 0) && running.size === 3);
    assert.equal(peakPerKey, 1);
    await manager.stop();
  });

  it('owns(): an owned object wakes its controller owner, on the event cluster', async () => {
    const { client, manager, passes, record } = setup();
    manager.controller('widgets').for(widgetType).owns(gadgetType).complete(record());
    await manager.start();
    const owner = { apiVersion: 'example.io/v1', kind: 'Widget', name: 'w', uid: 'u1' };
    await client.create(
      gadgetType,
      objectOf(gadgetType, 'ns', 'g1', { ownerReferences: [{ ...owner, controller: true }] }),
    );
    await client.create(gadgetType, objectOf(gadgetType, 'ns', 'g2', { ownerReferences: [owner] }));
    await client.create(
      gadgetType,
      objectOf(gadgetType, 'ns', 'g3', {
        ownerReferences: [{ ...owner, apiVersion: 'other.io/v1', name: 'x', controller: true }],
      }),
    );
    await eventually(() => passes.length === 1);
    await settle();
    assert.deepEqual(passes, ['|ns/w'], 'only a controller reference of the reconciled kind maps');
    await manager.stop();
  });

  it('watches(): the mapper decides the requests, including their cluster', async () => {
    const { client, manager, passes, record } = setup();
    manager
      .controller('widgets')
      .for(widgetType)
      .watches(gadgetType, (o) => {
        const labels = o.metadata.labels ?? {};
        const name = labels['widget-name'];
        return name === undefined ? [] : [{ cluster: labels['widget-cluster'] ?? '', namespace: 'orders', name }];
      })
      .complete(record());
    await manager.start();
    await client.create(gadgetType, objectOf(gadgetType, 'ns', 'g1', { labels: { 'widget-name': 'w1' } }));
    await client.create(
      gadgetType,
      objectOf(gadgetType, 'ns', 'g2', { labels: { 'widget-name': 'w2', 'widget-cluster': 'edge-1' } }),
    );
    await client.create(gadgetType, objectOf(gadgetType, 'ns', 'g3'));
    await eventually(() => passes.length === 2);
    await settle();
    assert.deepEqual(passes, ['|orders/w1', 'edge-1|orders/w2']);
    await manager.stop();
  });

  it('an update whose old and new object map to the same request gives one pass, not two', async () => {
    const { client, manager, passes, record } = setup();
    manager
      .controller('widgets')
      .for(widgetType)
      .watches(gadgetType, (o) => [
        { cluster: '', namespace: 'orders', name: o.metadata.labels?.['widget-name'] ?? '' },
      ])
      .complete(record());
    await manager.start();
    const created = await client.create(
      gadgetType,
      objectOf(gadgetType, 'ns', 'g1', { labels: { 'widget-name': 'w1' } }),
    );
    await eventually(() => passes.length === 1);
    await client.update(gadgetType, { ...created, spec: { size: 2 } });
    await eventually(() => passes.length === 2);
    await settle();
    assert.deepEqual(passes, ['|orders/w1', '|orders/w1']);
    await manager.stop();
  });

  it('predicates filter events before mapping', async () => {
    const { client, manager, passes, record } = setup();
    manager
      .controller('widgets')
      .for(widgetType, { predicates: [or(generationChanged, labelChanged)] })
      .complete(record());
    await manager.start();
    let w = await client.create(widgetType, objectOf(widgetType, 'ns', 'a', { spec: { n: 1 } }));
    await eventually(() => passes.length === 1);
    w = await client.update(widgetType, { ...w, metadata: { ...w.metadata, annotations: { note: 'x' } } });
    w = await client.update(widgetType, { ...w, status: { ready: true } });
    await settle();
    assert.equal(passes.length, 1, 'an annotation or status write does not wake it');
    w = await client.update(widgetType, { ...w, spec: { n: 2 } });
    await eventually(() => passes.length === 2);
    await client.update(widgetType, { ...w, metadata: { ...w.metadata, labels: { team: 'a' } } });
    await eventually(() => passes.length === 3);
    await manager.stop();
  });

  it('field indexers: the cache lists by index value, kept current, and a mapper can fan out through it', async () => {
    const { client, manager, passes, record } = setup();
    const refOf = (o: KubeObject) => {
      const spec = o['spec'] as { ref?: string } | undefined;
      return spec?.ref === undefined ? [] : [`${o.metadata.namespace ?? ''}/${spec.ref}`];
    };
    manager.index(widgetType, 'spec.ref', refOf);
    manager
      .controller('widgets')
      .for(widgetType, { predicates: [() => false] })
      .watches(
        gadgetType,
        (g) =>
          manager
            .list(widgetType, { index: 'spec.ref', value: `${g.metadata.namespace ?? ''}/${g.metadata.name}` })
            .map((w) => ({ cluster: '', namespace: w.metadata.namespace ?? '', name: w.metadata.name })),
        { clusters: 'management' },
      )
      .complete(record());
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'w1', { spec: { ref: 'cp' } }));
    const w2 = await client.create(widgetType, objectOf(widgetType, 'ns', 'w2', { spec: { ref: 'cp' } }));
    await client.create(widgetType, objectOf(widgetType, 'other', 'w3', { spec: { ref: 'cp' } }));
    await eventually(() => manager.list(widgetType).length === 3);
    const byRef = () =>
      manager
        .list(widgetType, { index: 'spec.ref', value: 'ns/cp' })
        .map((w) => w.metadata.name)
        .sort();
    assert.deepEqual(byRef(), ['w1', 'w2']);
    await client.update(widgetType, { ...w2, spec: { ref: 'elsewhere' } });
    await eventually(() => byRef().length === 1);
    assert.deepEqual(byRef(), ['w1']);
    assert.deepEqual(
      manager.list(widgetType, { index: 'spec.ref', value: 'ns/elsewhere' }).map((w) => w.metadata.name),
      ['w2'],
    );
    assert.throws(() => manager.list(widgetType, { index: 'nope', value: 'x' }), /no index "nope"/);

    await client.create(gadgetType, objectOf(gadgetType, 'ns', 'cp'));
    await eventually(() => passes.length === 1);
    assert.deepEqual(passes, ['|ns/w1']);
    await manager.stop();
  });

  it('requeueAfter brings the request back after that long', async () => {
    const { client, scheduler, manager, passes, record } = setup();
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(record(() => ({ requeueAfterMs: 600_000 })));
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => passes.length === 1);
    await scheduler.advance(599_999);
    assert.equal(passes.length, 1);
    await scheduler.advance(1);
    await eventually(() => passes.length === 2);
    await manager.stop();
  });

  it('a failing pass is retried with growing backoff, reset by a success', async () => {
    const { client, scheduler, manager, passes, record } = setup();
    let failing = 3;
    manager
      .controller('widgets')
      .for(widgetType)
      .withOptions({ backoff: { baseMs: 1_000, capMs: 60_000, jitter: 0 } })
      .complete(
        record(() => {
          if (failing-- > 0) throw new Error('transient');
          return {};
        }),
      );
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => passes.length === 1);
    assert.ok(scheduler.pending().includes(1_000));
    await scheduler.advance(1_000);
    await eventually(() => passes.length === 2);
    assert.ok(scheduler.pending().includes(2_000));
    await scheduler.advance(2_000);
    await eventually(() => passes.length === 3);
    await scheduler.advance(4_000);
    await eventually(() => passes.length === 4);
    assert.equal(manager.metrics.registry.getSingleMetric('workqueue_retries_total') !== undefined, true);
    assert.equal(scheduler.pending().filter((ms) => ms < 100_000).length, 0, 'no retry after the success');
    await manager.stop();
  });

  it('a lost write race logs a warning, a reported failure a debug line, both without a stack; a bug an error with one', async () => {
    const client = new FakeClient();
    const scheduler = new ManualScheduler(new ManualClock());
    const { log, records } = capturedLogger();
    const manager = new Manager({
      client,
      clock: scheduler.clock,
      scheduler,
      random: () => 0,
      log,
      resyncMs: 3_600_000,
    });
    const throws = [
      new KubeConflictError('the object has been modified'),
      new ReportedFailure('provider call failed; retrying'),
      new Error('a bug'),
    ];
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(async () => {
        const next = throws.shift();
        if (next !== undefined) throw next;
        return Promise.resolve({});
      });
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => records().some((r) => r.msg === 'reconcile lost a race; retrying'));
    await scheduler.advance(60_000);
    await eventually(() => records().some((r) => r.msg === 'retrying with backoff'));
    await scheduler.advance(60_000);
    await eventually(() => records().some((r) => r.msg === 'reconcile failed'));
    await manager.stop();
    const race = records().find((r) => r.msg === 'reconcile lost a race; retrying');
    const reported = records().find((r) => r.msg === 'retrying with backoff');
    const bug = records().find((r) => r.msg === 'reconcile failed');
    assert.equal(reported?.level, 'debug');
    assert.equal(records().filter((r) => r.level === 'error').length, 1, 'one error: the bug');
    assert.equal(race?.level, 'warn');
    assert.equal(race.reason, 'the object has been modified');
    assert.doesNotMatch(JSON.stringify(race), /\bat /, 'no stack');
    assert.equal(bug?.level, 'error');
    assert.match(JSON.stringify(bug), /a bug.*\bat /, 'the stack of what nobody expected');
  });

  it('exposes the reconcile and queue metrics by their controller-runtime names', async () => {
    const { client, manager, passes, record } = setup();
    let fail = true;
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(
        record(() => {
          if (fail) {
            fail = false;
            throw new Error('once');
          }
          return { requeueAfterMs: 1_000 };
        }),
      );
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => passes.length === 1);
    await manager.stop();
    const text = await manager.metrics.registry.metrics();
    for (const line of [
      'controller_runtime_reconcile_total{controller="widgets",result="error"} 1',
      'controller_runtime_reconcile_total{controller="widgets",result="success"} 0',
      'controller_runtime_reconcile_errors_total{controller="widgets"} 1',
      'controller_runtime_reconcile_time_seconds_count{controller="widgets"} 1',
      'workqueue_depth{name="widgets"} 0',
      'workqueue_retries_total{name="widgets"} 1',
    ]) {
      assert.ok(text.includes(line), `missing: ${line}\n${text}`);
    }
  });

  it('counts reconciled objects by kind and condition, and deletions stuck past the threshold', async () => {
    const { client, clock, manager, record } = setup();
    const available = (name: string, status: string, reason: string, deletionTimestamp?: string): KubeObject => {
      const object = objectOf(widgetType, 'ns', name);
      return {
        ...object,
        metadata: { ...object.metadata, ...(deletionTimestamp === undefined ? {} : { deletionTimestamp }) },
        status: { conditions: [{ type: 'Available', status, reason, message: '', lastTransitionTime: '' }] },
      };
    };
    const longAgo = new Date(clock.now() - 16 * 60_000).toISOString();
    const justNow = new Date(clock.now() - 60_000).toISOString();
    await client.create(widgetType, available('a', 'True', 'Provisioned'));
    await client.create(widgetType, available('b', 'True', 'Provisioned'));
    await client.create(widgetType, available('c', 'False', 'Errored', longAgo));
    await client.create(widgetType, available('d', 'False', 'Deprovisioning', justNow));
    await client.create(widgetType, objectOf(widgetType, 'ns', 'e'));
    manager.controller('widgets').for(widgetType).complete(record());
    await manager.start();
    const text = await manager.metrics.registry.metrics();
    await manager.stop();
    for (const line of [
      'openregion_objects{kind="Widget",condition="Available",status="True",reason="Provisioned"} 2',
      'openregion_objects{kind="Widget",condition="Available",status="False",reason="Errored"} 1',
      'openregion_objects{kind="Widget",condition="Available",status="False",reason="Deprovisioning"} 1',
      'openregion_objects{kind="Widget",condition="none",status="Unknown",reason=""} 1',
      'openregion_stuck_deletions{kind="Widget"} 1',
    ]) {
      assert.ok(text.includes(line), `missing: ${line}\n${text}`);
    }
  });

  it('stop drains a pass in flight before resolving', async () => {
    const { client, manager, passes, record } = setup();
    const hold = gate();
    let finished = false;
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(
        record(async () => {
          await hold.opened;
          finished = true;
          return {};
        }),
      );
    await manager.start();
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    await eventually(() => passes.length === 1);
    let stopped = false;
    void manager.stop().then(() => (stopped = true));
    await settle();
    assert.equal(stopped, false);
    hold.open();
    await eventually(() => stopped);
    assert.equal(finished, true);
  });

  it('refuses a second for(), a duplicate controller name and late registrations', async () => {
    const { manager, record } = setup();
    assert.throws(() => manager.controller('x').for(widgetType).for(gadgetType), /for\(\) may be called once/);
    assert.throws(() => manager.controller('y').owns(gadgetType).complete(record()), /for\(\) is required/);
    manager.controller('z').for(widgetType).complete(record());
    assert.throws(() => manager.controller('z'), /already exists/);
    await manager.start();
    assert.throws(() => {
      manager.index(widgetType, 'late', () => []);
    }, /before the manager starts/);
    await manager.stop();
  });

  it('cachedIndexCounts: objects per index value in one namespace, from the index; undefined without a cache or index', async () => {
    const { client, manager } = setup();
    const team = (o: KubeObject) => [o.metadata.labels?.['team'] ?? ''].filter((t) => t !== '');
    manager.index(widgetType, 'team', team);
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(() => Promise.resolve({}));
    for (const [ns, name, t] of [
      ['ns', 'a', 'red'],
      ['ns', 'b', 'red'],
      ['ns', 'c', 'blue'],
      ['other', 'd', 'red'],
      ['ns', 'e', ''],
    ] as const) {
      await client.create(widgetType, objectOf(widgetType, ns, name, t === '' ? {} : { labels: { team: t } }));
    }
    assert.equal(manager.cachedIndexCounts(widgetType, 'ns', 'team'), undefined, 'not synced before start');
    await manager.start();
    await eventually(() => manager.cachedIndexCounts(widgetType, 'ns', 'team')?.get('red') === 2);
    assert.deepEqual(
      manager.cachedIndexCounts(widgetType, 'ns', 'team'),
      new Map([
        ['red', 2],
        ['blue', 1],
      ]),
    );
    assert.deepEqual(manager.cachedIndexCounts(widgetType, 'other', 'team'), new Map([['red', 1]]));
    assert.equal(manager.cachedIndexCounts(widgetType, 'ns', 'nothing'), undefined, 'no such index');
    assert.equal(manager.cachedIndexCounts(gadgetType, 'ns', 'team'), undefined, 'no cache of the kind');
    await client.delete(widgetType, 'ns', 'a');
    await eventually(() => manager.cachedIndexCounts(widgetType, 'ns', 'team')?.get('red') === 1);
    await manager.stop();
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../util/clock.ts';
import { healthHandlers, probeRoutes, serveHealth } from './health.ts';
import { Manager } from './manager.ts';
import { RuntimeMetrics } from './metrics.ts';
import { ManualScheduler } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { widgetType } from './testing/helpers.ts';

describe('health', () => {
  it('passes when every check passes and names the failing ones otherwise', () => {
    let synced = false;
    const handlers = healthHandlers({
      live: [{ name: 'ping', check: () => true }],
      ready: [
        { name: 'caches', check: () => synced || 'not synced' },
        { name: 'leader', check: () => true },
      ],
    });
    assert.deepEqual(handlers.healthz(), { status: 200, body: '[+]ping ok\nhealthz check passed\n' });
    const notReady = handlers.readyz();
    assert.equal(notReady.status, 500);
    assert.match(notReady.body, /\[-\]caches failed: not synced/);
    assert.match(notReady.body, /\[\+\]leader ok/);
    synced = true;
    assert.equal(handlers.readyz().status, 200);
  });

  it('treats a check that throws as failing', () => {
    const handlers = healthHandlers({
      live: [
        {
          name: 'x',
          check: () => {
            throw new Error('broken');
          },
        },
      ],
      ready: [],
    });
    assert.deepEqual(handlers.healthz(), { status: 500, body: '[-]x failed: broken\nhealthz check failed\n' });
  });

  it('routes /healthz, /livez, /readyz, and /metrics only when given a registry', async () => {
    const handlers = healthHandlers({ live: [{ name: 'ping', check: () => true }], ready: [] });
    const metrics = new RuntimeMetrics();
    metrics.initController('widgets');
    const route = probeRoutes(handlers, metrics.registry);
    for (const path of ['/healthz', '/livez', '/readyz']) assert.equal((await route(path))?.status, 200, path);
    const scrape = await route('/metrics');
    assert.equal(scrape?.status, 200);
    assert.match(scrape.contentType, /^text\/plain; version=0\.0\.4/);
    assert.match(scrape.body, /controller_runtime_reconcile_errors_total\{controller="widgets"\} 0/);
    assert.equal(route('/nope'), undefined);
    assert.equal(probeRoutes(handlers)('/metrics'), undefined, 'no registry, no /metrics');
  });

  it('serves the probes and /metrics over HTTP on loopback', async () => {
    const metrics = new RuntimeMetrics();
    metrics.observeReconcile('widgets', 0.1, 'success');
    const server = await serveHealth(
      healthHandlers({ live: [{ name: 'ping', check: () => true }], ready: [{ name: 'caches', check: () => false }] }),
      { host: '127.0.0.1', port: 0, metrics: metrics.registry },
    );
    try {
      const live = await fetch(`http://127.0.0.1:${server.port}/healthz`);
      assert.equal(live.status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/livez`)).status, 200);
      const ready = await fetch(`http://127.0.0.1:${server.port}/readyz?verbose`);
      assert.equal(ready.status, 500);
      assert.match(await ready.text(), /\[-\]caches failed/);
      const scrape = await fetch(`http://127.0.0.1:${server.port}/metrics`);
      assert.equal(scrape.status, 200);
      assert.match(
        await scrape.text(),
        /controller_runtime_reconcile_total\{controller="widgets",result="success"\} 1/,
      );
      assert.equal((await fetch(`http://127.0.0.1:${server.port}/nope`)).status, 404);
    } finally {
      await server.close();
    }
  });

  it('a manager is ready once its management caches have synced', async () => {
    const client = new FakeClient();
    const scheduler = new ManualScheduler(new ManualClock());
    const manager = new Manager({ client, clock: scheduler.clock, scheduler, random: () => 0 });
    manager
      .controller('widgets')
      .for(widgetType)
      .complete(() => Promise.resolve({}));
    assert.equal(manager.health.readyz().status, 500, 'not before start');
    assert.equal(manager.health.healthz().status, 200);
    await manager.start();
    assert.equal(manager.health.readyz().status, 200);
    await manager.stop();
  });
});

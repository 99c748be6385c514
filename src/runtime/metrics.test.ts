import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry, register as globalRegistry } from 'prom-client';
import { ManualClock } from '../util/clock.ts';
import { Instrumenter, RuntimeMetrics } from './metrics.ts';

describe('metrics', () => {
  it('registers the runtime series on its own registry, not the global one', async () => {
    const before = (await globalRegistry.metrics()).length;
    const metrics = new RuntimeMetrics();
    metrics.initController('keystoneuser');
    const observer = metrics.queueObserver('keystoneuser');
    observer.depth(3);
    observer.add();
    observer.add();
    observer.retry();
    metrics.observeReconcile('keystoneuser', 0.2, 'requeue_after');
    const text = await metrics.registry.metrics();
    for (const line of [
      '# TYPE controller_runtime_reconcile_total counter',
      'controller_runtime_reconcile_total{controller="keystoneuser",result="requeue_after"} 1',
      'controller_runtime_reconcile_errors_total{controller="keystoneuser"} 0',
      '# TYPE controller_runtime_reconcile_time_seconds histogram',
      'controller_runtime_reconcile_time_seconds_bucket{le="0.25",controller="keystoneuser"} 1',
      'workqueue_depth{name="keystoneuser"} 3',
      'workqueue_adds_total{name="keystoneuser"} 2',
      'workqueue_retries_total{name="keystoneuser"} 1',
    ]) {
      assert.ok(text.includes(line), `missing: ${line}`);
    }
    assert.equal((await globalRegistry.metrics()).length, before);
    // A second set on another registry does not collide.
    assert.doesNotThrow(() => new RuntimeMetrics());
  });

  it('build_info names the version and Node.js, with the constant 1; a second call does not re-register', async () => {
    const metrics = new RuntimeMetrics();
    metrics.buildInfo('1.2.3', 'v20.19.0');
    metrics.buildInfo('1.2.3', 'v20.19.0');
    const text = await metrics.registry.metrics();
    assert.match(text, /^# TYPE openregion_build_info gauge$/m);
    assert.match(text, /^openregion_build_info\{version="1\.2\.3",node_version="v20\.19\.0"\} 1$/m);
  });

  it('the instrumenter observes the specified histogram and counter, labelled as the spec names them', async () => {
    const registry = new Registry();
    const clock = new ManualClock();
    const instrumenter = new Instrumenter(
      registry,
      new Map([
        ['KeystoneUserProvision', 'UserReady'],
        ['KeystoneUserDelivery', 'DeliveryReady'],
      ]),
      clock,
    );
    assert.equal(
      await instrumenter.instrument('KeystoneUserProvision', () => {
        clock.advance(300);
        return Promise.resolve('ok');
      }),
      'ok',
    );
    await assert.rejects(
      instrumenter.instrument('KeystoneUserDelivery', () => Promise.reject(new Error('x'))),
      /x/,
    );
    await assert.rejects(instrumenter.instrument('Unmapped', () => Promise.reject(new Error('y'))));
    const text = await registry.metrics();
    for (const line of [
      '# TYPE c5c3_operator_reconcile_duration_seconds histogram',
      'c5c3_operator_reconcile_duration_seconds_bucket{le="0.25",sub_reconciler="KeystoneUserProvision"} 0',
      'c5c3_operator_reconcile_duration_seconds_bucket{le="0.5",sub_reconciler="KeystoneUserProvision"} 1',
      'c5c3_operator_reconcile_duration_seconds_count{sub_reconciler="KeystoneUserDelivery"} 1',
      'c5c3_operator_reconcile_errors_total{sub_reconciler="KeystoneUserDelivery",condition_type="DeliveryReady"} 1',
      'c5c3_operator_reconcile_errors_total{sub_reconciler="Unmapped",condition_type="UNKNOWN"} 1',
    ]) {
      assert.ok(text.includes(line), `missing: ${line}\n${text}`);
    }
    assert.ok(!text.includes('sub_reconciler="KeystoneUserProvision",condition_type'), 'no error counted on success');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../kube/object.ts';
import { ManualClock } from '../util/clock.ts';
import { duration, met, parseFor, progressLine, waitFor } from './wait.ts';

const object = (status?: string, reason = 'Provisioning', message = 'being created'): KubeObject => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Server',
  metadata: { name: 'web-1' },
  ...(status === undefined
    ? {}
    : {
        status: {
          conditions: [{ type: 'Available', status, reason, message, lastTransitionTime: '2026-01-01T00:00:00Z' }],
        },
      }),
});

describe('wait', () => {
  it('reads --timeout as a Go duration, or a bare number of seconds, and refuses a negative one', () => {
    assert.equal(duration('30'), 30_000);
    assert.equal(duration('30s'), 30_000);
    assert.equal(duration('500ms'), 500);
    assert.equal(duration('5m'), 300_000);
    assert.equal(duration('1h30m'), 5_400_000);
    for (const bad of ['', '-5s', '5d', 'soon']) assert.throws(() => duration(bad), /a duration such as 30s/, bad);
  });

  it('parses --for', () => {
    assert.deepEqual(parseFor('condition=Available'), { kind: 'condition', type: 'Available', status: 'True' });
    assert.deepEqual(parseFor('condition=Healthy=false'), { kind: 'condition', type: 'Healthy', status: 'False' });
    assert.deepEqual(parseFor('delete'), { kind: 'delete' });
    assert.throws(() => parseFor('available'), /condition=TYPE/);
  });

  it('is met on the condition status, or on absence for delete', () => {
    const available = parseFor('condition=Available');
    assert.equal(met(object('True', 'Provisioned'), available), true);
    assert.equal(met(object('False'), available), false);
    assert.equal(met(undefined, available), false);
    assert.equal(met(undefined, parseFor('delete')), true);
  });

  it('a condition that reports an older generation is not met yet (a spec change not seen yet)', () => {
    const available = parseFor('condition=Available');
    const at = (generation: number, observedGeneration: number): KubeObject => {
      const o = object('True', 'Provisioned');
      const conditions = (o.status as { conditions: object[] }).conditions.map((c) => ({ ...c, observedGeneration }));
      return { ...o, metadata: { ...o.metadata, generation }, status: { conditions } };
    };
    assert.equal(met(at(2, 1), available), false);
    assert.equal(met(at(2, 2), available), true);
  });

  it('describes progress: status, reason, message and time', () => {
    assert.equal(
      progressLine('servers/web-1', object('False'), parseFor('condition=Available'), 12_400),
      'servers/web-1  Available=False  Provisioning: being created  (12s)',
    );
    assert.equal(
      progressLine('servers/web-1', object(), parseFor('condition=Available'), 0),
      'servers/web-1  Available: not reported yet  (0s)',
    );
  });

  it('prints a line per change until met, on the injected clock', async () => {
    const clock = new ManualClock();
    const states = [object('False'), object('False'), object('True', 'Provisioned', 'ready')];
    let lines = '';
    let reads = 0;
    const ok = await waitFor(
      () => Promise.resolve(states[Math.min(reads++, states.length - 1)]),
      'servers/web-1',
      parseFor('condition=Available'),
      { write: (t: string) => (lines += t) },
      { timeoutMs: 60_000, intervalMs: 1000, clock, live: false },
    );
    assert.equal(ok, true);
    assert.deepEqual(lines.trim().split('\n'), [
      'servers/web-1  Available=False  Provisioning: being created  (0s)',
      'servers/web-1  Available=True  Provisioned: ready  (2s)',
      'servers/web-1 condition met',
    ]);
  });

  it('fails at once on an object that is not there, unless its deletion is awaited', async () => {
    const options = { timeoutMs: 60_000, intervalMs: 1000, clock: new ManualClock(), live: false };
    const absent = () => Promise.resolve(undefined);
    await assert.rejects(
      waitFor(absent, 'servers/web-1', parseFor('condition=Available'), { write: () => undefined }, options),
      /^Error: servers\/web-1 not found$/,
    );
    assert.equal(await waitFor(absent, 'servers/web-1', parseFor('delete'), { write: () => undefined }, options), true);
  });

  it("waits for a jsonpath value, or a field's presence", () => {
    const o = object('True', 'Provisioned', 'ready');
    assert.equal(met(o, parseFor("jsonpath={.status.conditions[?(@.type=='Available')].reason}=Provisioned")), true);
    assert.equal(met(o, parseFor('jsonpath={.status.conditions[0].reason}=Provisioning')), false);
    assert.equal(met(o, parseFor('jsonpath={.status.conditions}')), true);
    assert.equal(met(o, parseFor('jsonpath={.status.publicIP}')), false);
    assert.throws(() => parseFor('jsonpath=.status.phase'), /jsonpath='\{PATH\}'/);
  });

  it('gives up after the timeout', async () => {
    const clock = new ManualClock();
    const ok = await waitFor(
      () => Promise.resolve(object('False')),
      'servers/web-1',
      parseFor('condition=Available'),
      { write: () => undefined },
      { timeoutMs: 5_000, intervalMs: 1000, clock, live: false },
    );
    assert.equal(ok, false);
    assert.ok(clock.now() - new ManualClock().now() >= 5_000);
  });
});

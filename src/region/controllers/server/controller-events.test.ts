/**
 * Events from the Server controller, through the Manager's recorder into the store: a create the cloud refuses
 * leaves a Warning naming the refusal's operator detail, and the bounded create-retry reports under the
 * reasons its decision table names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreEvent } from '../../../kube/object.ts';
import { builtin } from '../../../kube/resource-type.ts';
import { recordSpans, type RecordedSpans } from '../../../util/testing/spans.ts';
import type { ServerInput } from '../../provider/inputs.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../testing/server.ts';

let s: ServerControllerFixture;
let traces: RecordedSpans;
before(async () => {
  traces = recordSpans();
  s = await serverControllerFixture();
});
after(async () => {
  await s.close();
  await traces.stop();
});

async function eventsOf(input: ServerInput): Promise<CoreEvent[]> {
  const server = await s.get(input);
  const events = await s.store.list(builtin.event, { namespace: server.metadata.namespace ?? 'default' });
  return events.items.filter((e) => e.involvedObject.uid === server.metadata.uid);
}

describe('Server controller: Events', () => {
  it('a create the cloud refuses leaves a Warning naming the refusal, with OpenStack’s words and request', async () => {
    const input = s.input();
    s.emulator.nova.controls.failNext({
      operation: 'create',
      mode: 'sync',
      status: 400,
      message: 'Invalid key_name provided.',
    });
    await s.create(input);
    await s.tick(1_000);
    const warnings = (await eventsOf(input)).filter((e) => e.type === 'Warning');
    assert.ok(warnings.length > 0, 'a Warning Event about the server');
    const refusal = warnings.find((e) => e.message.includes('Invalid key_name provided.'));
    assert.ok(refusal, `the refusal's detail in ${JSON.stringify(warnings.map((e) => e.message))}`);
    assert.match(refusal.message, /compute.*400/, 'the request that was refused');
    assert.equal(refusal.source.component, 'openregion');
    assert.equal(refusal.involvedObject.kind, 'Server');
    assert.doesNotMatch(refusal.message, /X-Auth-Token|password/i, 'no credential');
  });

  it('create to Available leaves one Normal Event per change of Available, each naming the row that decided it', async () => {
    const input = s.input();
    await s.converged(input);
    await s.tick();
    await s.tick();
    const normal = (await eventsOf(input)).filter((e) => e.type === 'Normal');
    const provisioned = normal.find((e) => e.reason === 'Provisioned');
    assert.ok(provisioned, `a Provisioned Event in ${JSON.stringify(normal.map((e) => e.reason))}`);
    assert.equal(provisioned.message, 'the resource is provisioned (row done)');
    assert.equal(provisioned.count, 1, 'passes that change nothing record nothing');
    assert.equal(provisioned.firstTimestamp, provisioned.lastTimestamp);
    const provisioning = normal.find((e) => e.reason === 'Provisioning');
    assert.ok(provisioning, 'the provisioning step before it');
    assert.match(provisioning.message, /\(row yield\/[^)]+\)$/, 'the provider’s own row behind the yield');
    assert.equal(
      new Set(normal.map((e) => `${e.reason}\u0000${e.message}`)).size,
      normal.length,
      'one object per message',
    );
  });

  it('one server’s create-to-Available: a log line, a metric, an Event and a span', async () => {
    const input = s.input();
    await s.converged(input);
    const server = await s.get(input);
    const line = s.providerLog
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((r) => r.controller === 'region-server' && r.name === server.metadata.name && r.row === 'done');
    assert.ok(line, 'the pass that decided done, logged with the object as fields');
    assert.equal(line.kind, 'Server');
    assert.equal(line.level, 'debug');
    assert.match(String(line.reconcileID), /^[0-9a-f-]{36}$/);
    const metrics = await s.metrics.metrics();
    assert.match(metrics, /^controller_runtime_reconcile_total\{controller="region-server",result="success"\} [1-9]/m);
    assert.match(
      metrics,
      /^openregion_objects\{kind="Server",condition="Available",status="True",reason="Provisioned"\} [1-9]/m,
    );
    const event = (await eventsOf(input)).find((e) => e.reason === 'Provisioned');
    assert.equal(event?.message, 'the resource is provisioned (row done)');
    const spans = traces.spans();
    // Spans of every test in this file are kept: this server's are found by its name.
    const reconciles = new Set(
      spans
        .filter(
          (span) =>
            span.name === 'reconcile region-server' && span.attributes['k8s.object.name'] === server.metadata.name,
        )
        .map((span) => span.spanContext().spanId),
    );
    assert.ok(
      reconciles.size > 0,
      `reconcile spans of the server in ${[...new Set(spans.map((span) => span.name))].join(', ')}`,
    );
    assert.ok(
      spans.some(
        (span) => span.name === 'compute POST /servers' && reconciles.has(span.parentSpanContext?.spanId ?? ''),
      ),
      'the Nova create inside a reconcile of the server',
    );
  });

  it('the bounded create-retry records its rows as the seed names them', async () => {
    const input = s.input();
    s.emulator.nova.controls.failNext({ operation: 'create' });
    await s.create(input);
    await s.tick(1_000);
    await s.poll();
    for (let i = 0; i < 6 && (await s.available(input))?.reason !== 'Provisioned'; i++) await s.tick();
    const reasons = (await eventsOf(input)).map((e) => e.reason);
    assert.ok(reasons.includes('ProviderCreateRetrying'), `ProviderCreateRetrying in ${reasons.join(', ')}`);
  });
});

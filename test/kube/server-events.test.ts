/**
 * The Server controller's Events on a real kube-apiserver 1.20: the same controller, Manager and recorder as
 * `openregion serve` runs, over the real cluster's client (the provider on the emulator). A create the cloud
 * refuses leaves a Warning Event beside the Server naming the refusal's operator detail, redacted. Skipped loudly
 * when the binary is not built.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreEvent } from '../../src/kube/object.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../../src/region/controllers/testing/server.ts';
import type { ServerInput } from '../../src/region/provider/inputs.ts';
import { recordSpans, type RecordedSpans } from '../../src/util/testing/spans.ts';
import { eventually, installRegionCrds } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const namespace = `server-events-${String(process.pid)}`;

await withRealApiServer('test/kube/server-events.test.ts', (apiserver) => {
  describe('Server controller Events on kube-apiserver 1.20', () => {
    let client: KubernetesClient;
    let s: ServerControllerFixture;
    let traces: RecordedSpans;

    before(async () => {
      traces = recordSpans();
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await installRegionCrds(client);
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      s = await serverControllerFixture({ client, namespace });
    });

    after(async () => {
      await s.close();
      await traces.stop();
      await client.delete(builtin.namespace, undefined, namespace).catch(() => undefined);
      client.close();
    });

    async function warningsOf(input: ServerInput): Promise<CoreEvent[]> {
      const server = await s.get(input);
      const { items } = await client.list(builtin.event, { namespace });
      return items.filter((e) => e.involvedObject.uid === server.metadata.uid && e.type === 'Warning');
    }

    it('a create the cloud refuses leaves a Warning naming the refusal, in the cluster beside the Server', async () => {
      const input = s.input();
      s.emulator.nova.controls.failNext({
        operation: 'create',
        mode: 'sync',
        status: 400,
        message: 'Invalid key_name provided.',
      });
      await s.create(input);
      await s.tick(1_000);
      const refusal = await eventually('the Warning Event about the refused create', async () =>
        (await warningsOf(input)).find((e) => e.message.includes('Invalid key_name provided.')),
      );
      assert.equal(refusal.reason, 'ProvisionStopped');
      assert.match(refusal.message, /POST compute\/servers: HTTP 400/, 'the request that was refused');
      assert.doesNotMatch(refusal.message, /X-Auth-Token|password|gAAAA/i, 'no credential');
      assert.equal(refusal.involvedObject.kind, 'Server');
      assert.equal(refusal.involvedObject.namespace, namespace);
      assert.equal(refusal.source.component, 'openregion');
      assert.equal(refusal.metadata.namespace, namespace);
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
      assert.equal(line.namespace, namespace);
      assert.match(String(line.reconcileID), /^[0-9a-f-]{36}$/);
      const metrics = await s.metrics.metrics();
      assert.match(
        metrics,
        /^openregion_objects\{kind="Server",condition="Available",status="True",reason="Provisioned"\} [1-9]/m,
      );
      const provisioned = await eventually('the Provisioned Event', async () => {
        const { items } = await client.list(builtin.event, { namespace });
        return items.find((e) => e.involvedObject.uid === server.metadata.uid && e.reason === 'Provisioned');
      });
      assert.equal(provisioned.message, 'the resource is provisioned (row done)');
      assert.equal(provisioned.type, 'Normal');
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
  });
});

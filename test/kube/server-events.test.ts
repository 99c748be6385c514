/**
 * The Server controller's Events on a real kube-apiserver 1.20: the same controller, Manager and recorder as
 * `openregion serve` runs, over the real cluster's client (the provider on the emulator). A create the cloud
 * refuses leaves a Warning Event beside the Server naming the refusal's operator detail, redacted. Skipped loudly
 * when the binary is not built.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CoreEvent } from '../../src/kube/events.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import { builtin } from '../../src/kube/resource-type.ts';
import { serverControllerFixture, type ServerControllerFixture } from '../../src/region/controllers/testing/server.ts';
import type { ServerInput } from '../../src/region/provider/inputs.ts';
import { eventually, installRegionCrds } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const namespace = `server-events-${String(process.pid)}`;

await withRealApiServer('test/kube/server-events.test.ts', (apiserver) => {
  describe('Server controller Events on kube-apiserver 1.20', () => {
    let client: KubernetesClient;
    let s: ServerControllerFixture;

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await installRegionCrds(client);
      await client.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      s = await serverControllerFixture({ client, namespace });
    });

    after(async () => {
      await s.close();
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
  });
});

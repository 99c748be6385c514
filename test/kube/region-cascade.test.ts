/**
 * Cascading deletes on a real kube-apiserver 1.20 with no garbage collector running (no kube-controller-manager):
 * the Network and Identity controllers' passes, over the real cluster's client with fake providers, delete what is
 * on a network (servers first, then security groups), then the network, then its identity, and nothing waits for
 * a collector. Skipped loudly when the binary is not built (fails under CI).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { findCondition } from '../../src/kube/conditions.ts';
import { KubeNotFoundError } from '../../src/kube/errors.ts';
import type { KubernetesClient } from '../../src/kube/kubernetes/client.ts';
import { kubeClientFrom } from '../../src/kube/kubernetes/connect.ts';
import type { ResourceType } from '../../src/kube/resource-type.ts';
import { identityType } from '../../src/region/apis/identity.ts';
import { networkType } from '../../src/region/apis/network.ts';
import { securityGroupType } from '../../src/region/apis/security-group.ts';
import { serverType } from '../../src/region/apis/server.ts';
import { API_VERSION, labels } from '../../src/region/apis/shared.ts';
import { identityProvisioner } from '../../src/region/controllers/identity.ts';
import { networkProvisioner } from '../../src/region/controllers/network.ts';
import { reconcileProvisioned } from '../../src/region/controllers/provisioner.ts';
import {
  FakeIdentityProvider,
  FakeNetworkProvider,
  NAMESPACE,
  identityObject,
  lookupOf,
  networkObject,
  passContext,
  securityGroupObject,
  serverObject,
} from '../../src/region/controllers/testing/fakes.ts';
import { ManualClock } from '../../src/util/clock.ts';
import { installRegionCrds } from './fixtures.ts';
import { withRealApiServer } from './real-apiserver.ts';

const run = randomBytes(3).toString('hex');
const HOLD = 'test.openregion.dev/hold';

await withRealApiServer('test/kube/region-cascade.test.ts', (apiserver) => {
  describe('cascading deletes on kube-apiserver 1.20 (no garbage collector)', () => {
    let client: KubernetesClient;
    const created: [ResourceType, string][] = [];

    before(async () => {
      client = kubeClientFrom({ kubeconfig: await apiserver.kubeconfig() });
      await installRegionCrds(client);
    });

    after(async () => {
      // Whatever a failed run left: finalizers off, then deleted.
      for (const [type, name] of created.reverse()) {
        const left = await client.get(type, NAMESPACE, name).catch(() => undefined);
        if (left === undefined) continue;
        await client.update(type, { ...left, metadata: { ...left.metadata, finalizers: [] } }).catch(() => undefined);
        await client.delete(type, NAMESPACE, name).catch(() => undefined);
      }
      client.close();
    });

    it('a network deletes its server, then its security group, then itself; then its identity goes', async () => {
      const clock = new ManualClock();
      const ctx = passContext(clock);
      const identities = new FakeIdentityProvider();
      const networks = new FakeNetworkProvider();
      const id = `cascade-id-${run}`;
      const net = `cascade-net-${run}`;
      const srv = `cascade-srv-${run}`;
      const sg = `cascade-sg-${run}`;
      const identityPass = () =>
        reconcileProvisioned(client, identityProvisioner(client, lookupOf(identities)), req(id), ctx);
      const networkPass = () =>
        reconcileProvisioned(client, networkProvisioner(client, lookupOf(networks)), req(net), ctx);
      const deleting = async (type: ResourceType, name: string) =>
        (await client.get(type, NAMESPACE, name)).metadata.deletionTimestamp !== undefined;
      const release = async (type: ResourceType, name: string) => {
        const current = await client.get(type, NAMESPACE, name);
        await client.update(type, { ...current, metadata: { ...current.metadata, finalizers: [] } });
      };

      created.push([identityType, id], [networkType, net], [serverType, srv], [securityGroupType, sg]);
      await client.create(identityType, identityObject(id));
      await identityPass();
      const network = await client.create(networkType, networkObject(net, id));
      await networkPass();
      const server = serverObject(undefined, { networks: [{ id: net }] }, { [labels.networkID]: net });
      await client.create(serverType, {
        ...server,
        metadata: { ...server.metadata, name: srv, labels: { ...server.metadata.labels, [labels.identityID]: id } },
      });
      const group = securityGroupObject(sg, id);
      const owner = { apiVersion: API_VERSION, kind: 'Network', name: net, uid: network.metadata.uid ?? '' };
      await client.create(securityGroupType, {
        ...group,
        metadata: { ...group.metadata, ownerReferences: [owner], finalizers: [HOLD] },
      });
      const withHold = await client.get(serverType, NAMESPACE, srv);
      await client.update(serverType, { ...withHold, metadata: { ...withHold.metadata, finalizers: [HOLD] } });

      // As the REST API does: the network, then its identity, both in the background.
      await client.delete(networkType, NAMESPACE, net);
      await client.delete(identityType, NAMESPACE, id);

      assert.deepEqual(await networkPass(), { requeueAfterMs: 10_000 });
      assert.ok(await deleting(serverType, srv), 'the server goes first');
      assert.equal(await deleting(securityGroupType, sg), false, 'the security group waits for the server');
      assert.deepEqual(await identityPass(), { requeueAfterMs: 10_000 }, 'the identity waits for the network');
      const held = findCondition((await client.get(identityType, NAMESPACE, id)).status?.conditions, 'Available');
      assert.equal(held?.message, 'waiting for the resources that use this identity to be deleted');
      await release(serverType, srv);

      assert.deepEqual(await networkPass(), { requeueAfterMs: 10_000 });
      assert.ok(await deleting(securityGroupType, sg));
      assert.deepEqual(networks.calls, [`create ${net}`], 'Neutron is not asked while anything is on the network');
      await release(securityGroupType, sg);

      assert.deepEqual(await networkPass(), {});
      assert.deepEqual(networks.calls, [`create ${net}`, `delete ${net}`]);
      await assert.rejects(client.get(networkType, NAMESPACE, net), KubeNotFoundError);
      assert.deepEqual(await identityPass(), {});
      assert.deepEqual(identities.calls, [`create ${id}`, `delete ${id}`]);
      await assert.rejects(client.get(identityType, NAMESPACE, id), KubeNotFoundError);
    });
  });
});

function req(name: string) {
  return { cluster: '', namespace: NAMESPACE, name };
}

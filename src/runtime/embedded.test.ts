/**
 * The runtime over the embedded backend (src/kube/embedded), end to end: watches and mapping, multicluster
 * engagement from a registration Secret, and leader election through a Lease, all driven by the manual clock.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { openEmbeddedStore, type EmbeddedStore } from '../kube/embedded/store.ts';
import { controllerReference, type KubeObject } from '../kube/object.ts';
import { builtin } from '../kube/resource-type.ts';
import { ManualClock } from '../util/clock.ts';
import { LeaderElector } from './leader.ts';
import { silentLogger } from './logger.ts';
import { Manager } from './manager.ts';
import { KUBECONFIG_SECRET_LABEL } from './multicluster.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { eventually } from './testing/helpers.ts';
import type { Request } from './types.ts';

const stores: EmbeddedStore[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

function open(clock: ManualClock): EmbeddedStore {
  const store = openEmbeddedStore(':memory:', { clock, garbageCollection: false });
  stores.push(store);
  return store;
}

const configMap = (name: string, data: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

function setup() {
  const clock = new ManualClock();
  const scheduler = new ManualScheduler(clock);
  const management = open(clock);
  const passes: string[] = [];
  const reconcile = (req: Request) => {
    passes.push(`${req.cluster}|${req.namespace}/${req.name}`);
    return Promise.resolve({});
  };
  return { clock, scheduler, management, passes, reconcile };
}

describe('runtime over the embedded store', () => {
  it('for, owns and an index-backed watches mapper', async () => {
    const { clock, scheduler, management, passes, reconcile } = setup();
    const manager = new Manager({ client: management, clock, scheduler, random: () => 0, resyncMs: 3_600_000 });
    manager.index(builtin.configMap, 'data.target', (o) => {
      const target = (o['data'] as Record<string, string> | undefined)?.['target'];
      return target === undefined ? [] : [target];
    });
    manager
      .controller('configmaps')
      .for(builtin.configMap)
      .owns(builtin.secret)
      .watches(
        builtin.event,
        (e) =>
          manager
            .list(builtin.configMap, { index: 'data.target', value: e.metadata.name })
            .map((c) => ({ cluster: '', namespace: 'default', name: c.metadata.name })),
        { clusters: 'management' },
      )
      .complete(reconcile);
    await manager.start();
    const owner = await management.create(builtin.configMap, configMap('owner', { target: 'ping' }));
    await eventually(() => passes.length === 1);
    await management.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'child', namespace: 'default', ownerReferences: [controllerReference(owner)] },
    });
    await eventually(() => passes.length === 2, 'the owner woken by its Secret');
    await management.create<KubeObject>(builtin.event, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'ping', namespace: 'default' },
    });
    await eventually(() => passes.length === 3, 'fan-out through the index');
    assert.deepEqual(passes, ['|default/owner', '|default/owner', '|default/owner']);
    await manager.stop();
  });

  it('engages a target store from a registration Secret and disengages it on delete', async () => {
    const { clock, scheduler, management, passes, reconcile } = setup();
    const target = open(clock);
    const manager = new Manager({
      client: management,
      clock,
      scheduler,
      random: () => 0,
      resyncMs: 3_600_000,
      targetClusters: { namespace: 'c5c3-clusters', clientFor: () => target },
    });
    manager.controller('configmaps').for(builtin.configMap, { clusterServesKind: true }).complete(reconcile);
    await management.create(builtin.namespace, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'c5c3-clusters' },
    });
    await manager.start();
    await target.create(builtin.configMap, configMap('remote'));
    await management.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'edge-1', namespace: 'c5c3-clusters', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
      data: { kubeconfig: Buffer.from('apiVersion: v1\nusers: []\n').toString('base64') },
    });
    await eventually(() => passes.includes('edge-1|default/remote'), 'reconcile on the target');
    await management.delete(builtin.secret, 'c5c3-clusters', 'edge-1');
    await eventually(() => manager.client('edge-1') === undefined, 'disengaged');
    await target.create(builtin.configMap, configMap('later'));
    await settle();
    assert.ok(!passes.includes('edge-1|default/later'));
    await manager.stop();
  });

  it('leader election hands the Lease over when the leader releases it', async () => {
    const { scheduler, management } = setup();
    const elector = (identity: string, log: string[]) =>
      new LeaderElector({
        client: management,
        scheduler,
        log: silentLogger(),
        namespace: 'default',
        name: 'openregion',
        identity,
        onStartedLeading: () => log.push(`${identity} started`),
        onStoppedLeading: () => log.push(`${identity} stopped`),
      });
    const log: string[] = [];
    const a = elector('a', log);
    const b = elector('b', log);
    a.start();
    await scheduler.advance(0);
    b.start();
    await scheduler.advance(4_000);
    await a.stop();
    await scheduler.advance(2_000);
    assert.deepEqual(log, ['a started', 'a stopped', 'b started']);
    const lease = await management.get(builtin.lease, 'default', 'openregion');
    assert.equal((lease['spec'] as { holderIdentity?: string }).holderIdentity, 'b');
    await b.stop();
  });
});

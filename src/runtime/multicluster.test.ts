import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../kube/object.ts';
import { builtin } from '../kube/resource-type.ts';
import { ManualClock } from '../util/clock.ts';
import { Manager } from './manager.ts';
import { KUBECONFIG_SECRET_LABEL, readRegistration } from './multicluster.ts';
import { ManualScheduler, settle } from './scheduler.ts';
import { FakeClient } from './testing/fake-client.ts';
import { eventually, gadgetType, objectOf, widgetType } from './testing/helpers.ts';
import type { Request } from './types.ts';

const NS = 'c5c3-clusters';
const kubeconfig = (server: string) =>
  `apiVersion: v1\nclusters:\n- name: c\n  cluster: {server: ${server}}\nusers:\n- name: u\n  user: {token: t}\n`;
const b64 = (s: string) => Buffer.from(s).toString('base64');

function registration(name: string, data: Record<string, string>, labelValue = 'true'): KubeObject {
  return objectOf(builtin.secret, NS, name, {
    labels: { [KUBECONFIG_SECRET_LABEL]: labelValue },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  });
}

function setup(options: { requeueAfterMs?: number } = {}) {
  const management = new FakeClient();
  const targets = new Map<string, FakeClient>();
  const clock = new ManualClock();
  const scheduler = new ManualScheduler(clock);
  const built: string[] = [];
  const manager = new Manager({
    client: management,
    clock,
    scheduler,
    random: () => 0,
    resyncMs: 3_600_000,
    targetClusters: {
      namespace: NS,
      clientFor: (config, cluster) => {
        built.push(cluster);
        const server = /server: ([^}\s]+)/.exec(config)?.[1] ?? '';
        let client = targets.get(server);
        if (client === undefined) {
          client = new FakeClient();
          targets.set(server, client);
        }
        return client;
      },
    },
  });
  const passes: string[] = [];
  const reconcile = (req: Request) => {
    passes.push(`${req.cluster}|${req.namespace}/${req.name}`);
    return Promise.resolve(options.requeueAfterMs === undefined ? {} : { requeueAfterMs: options.requeueAfterMs });
  };
  const target = (server: string) => {
    let client = targets.get(server);
    if (client === undefined) {
      client = new FakeClient();
      targets.set(server, client);
    }
    return client;
  };
  return { management, target, scheduler, manager, passes, reconcile, built };
}

describe('readRegistration', () => {
  it('reads the kubeconfig and the namespaces, and hashes both', () => {
    const a = readRegistration(registration('edge-1', { kubeconfig: kubeconfig('https://a') }));
    const b = readRegistration(registration('edge-1', { kubeconfig: kubeconfig('https://a'), namespaces: 'x, y' }));
    assert.ok(a.ok && b.ok);
    assert.equal(a.namespaces, undefined);
    assert.deepEqual(b.namespaces, ['x', 'y']);
    assert.notEqual(a.hash, b.hash);
  });

  it('refuses a Secret without a kubeconfig, exec and auth-provider credentials, and bad namespaces', () => {
    const refused = (data: Record<string, string>) => {
      const r = readRegistration(registration('edge-1', data));
      return r.ok ? '' : r.reason;
    };
    assert.match(refused({}), /no "kubeconfig" key/);
    assert.match(refused({ kubeconfig: 'users:\n- name: u\n  user:\n    exec: {command: aws}\n' }), /exec/);
    assert.match(
      refused({ kubeconfig: 'users:\n- name: u\n  user:\n    auth-provider: {name: gcp}\n' }),
      /auth-provider/,
    );
    assert.match(refused({ kubeconfig: kubeconfig('https://a'), namespaces: 'ok,Not_OK' }), /DNS-1123/);
  });
});

describe('multicluster engagement', () => {
  it('engages a target cluster from its registration Secret; requests carry its name', async () => {
    const { management, target, manager, passes, reconcile } = setup();
    manager.controller('widgets').for(widgetType).complete(reconcile);
    await manager.start();
    await target('https://edge').create(widgetType, objectOf(widgetType, 'ns', 'remote'));
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://edge') }));
    await eventually(() => passes.includes('edge-1|ns/remote'), 'reconcile on the target');
    assert.equal(manager.client('edge-1'), target('https://edge'));
    await management.create(widgetType, objectOf(widgetType, 'ns', 'local'));
    await target('https://edge').create(widgetType, objectOf(widgetType, 'ns', 'remote2'));
    await eventually(() => passes.length === 3);
    assert.deepEqual(passes.sort(), ['edge-1|ns/remote', 'edge-1|ns/remote2', '|ns/local']);
    await manager.stop();
  });

  it('a management-only index is kept off target caches; an all-clusters index is on both', async () => {
    const { management, target, manager, passes, reconcile } = setup();
    const refOf = (o: KubeObject) => [String((o['spec'] as { ref?: string } | undefined)?.ref)];
    manager.index(widgetType, 'local-ref', refOf, { clusters: 'management' });
    manager.index(widgetType, 'any-ref', refOf);
    manager.controller('widgets').for(widgetType).complete(reconcile);
    await manager.start();
    await management.create(widgetType, objectOf(widgetType, 'ns', 'local', { spec: { ref: 'cp' } }));
    await target('https://edge').create(widgetType, objectOf(widgetType, 'ns', 'remote', { spec: { ref: 'cp' } }));
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://edge') }));
    await eventually(() => passes.length === 2);
    const names = (index: string, cluster?: string) =>
      manager.list(widgetType, { index, value: 'cp', ...(cluster ? { cluster } : {}) }).map((w) => w.metadata.name);
    assert.deepEqual(names('local-ref'), ['local']);
    assert.deepEqual(names('any-ref', 'edge-1'), ['remote']);
    assert.throws(() => names('local-ref', 'edge-1'), /no index "local-ref"/);
    await manager.stop();
  });

  it('ignores a Secret whose label is not exactly "true", and one in another namespace', async () => {
    const { management, manager, built, reconcile } = setup();
    manager.controller('widgets').for(widgetType).complete(reconcile);
    await manager.start();
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://e') }, 'yes'));
    await management.create(builtin.secret, {
      ...registration('edge-2', { kubeconfig: kubeconfig('https://e') }),
      metadata: { name: 'edge-2', namespace: 'default', labels: { [KUBECONFIG_SECRET_LABEL]: 'true' } },
    });
    await settle();
    assert.deepEqual(built, []);
    assert.equal(manager.client('edge-1'), undefined);
    await manager.stop();
  });

  it('disengages on delete: watches stop and queued requests for the cluster are dropped', async () => {
    const { management, target, scheduler, manager, passes, reconcile } = setup({ requeueAfterMs: 60_000 });
    manager.controller('widgets').for(widgetType).complete(reconcile);
    await manager.start();
    await target('https://edge').create(widgetType, objectOf(widgetType, 'ns', 'remote'));
    await management.create(widgetType, objectOf(widgetType, 'ns', 'local'));
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://edge') }));
    await eventually(() => passes.length === 2);
    await management.delete(builtin.secret, NS, 'edge-1');
    await eventually(() => manager.client('edge-1') === undefined, 'disengaged');
    await target('https://edge').create(widgetType, objectOf(widgetType, 'ns', 'after'));
    await scheduler.advance(60_000);
    await eventually(() => passes.length === 3);
    await settle();
    assert.deepEqual(passes.slice(2), ['|ns/local'], 'the target request queued for later was dropped');
    await manager.stop();
  });

  it('re-engages on any change of the registration Secret, and restricts the cache to the namespaces', async () => {
    const { management, target, manager, passes, reconcile, built } = setup();
    manager.controller('widgets').for(widgetType).complete(reconcile);
    await manager.start();
    await target('https://new').create(widgetType, objectOf(widgetType, 'a', 'w-a'));
    await target('https://new').create(widgetType, objectOf(widgetType, 'b', 'w-b'));
    const secret = await management.create(
      builtin.secret,
      registration('edge-1', { kubeconfig: kubeconfig('https://old') }),
    );
    await eventually(() => built.length === 1);
    await management.update(builtin.secret, {
      ...secret,
      data: { kubeconfig: b64(kubeconfig('https://new')), namespaces: b64('a') },
    });
    await eventually(() => passes.length === 1, 'reconcile on the re-engaged cluster');
    await settle();
    assert.deepEqual(passes, ['edge-1|a/w-a'], 'only the registered namespace is watched');
    assert.equal(manager.client('edge-1'), target('https://new'));
    const unchanged = await management.get(builtin.secret, NS, 'edge-1');
    await management.update(builtin.secret, {
      ...unchanged,
      metadata: { ...unchanged.metadata, annotations: { note: 'x' } },
    });
    await settle();
    // docs/spec/keystone-orders.md §Multicluster setup: a kind installed on the target later is watched once a change
    // of its registration Secret re-engages the cluster, so any write to the Secret counts, not only a new kubeconfig.
    assert.equal(built.length, 3, 'any change to the registration Secret re-engages');
    assert.equal(manager.client('edge-1'), target('https://new'));
    await manager.stop();
  });

  it('skips a watch with the serves-kind filter on a target that lacks the kind, and runs the others', async () => {
    const { management, target, manager, passes, reconcile } = setup();
    manager
      .controller('widgets')
      .for(widgetType, { clusterServesKind: true })
      .watches(gadgetType, (g) => [{ cluster: '', namespace: 'ns', name: `from-${g.metadata.name}` }])
      .complete(reconcile);
    await manager.start();
    const edge = target('https://edge');
    edge.unserve(widgetType);
    await edge.create(gadgetType, objectOf(gadgetType, 'ns', 'g'));
    await management.create(widgetType, objectOf(widgetType, 'ns', 'local'));
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://edge') }));
    await eventually(() => passes.length === 2);
    assert.deepEqual(passes.sort(), ['|ns/from-g', '|ns/local']);
    assert.deepEqual(
      edge.calls.filter((c) => c.endsWith(' widgets') || c.includes(' widgets@')),
      ['list widgets'],
      'the probe only: no informer for the unserved kind',
    );

    // The CRD arrives; a change of the registration engages the cluster again, now with the order watch.
    edge.serve(widgetType);
    await edge.create(widgetType, objectOf(widgetType, 'ns', 'remote'));
    const secret = await management.get(builtin.secret, NS, 'edge-1');
    await management.update(builtin.secret, {
      ...secret,
      data: { kubeconfig: b64(kubeconfig('https://edge')), namespaces: b64('ns') },
    });
    await eventually(() => passes.includes('edge-1|ns/remote'), 'the order watch on the target');
    await manager.stop();
  });

  it('keeps management-only watches off the targets', async () => {
    const { management, target, manager, passes, reconcile } = setup();
    manager
      .controller('widgets')
      .for(widgetType)
      .watches(gadgetType, (g) => [{ cluster: '', namespace: 'ns', name: g.metadata.name }], { clusters: 'management' })
      .complete(reconcile);
    await manager.start();
    const edge = target('https://edge');
    await edge.create(gadgetType, objectOf(gadgetType, 'ns', 'remote-gadget'));
    await edge.create(widgetType, objectOf(widgetType, 'ns', 'remote'));
    await management.create(builtin.secret, registration('edge-1', { kubeconfig: kubeconfig('https://edge') }));
    await eventually(() => passes.length === 1);
    await settle();
    assert.deepEqual(passes, ['edge-1|ns/remote']);
    assert.ok(!edge.calls.includes('list gadgets'));
    await manager.stop();
  });
});

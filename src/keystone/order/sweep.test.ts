import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeForbiddenError } from '../../kube/errors.ts';
import type { Client } from '../../kube/client.ts';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin, type ResourceType } from '../../kube/resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import { childLabels, deliveredSecretName, keystoneUserChildNames, keystoneUserKind, type OrderRef } from './names.ts';
import { sweepOrderChildren } from './sweep.ts';
import { keystoneUserDeleteRank } from './decide-teardown.ts';

// Schemaless stand-ins for the K-ORC User and ESO PushSecret kinds: the sweep reads only names and labels.
const userType: ResourceType = {
  group: 'openstack.k-orc.cloud',
  version: 'v1alpha1',
  kind: 'User',
  plural: 'users',
  namespaced: true,
};
const pushType: ResourceType = {
  group: 'external-secrets.io',
  version: 'v1alpha1',
  kind: 'PushSecret',
  plural: 'pushsecrets',
  namespaced: true,
};

function crd(type: ResourceType): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${type.plural}.${type.group}` },
    spec: {
      group: type.group,
      scope: 'Namespaced',
      names: { plural: type.plural, singular: type.kind.toLowerCase(), kind: type.kind, listKind: `${type.kind}List` },
      versions: [
        {
          name: type.version,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

const ref: OrderRef = { kind: keystoneUserKind, cluster: 'edge-1', namespace: 'tenant-a', name: 'workflow' };
const names = keystoneUserChildNames(ref);
const CP_NS = 'default';

/** Records the deletes a client issues, in order, on top of a real store. */
function recording(client: Client, log: string[]): Client {
  return {
    ...client,
    get: client.get.bind(client),
    list: client.list.bind(client),
    delete: async (type, namespace, name, options) => {
      log.push(`${type.kind}/${name}`);
      await client.delete(type, namespace, name, options);
    },
  };
}

describe('Gates, freeze, mappers, teardown, the hold: the sweep', () => {
  let management: EmbeddedStore;
  let target: EmbeddedStore;

  before(async () => {
    const clock = new ManualClock();
    management = openEmbeddedStore(':memory:', { clock });
    target = openEmbeddedStore(':memory:', { clock });
    for (const type of [userType, pushType]) await management.create(builtin.customResourceDefinition, crd(type));
    await target.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'tenant-a' } });
  });
  after(async () => {
    await management.close();
    await target.close();
  });

  const child = (type: ResourceType, name: string, labels = childLabels(ref)): KubeObject => ({
    apiVersion: `${type.group === '' ? '' : `${type.group}/`}${type.version}`,
    kind: type.kind,
    metadata: { name, namespace: CP_NS, labels },
  });

  it('DeleteOfAFrozenOrderTearsDown: children in the spec\u2019s order, then the delivered Secret; foreign objects stay', async () => {
    await management.create(builtin.secret, child(builtin.secret, names.source));
    await management.create(builtin.secret, child(builtin.secret, names.password(2)));
    await management.create(builtin.secret, child(builtin.secret, names.password(1)));
    await management.create(userType, child(userType, names.probe));
    await management.create(userType, child(userType, names.user));
    await management.create(pushType, child(pushType, names.backup));
    // Foreign: the same order's labels without its prefix, and its prefix with the management cluster's labels.
    await management.create(builtin.secret, child(builtin.secret, 'cp-admin-password-cloud', childLabels(ref)));
    await management.create(userType, child(userType, `${names.user}-x`, childLabels({ ...ref, cluster: '' })));
    const order = await target.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'stand-in-order', namespace: 'tenant-a' },
    });
    await target.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: deliveredSecretName('workflow'),
        namespace: 'tenant-a',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Secret', name: 'stand-in-order', uid: order.metadata.uid ?? '', controller: true },
        ],
      },
    });

    const log: string[] = [];
    const report = await sweepOrderChildren({
      management: recording(management, log),
      orderClient: recording(target, log),
      ref,
      controlPlaneNamespace: CP_NS,
      types: [pushType, userType, builtin.secret],
      rank: keystoneUserDeleteRank,
      delivered: { name: deliveredSecretName('workflow'), orderUid: order.metadata.uid },
    });
    const p = names.backup.slice(0, -'backup'.length);
    const expected = [
      `PushSecret/${p}backup`,
      `User/${p}user`,
      `User/${p}user-probe`,
      `Secret/${p}password-v1`,
      `Secret/${p}password-v2`,
      `Secret/${p}source`,
      'Secret/workflow-credentials',
    ];
    assert.deepEqual(log, expected);
    assert.deepEqual(report, { issued: expected, errors: [] });
    await management.get(builtin.secret, CP_NS, 'cp-admin-password-cloud');
    await management.get(userType, CP_NS, `${names.user}-x`);

    const again = await sweepOrderChildren({
      management,
      orderClient: target,
      ref,
      controlPlaneNamespace: CP_NS,
      types: [pushType, userType, builtin.secret],
      rank: keystoneUserDeleteRank,
      delivered: { name: deliveredSecretName('workflow'), orderUid: order.metadata.uid },
    });
    assert.deepEqual(again, { issued: [], errors: [] });
  });

  it('a delivered Secret the order does not control is left alone', async () => {
    await target.create(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'stranger-credentials', namespace: 'tenant-a' },
    });
    const report = await sweepOrderChildren({
      management,
      orderClient: target,
      ref: { ...ref, name: 'stranger' },
      controlPlaneNamespace: CP_NS,
      types: [builtin.secret],
      rank: keystoneUserDeleteRank,
      delivered: { name: 'stranger-credentials', orderUid: 'some-uid' },
    });
    assert.deepEqual(report, { issued: [], errors: [] });
    await target.get(builtin.secret, 'tenant-a', 'stranger-credentials');
  });

  it('TeardownFailures: a list or delete error is reported, the rest of the sweep still runs', async () => {
    await management.create(builtin.secret, child(builtin.secret, names.source));
    const denied = new KubeForbiddenError('users is forbidden');
    const failing: Client = {
      ...management,
      get: management.get.bind(management),
      delete: management.delete.bind(management),
      list: (type, options) => (type === userType ? Promise.reject(denied) : management.list(type, options)),
    };
    const report = await sweepOrderChildren({
      management: failing,
      orderClient: target,
      ref,
      controlPlaneNamespace: CP_NS,
      types: [userType, builtin.secret],
      rank: keystoneUserDeleteRank,
      delivered: { name: deliveredSecretName('workflow'), orderUid: undefined },
    });
    assert.deepEqual(report, { issued: [`Secret/${names.source}`], errors: [denied] });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import { keystoneUserType } from '../../keystone/apis/keystoneuser.ts';
import { userFixture, CP_NS, NAME, NS, TARGET, type UserFixture } from '../../keystone/user/testing/fixture.ts';
import { allows, AuthorizingClient, type Permission } from '../../runtime/rbac.ts';
import { grantsOf, KEYSTONE_OPERATOR_NAMESPACE } from './rbac.ts';
import {
  keystoneOperatorPermissions,
  type KeystoneWatch,
  registeredReads,
  regionServicePermissions,
  targetClusterPermissions,
} from './permissions.ts';

const PUBLISHED = { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } };

/**
 * The fixture's clients, each held to what the shipped RBAC grants on its cluster: on the management cluster, the
 * namespaced overlay's Roles in the ControlPlane's and the orders' namespaces (or the cluster-wide overlay's).
 */
function authorized(denied: AuthorizingClient[], watch: KeystoneWatch = 'namespaces') {
  return (cluster: string, client: Client): Client => {
    const permissions = cluster === '' ? keystoneOperatorPermissions(watch) : targetClusterPermissions();
    const where = cluster === '' ? { watched: [CP_NS, NS], registrations: 'c5c3-clusters' } : {};
    const authorizer = new AuthorizingClient(client, grantsOf(permissions, KEYSTONE_OPERATOR_NAMESPACE, where));
    denied.push(authorizer);
    return authorizer;
  };
}

async function deleteAndDrain(h: UserFixture): Promise<void> {
  const order = await h.order();
  await h.orderClient.update(keystoneUserType, {
    ...order,
    metadata: { ...order.metadata, deletionTimestamp: '2026-06-01T00:00:00Z' },
  });
  for (let i = 0; i < 8 && ((await h.order()).metadata.finalizers ?? []).length > 0; i++) await h.pass();
  assert.deepEqual((await h.order()).metadata.finalizers ?? [], [], 'the finalizer is released');
}

const verbsOn = (permissions: readonly Permission[], resource: string) =>
  new Set(permissions.filter((p) => p.resource === resource).flatMap((p) => p.verbs));

describe('generated RBAC', () => {
  it('reads what the registrations watch: the KeystoneUser controller on its clusters', () => {
    const { management, targets } = registeredReads(() => undefined);
    assert.deepEqual([management, targets], [[], []], 'nothing registered, nothing read');
    const keystone = keystoneOperatorPermissions();
    for (const resource of ['keystoneusers', 'secrets', 'users', 'pushsecrets', 'controlplanes'])
      assert.deepEqual([...verbsOn(keystone, resource)].filter((v) => ['get', 'list', 'watch'].includes(v)).sort(), [
        'get',
        'list',
        'watch',
      ]);
    assert.deepEqual(
      [...new Set(targetClusterPermissions().map((p) => p.resource))].sort(),
      [
        'events',
        'keystoneapplicationcredentials',
        'keystoneroleassignments',
        'keystoneusers',
        'keystoneusers/finalizers',
        'keystoneusers/status',
        'secrets',
      ],
      'a target cluster holds the orders, their Events and delivered Secrets, never the ControlPlane or K-ORC',
    );
  });

  it('writes region resources only in the region service namespace', () => {
    const writes = regionServicePermissions().filter((p) =>
      p.verbs.some((v) => v === 'create' || v === 'update' || v === 'patch' || v === 'delete'),
    );
    assert.deepEqual(
      writes.filter((p) => p.scope !== 'namespace'),
      [],
    );
  });

  it('lets the region service record Events in its namespace: the first created, a repeat patched onto it', () => {
    const grants = grantsOf(regionServicePermissions(), 'unikorn-region');
    for (const verb of ['create', 'patch'] as const) {
      assert.ok(allows(grants, { group: '', resource: 'events', verb, namespace: 'unikorn-region' }), verb);
      assert.ok(!allows(grants, { group: '', resource: 'events', verb, namespace: 'kube-system' }), verb);
    }
  });

  for (const [cluster, watch] of [
    ['', 'namespaces'],
    ['', 'cluster'],
    [TARGET, 'namespaces'],
  ] as const) {
    it(`suffices for an order on ${cluster === '' ? `the management cluster (watching ${watch})` : 'a target cluster'}: Ready, then deleted`, async () => {
      const authorizers: AuthorizingClient[] = [];
      const h = userFixture({ cluster, wrap: authorized(authorizers, watch) });
      await h.seedAll({}, PUBLISHED);
      await h.converge();
      assert.equal((await h.condition('Ready'))?.status, 'True');
      await deleteAndDrain(h);
      assert.deepEqual(
        authorizers.flatMap((a) => a.denied),
        [],
      );
      assert.equal(authorizers.length, 2);
    });
  }

  it('confines the namespaced operator to its watched namespaces: no Secret, order or K-ORC User elsewhere', () => {
    const grants = grantsOf(keystoneOperatorPermissions(), KEYSTONE_OPERATOR_NAMESPACE, {
      watched: ['openstack'],
      registrations: 'c5c3-clusters',
    });
    const may = (
      resource: string,
      verb: 'get' | 'list' | 'watch' | 'create',
      namespace: string | undefined,
      group = '',
    ) => allows(grants, { group, resource, verb, namespace });
    for (const verb of ['get', 'list', 'watch', 'create'] as const) {
      assert.ok(may('secrets', verb, 'openstack'), `${verb} secrets in a watched namespace`);
      assert.ok(!may('secrets', verb, 'tenant-z'), `${verb} secrets in an unwatched namespace`);
      assert.ok(!may('secrets', verb, undefined), `${verb} secrets in every namespace`);
      assert.ok(!may('secrets', verb, KEYSTONE_OPERATOR_NAMESPACE), `${verb} secrets in its own namespace`);
    }
    assert.ok(may('secrets', 'watch', 'c5c3-clusters'), 'the registrations are watched');
    assert.ok(!may('secrets', 'create', 'c5c3-clusters'), 'and never written');
    assert.ok(!may('keystoneusers', 'list', undefined, 'c5c3.io'));
    assert.ok(!may('users', 'create', 'tenant-z', 'openstack.k-orc.cloud'));
    assert.ok(may('clustersecretstores', 'get', undefined, 'external-secrets.io'), 'a cluster-scoped store');
    assert.deepEqual(
      keystoneOperatorPermissions()
        .filter((p) => p.scope === 'cluster')
        .map((p) => p.resource),
      ['clustersecretstores'],
      'nothing but the cluster-scoped store is granted cluster-wide',
    );
  });

  it('refuses a call it does not grant: the operator never creates an order', async () => {
    const authorizers: AuthorizingClient[] = [];
    const h = userFixture({ cluster: TARGET, wrap: authorized(authorizers) });
    const target = h.clients.get(TARGET);
    assert.ok(target !== undefined);
    await assert.rejects(
      target.create<KubeObject>(keystoneUserType, {
        apiVersion: 'c5c3.io/v1alpha1',
        kind: 'KeystoneUser',
        metadata: { name: NAME, namespace: NS },
      }),
      (error: unknown) =>
        error instanceof Error && error.message === 'forbidden: create c5c3.io/keystoneusers in tenant-a',
    );
    assert.deepEqual(
      authorizers.flatMap((a) => a.denied),
      ['create c5c3.io/keystoneusers in tenant-a'],
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import { keystoneUserType } from '../../keystone/apis/keystoneuser.ts';
import { userFixture, NAME, NS, TARGET, type UserFixture } from '../../keystone/user/testing/fixture.ts';
import { allows, AuthorizingClient, type Permission } from '../../runtime/rbac.ts';
import { grantsOf, KEYSTONE_OPERATOR_NAMESPACE } from './rbac.ts';
import {
  keystoneOperatorPermissions,
  registeredReads,
  regionServicePermissions,
  targetClusterPermissions,
} from './permissions.ts';

const PUBLISHED = { services: { keystone: { publicEndpoint: 'https://ks.example/v3' } } };

/** The fixture's clients, each held to what the shipped RBAC grants on its cluster. */
function authorized(denied: AuthorizingClient[]) {
  return (cluster: string, client: Client): Client => {
    const permissions = cluster === '' ? keystoneOperatorPermissions() : targetClusterPermissions();
    const authorizer = new AuthorizingClient(client, grantsOf(permissions, KEYSTONE_OPERATOR_NAMESPACE));
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

  for (const cluster of ['', TARGET]) {
    it(`suffices for an order on ${cluster === '' ? 'the management' : 'a target'} cluster: Ready, then deleted`, async () => {
      const authorizers: AuthorizingClient[] = [];
      const h = userFixture({ cluster, wrap: authorized(authorizers) });
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

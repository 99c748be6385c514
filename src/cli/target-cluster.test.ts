import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtin, type ResourceType } from '../kube/resource-type.ts';
import type { KubeObject } from '../kube/object.ts';
import { FakeClient } from '../runtime/testing/fake-client.ts';
import { grantNamespaces, registerNamespaces } from './target-cluster.ts';
import { renderRbac, targetNamespaceGrant } from './deploy/rbac.ts';
import { AuthorizingClient, type Grants } from '../runtime/rbac.ts';
import { KubeForbiddenError } from '../kube/errors.ts';
import { NS, TARGET, userFixture } from '../keystone/user/testing/fixture.ts';

const rbacType = (kind: string, plural: string): ResourceType => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced: true,
});
const roles = rbacType('Role', 'roles');
const bindings = rbacType('RoleBinding', 'rolebindings');

const where = async (client: FakeClient, type: ResourceType) =>
  (await client.list<KubeObject>(type)).items.map((o) => o.metadata.namespace ?? '').sort();

describe('openregion target-cluster grant', () => {
  it('grants exactly the assigned namespaces: a Role and RoleBinding each, and revokes a namespace dropped', async () => {
    const client = new FakeClient();
    assert.deepEqual(await grantNamespaces(client, ['tenant-b', 'tenant-a']), {
      granted: ['tenant-a', 'tenant-b'],
      revoked: [],
    });
    assert.deepEqual(await where(client, roles), ['tenant-a', 'tenant-b']);
    assert.deepEqual(await where(client, bindings), ['tenant-a', 'tenant-b']);
    const role = await client.get<KubeObject>(roles, 'tenant-a', 'openregion-keystone-operator');
    const rules = role['rules'] as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    assert.ok(rules.some((r) => r.resources.includes('secrets') && r.verbs.includes('create')));
    assert.ok(rules.some((r) => r.resources.includes('keystoneusers') && r.verbs.includes('watch')));
    const binding = await client.get<KubeObject>(bindings, 'tenant-a', 'openregion-keystone-operator');
    assert.deepEqual(binding['subjects'], [
      { kind: 'ServiceAccount', name: 'openregion-keystone-operator', namespace: 'openregion-system' },
    ]);

    assert.deepEqual(await grantNamespaces(client, ['tenant-b', 'tenant-c']), {
      granted: ['tenant-b', 'tenant-c'],
      revoked: ['tenant-a'],
    });
    assert.deepEqual(await where(client, roles), ['tenant-b', 'tenant-c']);
    assert.deepEqual(await where(client, bindings), ['tenant-b', 'tenant-c']);
    assert.deepEqual((await grantNamespaces(client, [])).revoked, ['tenant-b', 'tenant-c']);
    assert.deepEqual(await where(client, roles), []);
  });

  it("leaves a Role of the same name it did not make, and another identity's grants", async () => {
    const client = new FakeClient();
    await client.create<KubeObject>(roles, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'someone-else', namespace: 'tenant-z' },
    });
    await grantNamespaces(client, ['tenant-a'], { namespace: 'other-system', name: 'openregion-keystone-operator' });
    await grantNamespaces(client, []);
    assert.deepEqual(await where(client, roles), ['tenant-a', 'tenant-z']);
  });

  it("writes the granted namespaces into the cluster's registration Secret", async () => {
    const management = new FakeClient();
    await management.create<KubeObject>(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'edge-1', namespace: 'c5c3-clusters' },
      data: { kubeconfig: Buffer.from('k').toString('base64') },
    });
    await registerNamespaces(management, 'c5c3-clusters', 'edge-1', ['tenant-b', 'tenant-a']);
    const data = (await management.get<KubeObject>(builtin.secret, 'c5c3-clusters', 'edge-1'))['data'] as Record<
      string,
      string
    >;
    assert.equal(Buffer.from(data['namespaces'] ?? '', 'base64').toString(), 'tenant-a,tenant-b');
    assert.equal(data['kubeconfig'], Buffer.from('k').toString('base64'));
  });

  it('deploy/target-cluster grants nothing cluster-wide: no ClusterRole, no ClusterRoleBinding', () => {
    const text = renderRbac().get('target-cluster/rbac.yaml') ?? '';
    assert.doesNotMatch(text, /kind: ClusterRole/);
    assert.match(text, /kind: ServiceAccount/);
  });

  it('an order on the target reaches Ready holding only the grant of its namespace; nothing else is readable', async () => {
    const [role] = targetNamespaceGrant(NS);
    const rules = (role?.['rules'] ?? []) as Grants['cluster'];
    let authorizing: AuthorizingClient | undefined;
    const h = userFixture({
      cluster: TARGET,
      wrap: (cluster, client) =>
        cluster === TARGET
          ? (authorizing = new AuthorizingClient(client, { cluster: [], namespaced: new Map([[NS, rules]]) }))
          : client,
    });
    await h.seedAll({}, { services: { keystone: { publicEndpoint: 'https://keystone.example/v3' } } });
    await h.converge();
    assert.equal((await h.condition('Ready'))?.status, 'True');
    assert.deepEqual(authorizing?.denied, [], 'every call the reconciler made on the target was granted');
    await h.fakes.target.create<KubeObject>(builtin.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'tenant-secret', namespace: 'tenant-z' },
    });
    await assert.rejects(h.orderClient.get(builtin.secret, 'tenant-z', 'tenant-secret'), KubeForbiddenError);
    await assert.rejects(h.orderClient.list(builtin.secret), KubeForbiddenError);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeForbiddenError } from '../kube/errors.ts';
import { builtin } from '../kube/resource-type.ts';
import { allows, AuthorizingClient, permission, policyRules, READ } from './rbac.ts';
import { FakeClient } from './testing/fake-client.ts';
import { objectOf, widgetType } from './testing/helpers.ts';

describe('RBAC', () => {
  it('folds permissions into rules: verbs merged per resource, resources with the same verbs together', () => {
    const permissions = [
      permission(widgetType, READ),
      permission(widgetType, ['update']),
      permission(widgetType, ['update'], { subresource: 'status' }),
      permission(builtin.secret, ['get']),
      permission(builtin.configMap, ['get']),
      permission(builtin.lease, ['get', 'update'], { scope: 'namespace', resourceNames: ['a'] }),
    ];
    assert.deepEqual(policyRules(permissions, 'cluster'), [
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get'] },
      { apiGroups: [widgetType.group], resources: ['widgets'], verbs: ['get', 'list', 'watch', 'update'] },
      { apiGroups: [widgetType.group], resources: ['widgets/status'], verbs: ['update'] },
    ]);
    assert.deepEqual(policyRules(permissions, 'namespace'), [
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['a'], verbs: ['get', 'update'] },
    ]);
  });

  it('leaves out of a Role what the ClusterRole already grants', () => {
    const permissions = [
      permission(widgetType, READ),
      permission(widgetType, ['get', 'create'], { scope: 'namespace' }),
    ];
    assert.deepEqual(policyRules(permissions, 'namespace', permissions), [
      { apiGroups: [widgetType.group], resources: ['widgets'], verbs: ['create'] },
    ]);
  });

  it('refuses a wildcard anywhere', () => {
    assert.throws(() => policyRules([permission({ group: '*', plural: 'widgets' }, ['get'])], 'cluster'), /wildcard/);
    assert.throws(() => policyRules([permission({ group: '', plural: '*' }, ['get'])], 'cluster'), /wildcard/);
  });

  it('decides as kube-apiserver: a Role only in its namespace, resource names only for named requests', () => {
    const grants = {
      cluster: policyRules([permission(widgetType, ['list'])], 'cluster'),
      namespaced: new Map([
        [
          'ops',
          policyRules([permission(builtin.lease, ['get'], { scope: 'namespace', resourceNames: ['a'] })], 'namespace'),
        ],
      ]),
    };
    const lease = { group: 'coordination.k8s.io', resource: 'leases', verb: 'get' } as const;
    assert.equal(allows(grants, { ...lease, namespace: 'ops', name: 'a' }), true);
    assert.equal(allows(grants, { ...lease, namespace: 'ops', name: 'b' }), false);
    assert.equal(allows(grants, { ...lease, namespace: 'other', name: 'a' }), false);
    assert.equal(allows(grants, { ...lease, verb: 'list', namespace: 'ops' }), false);
    const widgets = { group: widgetType.group, resource: 'widgets', verb: 'list' } as const;
    assert.equal(allows(grants, { ...widgets, namespace: undefined }), true, 'every namespace from a ClusterRole');
  });

  it('an AuthorizingClient rejects (never throws) what the grants do not allow, and records it', async () => {
    const inner = new FakeClient();
    const client = new AuthorizingClient(inner, {
      cluster: policyRules([permission(widgetType, ['get', 'create'])], 'cluster'),
      namespaced: new Map(),
    });
    await client.create(widgetType, objectOf(widgetType, 'ns', 'a'));
    assert.equal((await client.get(widgetType, 'ns', 'a')).metadata.name, 'a');
    const refused = client.delete(widgetType, 'ns', 'a');
    await assert.rejects(refused, KubeForbiddenError);
    await assert.rejects(
      client.apply(widgetType, objectOf(widgetType, 'ns', 'b'), { fieldManager: 'm' }),
      KubeForbiddenError,
      'an apply needs patch',
    );
    const watching = client.watch(widgetType, {})[Symbol.asyncIterator]();
    await assert.rejects(watching.next(), KubeForbiddenError);
    assert.deepEqual(client.denied, [
      `delete ${widgetType.group}/widgets a in ns`,
      `patch ${widgetType.group}/widgets b in ns`,
      `watch ${widgetType.group}/widgets in every namespace`,
    ]);
    assert.equal((await inner.list(widgetType)).items.length, 1, 'nothing refused reached the store');
  });
});

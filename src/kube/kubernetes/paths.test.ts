import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtin, type ResourceType } from '../resource-type.ts';
import { resourcePath } from './paths.ts';

const keystoneUser: ResourceType = {
  group: 'c5c3.io',
  version: 'v1alpha1',
  kind: 'KeystoneUser',
  plural: 'keystoneusers',
  namespaced: true,
};

describe('resourcePath', () => {
  it('puts the core group under /api/v1', () => {
    assert.equal(resourcePath(builtin.secret, 'ns1', 's1'), '/api/v1/namespaces/ns1/secrets/s1');
    assert.equal(resourcePath(builtin.namespace, 'ignored', 'ns1'), '/api/v1/namespaces/ns1');
  });

  it('puts other groups under /apis/group/version', () => {
    assert.equal(resourcePath(keystoneUser, 'ns1'), '/apis/c5c3.io/v1alpha1/namespaces/ns1/keystoneusers');
    assert.equal(
      resourcePath(keystoneUser, 'ns1', 'u1', 'status'),
      '/apis/c5c3.io/v1alpha1/namespaces/ns1/keystoneusers/u1/status',
    );
    assert.equal(
      resourcePath(builtin.lease, 'kube-system', 'l'),
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l',
    );
    assert.equal(
      resourcePath(builtin.customResourceDefinition, undefined, 'keystoneusers.c5c3.io'),
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/keystoneusers.c5c3.io',
    );
  });

  it('addresses all namespaces without a namespace', () => {
    assert.equal(resourcePath(keystoneUser, undefined), '/apis/c5c3.io/v1alpha1/keystoneusers');
    assert.equal(resourcePath(builtin.event, ''), '/api/v1/events');
  });

  it('escapes names', () => {
    assert.equal(resourcePath(builtin.secret, 'ns', 'a/b'), '/api/v1/namespaces/ns/secrets/a%2Fb');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../kube/object.ts';
import { labels } from '../apis/index.ts';
import { OrganizationNames } from './organization-names.ts';

const object = (name: string, organization: string | undefined, namespace = 'region'): KubeObject => ({
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Server',
  metadata: {
    name,
    namespace,
    ...(organization === undefined ? {} : { labels: { [labels.organization]: organization } }),
  },
});

describe('OrganizationNames: the names per organization an informer shows, from its events', () => {
  it('follows adds, updates (an organization relabelled) and deletes, in its namespace only', () => {
    const names = new OrganizationNames('region');
    names.handlers.add(object('a', 'org-1'));
    names.handlers.add(object('b', 'org-1'));
    names.handlers.add(object('c', 'org-2'));
    names.handlers.add(object('elsewhere', 'org-1', 'other'));
    names.handlers.add(object('unlabelled', undefined));
    names.handlers.add(object('blank', ''));
    assert.deepEqual([...names.of('org-1')].sort(), ['a', 'b']);
    assert.deepEqual([...names.of('org-2')], ['c']);
    assert.equal(names.of('org-3').size, 0);

    names.handlers.update(object('b', 'org-1'), object('b', 'org-2'));
    assert.deepEqual([...names.of('org-1')], ['a']);
    assert.deepEqual([...names.of('org-2')].sort(), ['b', 'c']);

    names.handlers.delete(object('a', 'org-1'));
    names.handlers.delete(object('elsewhere', 'org-1', 'other'));
    assert.equal(names.of('org-1').size, 0);
    assert.equal(names.of('org-2').size, 2);
  });

  it('an update that keeps the organization keeps the name once', () => {
    const names = new OrganizationNames('region');
    names.handlers.add(object('a', 'org-1'));
    names.handlers.update(object('a', 'org-1'), object('a', 'org-1'));
    assert.deepEqual([...names.of('org-1')], ['a']);
  });
});

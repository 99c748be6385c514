import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareVersionPriority } from './resource-type.ts';

describe('compareVersionPriority', () => {
  it('orders versions as a server orders a group: GA, then beta, then alpha, higher first, then the rest', () => {
    const versions = ['v1alpha1', 'foo', 'v1beta1', 'v2', 'v1', 'v2beta1', 'v1beta2', 'v10alpha3', 'bar'];
    assert.deepEqual(versions.sort(compareVersionPriority), [
      'v2',
      'v1',
      'v2beta1',
      'v1beta2',
      'v1beta1',
      'v10alpha3',
      'v1alpha1',
      'bar',
      'foo',
    ]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../kube/object.ts';
import { describeText } from './describe.ts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const server: KubeObject = {
  apiVersion: 'region.unikorn-cloud.org/v1alpha1',
  kind: 'Server',
  metadata: {
    name: 'web',
    namespace: 'unikorn-region',
    uid: 'u-1',
    creationTimestamp: '2026-12-01T11:50:00Z',
    labels: { 'unikorn-cloud.org/name': 'web', tier: 'front' },
    finalizers: ['region.unikorn-cloud.org/server'],
    ownerReferences: [{ apiVersion: 'region.unikorn-cloud.org/v1alpha1', kind: 'Network', name: 'net-1', uid: 'n-1' }],
  },
  spec: { flavorID: 'f1', image: { id: 'img-2' } },
  status: {
    conditions: [
      {
        type: 'Available',
        status: 'False',
        reason: 'Provisioning',
        message: 'the server is being rebuilt',
        lastTransitionTime: '2026-12-01T11:58:00Z',
      },
    ],
    observed: { generation: 2, image: 'img-1' },
    rebuild: { state: 'Rebuilding' },
  },
};

describe('openregion describe', () => {
  it('shows identity, owner, dependents, spec, a conditions table, the rest of the status and the Events', () => {
    const text = describeText({
      object: server,
      dependents: ['volume.region.unikorn-cloud.org/data'],
      events: [
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'e1', namespace: 'unikorn-region' },
          type: 'Warning',
          reason: 'ProvisionFailed',
          message: 'the cloud refused the rebuild; retrying',
          count: 3,
          lastTimestamp: '2026-12-01T11:59:00Z',
          source: { component: 'region-server' },
        },
      ],
      now: NOW,
    });
    for (const line of [
      'Name:         web',
      'Namespace:    unikorn-region',
      'Labels:       tier=front',
      '              unikorn-cloud.org/name=web',
      'Annotations:  <none>',
      'Created:      2026-12-01T11:50:00Z (10m ago)',
      'Finalizers:   region.unikorn-cloud.org/server',
      'Owner:        Network/net-1',
      'Dependents:   volume.region.unikorn-cloud.org/data',
      '  flavorID: f1',
      '  Type       Status  Reason        Age  Message',
      '  ----       ------  ------        ---  -------',
      '  Available  False   Provisioning  2m   the server is being rebuilt',
      '  observed:',
      '    image: img-1',
      '  rebuild:',
      '    state: Rebuilding',
      '  Type     Reason           Age       From           Message',
      '  ----     ------           ---       ----           -------',
      '  Warning  ProvisionFailed  60s (x3)  region-server  the cloud refused the rebuild; retrying',
    ]) {
      assert.ok(text.split('\n').includes(line), `${line}\n--- in ---\n${text}`);
    }
    assert.doesNotMatch(text, /conditions:/, 'conditions are the table, not repeated in the status');
  });

  it('says <none> for what an object lacks', () => {
    const text = describeText({
      object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
      dependents: [],
      events: [],
      now: NOW,
    });
    assert.match(text, /^Conditions:\n {2}<none>\nEvents:\n {2}<none>\n$/m);
    assert.match(text, /^Owner: {8}<none>$/m);
  });
});

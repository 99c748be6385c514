import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Server } from '../apis/index.ts';
import {
  healthStatusOf,
  powerStateOf,
  provisioningStatusOf,
  serverProvisioningStatusOf,
  serverReadMetadataOf,
} from './status.ts';
import { defined } from '../../util/defined.ts';

const at = '2026-01-01T00:00:00Z';
const condition = (type: string, status: 'True' | 'False', reason: string) => ({
  type,
  status,
  reason,
  message: reason,
  lastTransitionTime: at,
});
const server = (status: Server['status'], deleting = false): Server =>
  ({
    apiVersion: 'region.unikorn-cloud.org/v1alpha1',
    kind: 'Server',
    metadata: { name: 's', ...(deleting ? { deletionTimestamp: at } : {}) },
    spec: { flavorID: 'f', image: { id: 'img-2' }, networks: [{ id: 'n' }] },
    status,
  }) as Server;

describe('read status', () => {
  it('maps the Available condition to provisioningStatus', () => {
    assert.equal(provisioningStatusOf(server(undefined)), 'pending');
    assert.equal(
      provisioningStatusOf(server({ conditions: [condition('Available', 'True', 'Provisioned')] })),
      'provisioned',
    );
    for (const reason of ['Provisioning', 'DependencyNotReady']) {
      assert.equal(
        provisioningStatusOf(server({ conditions: [condition('Available', 'False', reason)] })),
        'provisioning',
      );
    }
    for (const reason of ['Errored', 'DependencyFailed', 'DependencyNotFound']) {
      assert.equal(provisioningStatusOf(server({ conditions: [condition('Available', 'False', reason)] })), 'error');
    }
    assert.equal(
      provisioningStatusOf(server({ conditions: [condition('Available', 'True', 'Provisioned')] }, true)),
      'deprovisioning',
    );
  });

  it('reads a server provisioning while an image change is unsettled, whatever its last pass said', () => {
    const provisioned = [condition('Available', 'True', 'Provisioned')];
    assert.equal(
      serverProvisioningStatusOf(server({ conditions: provisioned, observed: { image: 'img-1' } })),
      'provisioning',
    );
    const afterRebuild = (state: 'Rebuilding' | 'Failed') =>
      serverProvisioningStatusOf(
        server({ conditions: provisioned, observed: { image: 'img-2' }, rebuild: { targetImageID: 'img-2', state } }),
      );
    assert.equal(afterRebuild('Rebuilding'), 'provisioning');
    assert.equal(afterRebuild('Failed'), 'provisioned');
    assert.equal(
      serverProvisioningStatusOf(server({ conditions: provisioned, observed: { image: 'img-2' } })),
      'provisioned',
    );
    const rebuilding = [...provisioned, condition('Active', 'False', 'Rebuilding')];
    assert.equal(
      serverProvisioningStatusOf(server({ conditions: rebuilding, observed: { image: 'img-2' } })),
      'provisioning',
    );
    const errored = [condition('Available', 'False', 'Errored')];
    assert.equal(serverProvisioningStatusOf(server({ conditions: errored, observed: { image: 'img-1' } })), 'error');
  });

  it('reads provisioning while the Available condition describes an older generation than the spec', () => {
    const object = (observedGeneration: number) =>
      ({
        ...server(undefined),
        metadata: { name: 's', generation: 2 },
        status: { conditions: [{ ...condition('Available', 'True', 'Provisioned'), observedGeneration }] },
      }) as Server;
    assert.equal(provisioningStatusOf(object(1)), 'provisioning');
    assert.equal(provisioningStatusOf(object(2)), 'provisioned');
  });

  it('says what is changing: an image, volume attachments, or the specification; never an image it is not changing', () => {
    const edited = (status: Server['status'], volumes?: { id: string }[]) =>
      serverReadMetadataOf({
        ...server(status),
        metadata: { name: 's', generation: 2 },
        spec: { ...server(status).spec, ...defined({ volumes }) },
      }).provisioningStatusDetail?.message;
    const seen = { conditions: [{ ...condition('Available', 'True', 'Provisioned'), observedGeneration: 1 }] };
    assert.equal(edited({ ...seen, observed: { image: 'img-1' } }), 'an image change is being applied');
    assert.equal(
      edited({ ...seen, observed: { image: 'img-2' } }, [{ id: 'v1' }]),
      'a volume attachment change is being applied',
    );
    const attached = {
      ...seen,
      observed: { image: 'img-2' },
      volumes: [{ id: 'v1', provisioningStatus: 'Provisioned' as const }],
    };
    assert.equal(edited(attached, []), 'a volume attachment change is being applied', 'a detach');
    assert.equal(edited(attached, [{ id: 'v1' }]), 'a change to the specification is being applied');
  });

  it('maps Healthy to healthStatus and Active to powerState', () => {
    assert.equal(healthStatusOf(server({ conditions: [condition('Healthy', 'True', 'Healthy')] })), 'healthy');
    assert.equal(healthStatusOf(server({ conditions: [condition('Healthy', 'False', 'Degraded')] })), 'degraded');
    assert.equal(healthStatusOf(server({ conditions: [condition('Healthy', 'False', 'Errored')] })), 'error');
    assert.equal(healthStatusOf(server(undefined)), 'unknown');
    assert.equal(powerStateOf(server({ conditions: [condition('Active', 'False', 'Rebuilding')] })), 'Building');
    assert.equal(powerStateOf(server({ conditions: [condition('Active', 'False', 'Error')] })), undefined);
    assert.equal(powerStateOf(server({ conditions: [condition('Active', 'True', 'Running')] })), 'Running');
  });
});

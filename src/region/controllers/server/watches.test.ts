/** The Server controller's inputs and wakes, without I/O. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Condition } from '../../../kube/object.ts';
import type { ObjectEvent } from '../../../runtime/predicates.ts';
import { API_VERSION, labels } from '../../apis/shared.ts';
import type { Server, ServerStatus } from '../../apis/server.ts';
import { createFailureEdge, observedChanged, serverInputOf, stamped, vanishedEdge, withAddresses } from './watches.ts';
import { ORGANIZATION, PROJECT, REGION, ownerLabels } from '../testing/fakes.ts';

const server = (status?: ServerStatus, spec: Partial<Server['spec']> = {}, extraLabels = {}): Server => ({
  apiVersion: API_VERSION,
  kind: 'Server',
  metadata: {
    name: 's-1',
    namespace: 'default',
    generation: 1,
    labels: ownerLabels({ [labels.identityID]: 'id-1', [labels.name]: 'web', ...extraLabels }),
  },
  spec: { flavorID: 'f', image: { id: 'img' }, networks: [{ id: 'net-1' }], ...spec },
  ...(status === undefined ? {} : { status }),
});

const condition = (type: string, status: Condition['status'], reason: string): Condition => ({
  type,
  status,
  reason,
  message: 'm',
  lastTransitionTime: '2026-01-01T00:00:00Z',
});

const update = (old: ServerStatus, next: ServerStatus): ObjectEvent => ({
  type: 'update',
  cluster: '',
  oldObject: server(old),
  object: server(next),
});

describe('serverInputOf', () => {
  it('builds the provider input: the display name, the first network, SSH mode resolved, user data decoded', () => {
    const input = serverInputOf(
      server(undefined, {
        networks: [{ id: 'net-1', allowedAddressPairs: [{ cidr: '10.0.0.0/24', macAddress: 'fa:16:3e:00:00:01' }] }],
        securityGroups: [{ id: 'sg-1' }],
        publicIPAllocation: { enabled: true },
        sshCertificateAuthorityID: 'ca-1',
        userData: Buffer.from('#!/bin/sh\n').toString('base64'),
        tags: [{ name: 'a.example.com/b', value: 'c' }],
      }),
      'ssh-ed25519 AAAA ca',
    );
    assert.deepEqual(
      { ...input, userData: input?.userData && Buffer.from(input.userData).toString() },
      {
        organizationID: ORGANIZATION,
        projectID: PROJECT,
        regionID: REGION,
        id: 's-1',
        name: 'web',
        flavorID: 'f',
        imageID: 'img',
        networkID: 'net-1',
        allowedAddressPairs: [{ cidr: '10.0.0.0/24', macAddress: 'fa:16:3e:00:00:01' }],
        securityGroupIDs: ['sg-1'],
        publicIP: true,
        sshInjection: 'ca',
        userData: '#!/bin/sh\n',
        tags: [{ name: 'a.example.com/b', value: 'c' }],
        sshCertificateAuthorityPublicKey: 'ssh-ed25519 AAAA ca',
      },
    );
    assert.equal(serverInputOf(server())?.sshInjection, 'identityKeypair');
    assert.equal(serverInputOf(server(undefined, { sshInjection: 'none' }))?.sshInjection, 'none');
  });

  it('without its display name label there is no Nova name to find it by', () => {
    assert.equal(serverInputOf(server(undefined, {}, { [labels.name]: '' })), undefined);
  });
});

describe('the Server controller’s wakes', () => {
  const running: ServerStatus = {
    observed: { generation: 1, image: 'img', errored: false },
    conditions: [condition('Active', 'True', 'Running'), condition('Healthy', 'True', 'Healthy')],
  };

  it('observedChanged: the image, the errored marker or the generation move; the monitor’s other fields do not', () => {
    assert.equal(observedChanged(update(running, { ...running, observed: { ...running.observed, image: 'b' } })), true);
    assert.equal(
      observedChanged(update(running, { ...running, observed: { ...running.observed, errored: true } })),
      true,
    );
    const rebuilding: ServerStatus = {
      ...running,
      conditions: [condition('Active', 'False', 'Rebuilding'), condition('Healthy', 'Unknown', 'Unknown')],
    };
    assert.equal(observedChanged(update(running, rebuilding)), false, 'a foreign rebuild in flight wakes nothing');
    assert.equal(observedChanged(update(running, { ...running, macAddress: 'fa:16:3e:00:00:01' })), false);
  });

  it('createFailureEdge: a never-booted server first stamped Healthy=Errored, once', () => {
    const building: ServerStatus = { conditions: [condition('Active', 'False', 'Building')] };
    const failed: ServerStatus = {
      conditions: [condition('Active', 'False', 'Error'), condition('Healthy', 'False', 'Errored')],
    };
    assert.equal(createFailureEdge(update(building, failed)), true);
    assert.equal(createFailureEdge(update(failed, failed)), false);
    const booted = { ...failed, provisionedAt: '2026-01-01T00:00:00Z' };
    assert.equal(createFailureEdge(update({ ...building, provisionedAt: booted.provisionedAt }, booted)), false);
  });

  it('vanishedEdge: Active falls back to Pending from another reason', () => {
    const gone: ServerStatus = { ...running, conditions: [condition('Active', 'False', 'Pending')] };
    assert.equal(vanishedEdge(update(running, gone)), true);
    assert.equal(vanishedEdge(update(gone, gone)), false);
    assert.equal(vanishedEdge(update({}, gone)), false, 'a server never seen is not a vanished one');
  });
});

describe('the status the reconciler writes besides Available', () => {
  it('withAddresses records what the pass realised and drops an address it no longer has', () => {
    const before: ServerStatus = { privateIP: '10.0.0.5', publicIP: '203.0.113.9', macAddress: 'fa:16:3e:00:00:01' };
    assert.deepEqual(withAddresses(before, { privateIP: '10.0.0.5' }), {
      privateIP: '10.0.0.5',
      macAddress: 'fa:16:3e:00:00:01',
    });
  });

  it('stamped: Active Rebuilding and Healthy Unknown, what the monitor maps a rebuild to, nothing else touched', () => {
    const before: ServerStatus = {
      observed: { generation: 2, image: 'img', errored: false },
      conditions: [condition('Active', 'True', 'Running'), condition('Available', 'True', 'Provisioned')],
    };
    const after = stamped(before, new Date('2026-02-01T00:00:00Z'));
    assert.deepEqual(after.observed, before.observed);
    assert.deepEqual(
      after.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['Active', 'False', 'Rebuilding'],
        ['Available', 'True', 'Provisioned'],
        ['Healthy', 'Unknown', 'Unknown'],
      ],
    );
  });
});

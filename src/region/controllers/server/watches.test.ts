/** The Server controller's wakes, without I/O. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectEvent } from '../../../runtime/predicates.ts';
import type { ServerStatus } from '../../apis/server.ts';
import { buildFinishedEdge, createFailureEdge, observedChanged, vanishedEdge } from './watches.ts';
import { observeServer } from '../../openstack/server/observe.ts';
import { condition, serverObject } from '../testing/fakes.ts';

const update = (old: ServerStatus, next: ServerStatus): ObjectEvent => ({
  type: 'update',
  cluster: '',
  oldObject: serverObject(old),
  object: serverObject(next),
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

  it('observedChanged: a ref readable again on the image observed already holds wakes the R2 park', () => {
    const image = '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b';
    const nova = (ref: string | { id: string }) => ({
      status: 'ACTIVE',
      'OS-EXT-STS:task_state': null,
      'OS-SRV-USG:launched_at': '2026-11-30T12:00:05.000000',
      image: ref,
    });
    const ctx = { generation: 1, networkID: undefined, baremetal: false, now: new Date('2026-11-30T13:00:00Z') };
    const readable = observeServer(undefined, nova({ id: image }), ctx).status;
    const unreadable = observeServer(readable, nova(''), ctx).status;
    assert.equal(unreadable.observed?.image, image, 'the image stays sticky across an unreadable ref');
    assert.equal(observedChanged(update(readable, unreadable)), true, 'the ref going unreadable is observed');
    const again = observeServer(unreadable, nova({ id: image }), ctx).status;
    assert.equal(observedChanged(update(unreadable, again)), true, 'the ref reading again wakes the parked pass');
    assert.equal(observedChanged(update(again, observeServer(again, nova({ id: image }), ctx).status)), false);
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

  it('buildFinishedEdge: Active reaches Running while the server is not yet provisioned', () => {
    const building: ServerStatus = {
      ...running,
      conditions: [condition('Active', 'False', 'Building'), condition('Available', 'False', 'Provisioning')],
    };
    const built: ServerStatus = {
      ...running,
      conditions: [condition('Active', 'True', 'Running'), condition('Available', 'False', 'Provisioning')],
    };
    assert.equal(buildFinishedEdge(update(building, built)), true);
    assert.equal(buildFinishedEdge(update(built, built)), false, 'no edge');
    const stopped: ServerStatus = {
      ...running,
      conditions: [condition('Active', 'False', 'Stopped'), condition('Available', 'True', 'Provisioned')],
    };
    const started: ServerStatus = {
      ...running,
      conditions: [condition('Active', 'True', 'Running'), condition('Available', 'True', 'Provisioned')],
    };
    assert.equal(buildFinishedEdge(update(stopped, started)), false, 'a provisioned server started again');
  });
});

/** The Server controller's wakes, without I/O. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectEvent } from '../../../runtime/predicates.ts';
import type { ServerStatus } from '../../apis/server.ts';
import { createFailureEdge, observedChanged, vanishedEdge } from './watches.ts';
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

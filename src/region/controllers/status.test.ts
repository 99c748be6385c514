import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { availableCondition, nextStatus } from './status.ts';

const T0 = Date.UTC(2026, 0, 1);
const T1 = T0 + 60_000;
const provisioned = availableCondition({ status: 'True', reason: 'Provisioned', message: 'ok' }, 2);
const provisioning = availableCondition({ status: 'False', reason: 'Provisioning', message: 'wait' }, 2);

describe('nextStatus', () => {
  it('sets Available with observedGeneration on an empty status', () => {
    assert.deepEqual(nextStatus(undefined, provisioned, T0), {
      conditions: [
        {
          type: 'Available',
          status: 'True',
          reason: 'Provisioned',
          message: 'ok',
          observedGeneration: 2,
          lastTransitionTime: '2026-01-01T00:00:00Z',
        },
      ],
    });
  });

  it('returns undefined when nothing would change: the write is skipped', () => {
    const status = nextStatus(undefined, provisioned, T0, { openstack: { networkID: 'n', subnetID: 's' } });
    assert.equal(nextStatus(status, provisioned, T1, { openstack: { subnetID: 's', networkID: 'n' } }), undefined);
  });

  it('writes when an owned field changes, and keeps the transition time when the status did not flip', () => {
    const status = nextStatus(undefined, provisioned, T0, { openstack: { networkID: 'n' } });
    const next = nextStatus(status, provisioned, T1, { openstack: { networkID: 'm' } });
    assert.ok(next !== undefined);
    assert.deepEqual(next['openstack'], { networkID: 'm' });
    assert.equal(next.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
  });

  it('an owned field given as undefined is removed, and removing an absent one changes nothing', () => {
    const status = nextStatus(undefined, provisioned, T0, { vipAddress: '10.0.0.5', publicIP: '203.0.113.9' });
    const next = nextStatus(status, provisioned, T1, { vipAddress: '10.0.0.5', publicIP: undefined });
    assert.ok(next !== undefined);
    assert.equal('publicIP' in next, false);
    assert.equal(next['vipAddress'], '10.0.0.5');
    assert.equal(nextStatus(next, provisioned, T1, { vipAddress: '10.0.0.5', publicIP: undefined }), undefined);
  });

  it('a flip moves lastTransitionTime; other status fields survive', () => {
    const status = { ...nextStatus(undefined, provisioning, T0), openstack: { networkID: 'n' } };
    const next = nextStatus(status, provisioned, T1);
    assert.ok(next !== undefined);
    assert.equal(next.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:01:00Z');
    assert.deepEqual(next['openstack'], { networkID: 'n' });
  });

  it('a new generation alone is a change', () => {
    const status = nextStatus(undefined, provisioned, T0);
    const next = nextStatus(status, { ...provisioned, observedGeneration: 3 }, T1);
    assert.equal(next?.conditions?.[0]?.observedGeneration, 3);
  });
});

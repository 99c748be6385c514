import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PowerState } from '../../../openstack/compute.ts';
import { activeReasons, type ActiveReason } from '../../apis/shared.ts';
import {
  IRONIC_BUILD_PHASES,
  ironicBuildPhase,
  mapServerActive,
  mapServerHealth,
  shouldConsultIronic,
  type ActiveContext,
  type MonitoredServer,
} from './decide-monitor.ts';
import { activeCondition, REBUILD_ACCEPTED_STAMP } from '../../apis/server.ts';

const nova = (over: Partial<MonitoredServer> = {}): MonitoredServer => ({
  status: 'ACTIVE',
  'OS-EXT-STS:task_state': null,
  'OS-EXT-STS:power_state': PowerState.Running,
  ...over,
});
const vm: ActiveContext = { baremetal: false };
const metal = (ironic?: ActiveContext['ironic']): ActiveContext => ({ baremetal: true, ironic });

describe('mapServerActive: every row', () => {
  it('A1: ERROR is Error, whatever the power state or task', () => {
    assert.deepEqual(mapServerActive(nova({ status: 'ERROR' }), vm), { row: 'A1', reason: 'Error' });
    assert.equal(mapServerActive(nova({ status: 'ERROR', 'OS-EXT-STS:task_state': 'rebuilding' }), vm).row, 'A1');
  });

  it('A2: a rebuild in flight is Rebuilding, ours or foreign (an evacuation presents the same)', () => {
    assert.deepEqual(mapServerActive(nova({ status: 'REBUILD' }), vm), { row: 'A2', reason: 'Rebuilding' });
    assert.equal(mapServerActive(nova({ 'OS-EXT-STS:task_state': 'rebuild_spawning' }), vm).row, 'A2');
  });

  it('A3: a VM in BUILD is Building, and Ironic is never asked', () => {
    const build = nova({ status: 'BUILD', 'OS-EXT-STS:power_state': PowerState.NoState });
    assert.deepEqual(mapServerActive(build, vm), { row: 'A3', reason: 'Building' });
    assert.equal(shouldConsultIronic(build, false), false);
    assert.equal(shouldConsultIronic(build, true), true);
    assert.equal(shouldConsultIronic(nova(), true), false);
  });

  it('A4/A5/A6: a baremetal BUILD follows Ironic, and a failed lookup falls back to Building', () => {
    const build = nova({ status: 'BUILD', 'OS-EXT-STS:power_state': PowerState.NoState });
    assert.deepEqual(mapServerActive(build, metal({ kind: 'absent' })), { row: 'A4', reason: 'Queued' });
    const cleaning = metal({ kind: 'node', provisionState: 'cleaning' });
    assert.deepEqual(mapServerActive(build, cleaning), { row: 'A4', reason: 'Queued' });
    const deploying = metal({ kind: 'node', provisionState: 'wait call-back' });
    assert.deepEqual(mapServerActive(build, deploying), { row: 'A5', reason: 'Building' });
    const failed = metal({ kind: 'node', provisionState: 'deploy failed' });
    assert.deepEqual(mapServerActive(build, failed), { row: 'A5', reason: 'Building' });
    assert.deepEqual(mapServerActive(build, metal({ kind: 'failed' })), { row: 'A6', reason: 'Building' });
    assert.deepEqual(mapServerActive(build, metal()), { row: 'A6', reason: 'Building' });
  });

  it('A7: powering off is Stopping while the power state still says running', () => {
    assert.deepEqual(mapServerActive(nova({ 'OS-EXT-STS:task_state': 'powering-off' }), vm), {
      row: 'A7',
      reason: 'Stopping',
    });
  });

  it('A8/A9: the power state decides Running and Stopped', () => {
    assert.deepEqual(mapServerActive(nova(), vm), { row: 'A8', reason: 'Running' });
    const off = nova({ status: 'SHUTOFF', 'OS-EXT-STS:power_state': PowerState.Shutdown });
    assert.deepEqual(mapServerActive(off, vm), { row: 'A9', reason: 'Stopped' });
  });

  it('A10: a power state that says nothing keeps the previous reason, Pending when there is none', () => {
    for (const power of [PowerState.NoState, PowerState.Paused, PowerState.Crashed, PowerState.Suspended, undefined]) {
      const s: MonitoredServer =
        power === undefined ? { status: 'PAUSED' } : nova({ status: 'PAUSED', 'OS-EXT-STS:power_state': power });
      assert.deepEqual(mapServerActive(s, { ...vm, previous: 'Stopping' }), { row: 'A10', reason: 'Stopping' });
      assert.deepEqual(mapServerActive(s, vm), { row: 'A10', reason: 'Pending' });
    }
  });

  it('any status, task and power state maps to a known reason', () => {
    const known = Object.values(activeReasons) as string[];
    fc.assert(
      fc.property(
        fc.string(),
        fc.option(fc.string(), { nil: null }),
        fc.integer({ min: -1, max: 8 }),
        fc.boolean(),
        (status, task, power, baremetal) => {
          const m = mapServerActive(
            { status, 'OS-EXT-STS:task_state': task, 'OS-EXT-STS:power_state': power },
            { baremetal, ironic: { kind: 'node', provisionState: 'x' } },
          );
          assert.ok(known.includes(m.reason));
          if (status === 'ERROR') assert.equal(m.reason, 'Error');
        },
      ),
    );
  });
});

describe('ironicBuildPhase', () => {
  it('pre-deploy states are Queued; deploying and failed states are Building; unknown states are Queued', () => {
    for (const s of ['enroll', 'manageable', 'available', 'cleaning', 'clean wait', 'clean hold', 'verifying']) {
      assert.equal(ironicBuildPhase(s), 'Queued', s);
    }
    for (const s of ['inspecting', 'inspect wait', 'adopting']) assert.equal(ironicBuildPhase(s), 'Queued', s);
    for (const s of ['deploying', 'wait call-back', 'deploy hold', 'active', 'error']) {
      assert.equal(ironicBuildPhase(s), 'Building', s);
    }
    for (const s of ['deploy failed', 'clean failed', 'inspect failed', 'adopt failed']) {
      assert.equal(ironicBuildPhase(s), 'Building', s);
    }
    for (const s of ['servicing', 'constructor', '']) assert.equal(ironicBuildPhase(s), 'Queued', s);
    assert.equal(Object.keys(IRONIC_BUILD_PHASES).length, 19);
  });
});

describe('mapServerHealth: every row', () => {
  it('H1 ERROR, H2 rebuild, H3 ACTIVE, H4 UNKNOWN, H5 any other status', () => {
    assert.deepEqual(mapServerHealth({ status: 'ERROR' }), {
      row: 'H1',
      condition: { type: 'Healthy', status: 'False', reason: 'Errored', message: 'server is in an error state' },
    });
    assert.deepEqual(mapServerHealth({ status: 'REBUILD' }).condition, REBUILD_ACCEPTED_STAMP[1]);
    assert.equal(mapServerHealth({ status: 'ACTIVE', 'OS-EXT-STS:task_state': 'rebuilding' }).row, 'H2');
    assert.deepEqual(mapServerHealth({ status: 'ACTIVE' }), {
      row: 'H3',
      condition: { type: 'Healthy', status: 'True', reason: 'Healthy', message: 'server is healthy' },
    });
    assert.deepEqual(mapServerHealth({ status: 'UNKNOWN' }).condition, {
      type: 'Healthy',
      status: 'Unknown',
      reason: 'Unknown',
      message: 'unable to determine server status',
    });
    assert.deepEqual(mapServerHealth({ status: 'SHELVED' }), {
      row: 'H5',
      condition: { type: 'Healthy', status: 'False', reason: 'Degraded', message: 'server is in state SHELVED' },
    });
  });

  it('never echoes a status that is not a Nova token', () => {
    assert.equal(
      mapServerHealth({ status: 'password=hunter2' }).condition.message,
      'server is in an unrecognised state',
    );
  });
});

describe('activeCondition', () => {
  it('is True only while Running, with a message per reason', () => {
    const messages = new Set<string>();
    for (const reason of Object.values(activeReasons) as ActiveReason[]) {
      const c = activeCondition(reason);
      assert.equal(c.status, reason === 'Running' ? 'True' : 'False');
      assert.equal(c.reason, reason);
      messages.add(c.message);
    }
    assert.equal(messages.size, 8);
  });

  it('the monitor’s rebuild mapping and the reconciler’s accepted stamp are identical', () => {
    const active = mapServerActive({ status: 'REBUILD' }, vm);
    assert.deepEqual(activeCondition(active.reason), REBUILD_ACCEPTED_STAMP[0]);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PowerState, type ServerFault } from '../../../openstack/compute.ts';
import type { ServerStatus } from '../../apis/server.ts';
import {
  novaTimestamp,
  observeServer,
  serverFaultLog,
  serverMACAddress,
  type ObserveContext,
  type ObservedServer,
} from './observe.ts';

const NET = '0c7a1b2e-5d4f-4e3a-9b8c-7d6e5f4a3b2c';
const IMAGE = '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER = 'f0e1d2c3-b4a5-4968-8776-655443322110';
const MAC = 'fa:16:3e:00:11:22';
const NOW = new Date('2026-11-30T13:00:00.123Z');
const ctx: ObserveContext = { generation: 4, networkID: NET, baremetal: false, now: NOW };

const nova = (over: Partial<ObservedServer> = {}): ObservedServer => ({
  status: 'ACTIVE',
  'OS-EXT-STS:task_state': null,
  'OS-EXT-STS:power_state': PowerState.Running,
  'OS-SRV-USG:launched_at': '2026-11-30T12:00:05.891568',
  created: '2026-11-30T11:59:58Z',
  image: { id: IMAGE },
  addresses: { [`network-${NET}`]: [{ addr: '10.0.0.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': MAC }] },
  ...over,
});

describe('observeServer: status.observed', () => {
  it('stamps the generation, the image and the errored marker', () => {
    const { status } = observeServer(undefined, nova(), ctx);
    assert.deepEqual(status.observed, { generation: 4, image: IMAGE, errored: false });
    assert.deepEqual(observeServer(status, nova({ status: 'ERROR' }), { ...ctx, generation: 5 }).status.observed, {
      generation: 5,
      image: IMAGE,
      errored: true,
    });
  });

  it('keeps the previous image when the ref is unreadable, and follows a readable one', () => {
    const prev: ServerStatus = { observed: { generation: 3, image: IMAGE, errored: false } };
    assert.equal(observeServer(prev, nova({ image: '' }), ctx).status.observed?.image, IMAGE);
    assert.equal(observeServer(prev, nova({ image: { id: 'junk' } }), ctx).status.observed?.image, IMAGE);
    assert.equal(observeServer(prev, nova({ image: { id: OTHER } }), ctx).status.observed?.image, OTHER);
    assert.equal(observeServer(undefined, nova({ image: '' }), ctx).status.observed?.image, undefined);
  });

  it('marks errored from the status alone: a stale fault on a recovered server is not an error', () => {
    const recovered: ObservedServer & { fault: ServerFault } = {
      ...nova(),
      fault: { code: 500, message: 'old', created: '2026-11-30T11:00:00Z' },
    };
    assert.equal(observeServer(undefined, recovered, ctx).status.observed?.errored, false);
  });

  it('a vanished server: generation stamped, errored cleared, image sticky, Active Pending, not found', () => {
    const prev: ServerStatus = {
      observed: { generation: 3, image: IMAGE, errored: true },
      macAddress: MAC,
      provisionedAt: '2026-11-30T12:00:05Z',
      conditions: [{ type: 'Active', status: 'False', reason: 'Error', message: 'm', lastTransitionTime: 't' }],
    };
    const o = observeServer(prev, undefined, ctx);
    const { conditions, ...rest } = o.status;
    const { conditions: _, ...kept } = prev;
    assert.deepEqual(rest, { ...kept, observed: { generation: 4, image: IMAGE, errored: false } });
    assert.deepEqual(
      conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['Active', 'False', 'Pending', 'the server is awaiting provider scheduling'],
        ['Healthy', 'Unknown', 'Unknown', 'the server was not found at the cloud provider'],
      ],
    );
    assert.equal(o.notFound, true);
    assert.equal(o.enteredError, false);
    assert.equal(o.rows, undefined);
  });
});

describe('observeServer: the fault is fetched exactly once, on the transition into ERROR', () => {
  it('enters error only from a poll that had not seen it', () => {
    const first = observeServer(undefined, nova({ status: 'ERROR' }), ctx);
    assert.equal(first.enteredError, true);
    const second = observeServer(first.status, nova({ status: 'ERROR' }), ctx);
    assert.equal(second.enteredError, false);
    const recovered = observeServer(second.status, nova(), ctx);
    assert.equal(recovered.enteredError, false);
    assert.equal(observeServer(recovered.status, nova({ status: 'ERROR' }), ctx).enteredError, true);
  });

  it('over any sequence of polls, enteredError fires once per run of ERROR polls', () => {
    const poll = fc.constantFrom<ObservedServer | undefined>(nova(), nova({ status: 'ERROR' }), undefined);
    fc.assert(
      fc.property(fc.array(poll, { maxLength: 30 }), (polls) => {
        let status: ServerStatus | undefined;
        let wasError = false;
        for (const server of polls) {
          const o = observeServer(status, server, ctx);
          const isError = server?.status === 'ERROR';
          assert.equal(o.enteredError, isError && !wasError);
          wasError = isError;
          status = o.status;
        }
      }),
    );
  });
});

describe('observeServer: the provisionedAt latch', () => {
  it('latches launched_at once and never moves or clears it', () => {
    const booted = observeServer(undefined, nova(), ctx).status;
    assert.equal(booted.provisionedAt, '2026-11-30T12:00:05Z');
    assert.equal(booted.launchedAt, '2026-11-30T12:00:05Z');
    const later = observeServer(booted, nova({ 'OS-SRV-USG:launched_at': '2026-12-01T00:00:00.000000' }), ctx);
    assert.equal(later.status.provisionedAt, '2026-11-30T12:00:05Z');
    for (const next of [nova({ 'OS-SRV-USG:launched_at': null }), nova({ status: 'ERROR' }), undefined]) {
      assert.equal(observeServer(booted, next, ctx).status.provisionedAt, '2026-11-30T12:00:05Z');
    }
  });

  it('stays open before first boot and closes on an unparseable launched_at too', () => {
    assert.equal(
      observeServer(undefined, nova({ 'OS-SRV-USG:launched_at': null }), ctx).status.provisionedAt,
      undefined,
    );
    const odd = observeServer(undefined, nova({ 'OS-SRV-USG:launched_at': 'yesterday' }), ctx).status;
    assert.equal(odd.provisionedAt, '2026-11-30T13:00:00Z');
  });
});

describe('observeServer: macAddress', () => {
  it('is written while ACTIVE from the server network’s address entry', () => {
    assert.equal(observeServer(undefined, nova(), ctx).status.macAddress, MAC);
  });

  it('is not written outside ACTIVE, and never cleared', () => {
    assert.equal(observeServer(undefined, nova({ status: 'BUILD' }), ctx).status.macAddress, undefined);
    const prev: ServerStatus = { macAddress: MAC };
    for (const next of [nova({ status: 'SHUTOFF' }), nova({ addresses: {} }), nova({ status: 'ERROR' }), undefined]) {
      assert.equal(observeServer(prev, next, ctx).status.macAddress, MAC);
    }
    const rebound = nova({
      addresses: {
        [`network-${NET}`]: [{ addr: '10.0.0.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': 'aa:bb:cc:dd:ee:ff' }],
      },
    });
    assert.equal(observeServer(prev, rebound, ctx).status.macAddress, 'aa:bb:cc:dd:ee:ff');
  });

  it('reads only the server’s own network and only a well-formed MAC', () => {
    const elsewhere = nova({
      addresses: { 'network-other': [{ addr: '10.1.0.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': MAC }] },
    });
    assert.equal(serverMACAddress(elsewhere, NET), undefined);
    assert.equal(serverMACAddress(nova(), undefined), undefined);
    const junk = nova({
      addresses: { [`network-${NET}`]: [{ addr: '10.0.0.5', version: 4, 'OS-EXT-IPS-MAC:mac_addr': 'x' }] },
    });
    assert.equal(serverMACAddress(junk, NET), undefined);
  });
});

describe('observeServer: conditions and pass-through', () => {
  it('writes Active and Healthy, and leaves the reconciler’s fields alone', () => {
    const prev: ServerStatus = {
      privateIP: '10.0.0.5',
      providerCreateFailures: 1,
      conditions: [{ type: 'Available', status: 'True', reason: 'Provisioned', message: 'm', lastTransitionTime: 't' }],
    };
    const o = observeServer(prev, nova(), ctx);
    assert.equal(o.status.privateIP, '10.0.0.5');
    assert.equal(o.status.providerCreateFailures, 1);
    assert.deepEqual(
      o.status.conditions?.map((c) => [c.type, c.status, c.reason]),
      [
        ['Available', 'True', 'Provisioned'],
        ['Active', 'True', 'Running'],
        ['Healthy', 'True', 'Healthy'],
      ],
    );
    assert.deepEqual(o.rows, { active: 'A8', health: 'H3' });
    assert.equal(o.status.scheduledAt, '2026-11-30T11:59:58Z');
  });

  it('keeps the previous Active reason when the power state says nothing', () => {
    const first = observeServer(undefined, nova({ 'OS-EXT-STS:task_state': 'powering-off' }), ctx).status;
    const paused = observeServer(first, nova({ status: 'PAUSED', 'OS-EXT-STS:power_state': PowerState.NoState }), ctx);
    assert.equal(paused.status.conditions?.find((c) => c.type === 'Active')?.reason, 'Stopping');
  });

  it('consults the Ironic lookup it is given for a baremetal BUILD', () => {
    const build = nova({
      status: 'BUILD',
      'OS-EXT-STS:power_state': PowerState.NoState,
      'OS-SRV-USG:launched_at': null,
    });
    const queued = observeServer(undefined, build, { ...ctx, baremetal: true, ironic: { kind: 'absent' } });
    assert.equal(queued.rows?.active, 'A4');
    const fallback = observeServer(undefined, build, { ...ctx, baremetal: true, ironic: { kind: 'failed' } });
    assert.equal(fallback.rows?.active, 'A6');
  });
});

describe('novaTimestamp', () => {
  it('normalises Nova’s zone-less and zoned times to RFC 3339 UTC seconds', () => {
    assert.equal(novaTimestamp('2026-11-30T12:00:05.891568'), '2026-11-30T12:00:05Z');
    assert.equal(novaTimestamp('2026-11-30T12:00:05Z'), '2026-11-30T12:00:05Z');
    assert.equal(novaTimestamp('2026-11-30 12:00:05'), '2026-11-30T12:00:05Z');
    assert.equal(novaTimestamp('2026-11-30T14:00:05+02:00'), '2026-11-30T12:00:05Z');
    for (const bad of ['', 'now', '2026-13-45T99:00:00']) assert.equal(novaTimestamp(bad), undefined, bad);
  });
});

describe('serverFaultLog', () => {
  it('keeps code, message and created; drops the admin-only details', () => {
    const fault: ServerFault = { code: 500, message: 'No valid host', created: 'T', details: 'Traceback …' };
    assert.deepEqual(serverFaultLog(fault), { code: 500, message: 'No valid host', created: 'T' });
    assert.equal(serverFaultLog(undefined), undefined);
  });
});

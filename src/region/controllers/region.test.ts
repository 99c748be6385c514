/** The Region's Ready condition: the inventory counts when its credentials read it, a neutral False when not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findCondition } from '../../kube/conditions.ts';
import { capturedLogger } from '../../runtime/testing/logger.ts';
import { ManualClock } from '../../util/clock.ts';
import { regionType, type Region } from '../apis/region.ts';
import { validSamples } from '../apis/testing/samples.ts';
import { TransientError } from '../provider/errors.ts';
import { READY_CONDITION, readyCondition, regionStatusReconciler } from './region.ts';
import { passContext, regionStoresClosedAfter } from './testing/fakes.ts';

const openStore = regionStoresClosedAfter();

describe('Region status', () => {
  it('Ready True with the inventory counts; False, cause-neutral, when the inventory cannot be read', async () => {
    const clock = new ManualClock();
    const store = await openStore(clock);
    const sample = validSamples['Region'] as Region;
    const region = await store.create(regionType, {
      ...sample,
      metadata: { ...sample.metadata, namespace: 'default' },
    });
    const req = { cluster: '', namespace: 'default', name: region.metadata.name };
    let failing = false;
    let flavors = 2;
    const lookup = () =>
      failing
        ? Promise.reject(new TransientError('list flavors: 503 from nova-api at 10.0.0.5'))
        : Promise.resolve({
            flavors: () => Promise.resolve(Array.from({ length: flavors }, () => ({}) as never)),
            listExternalNetworks: () => Promise.resolve([{ id: 'ext', name: 'public' }]),
            volumeClasses: () => Promise.resolve([]),
          });
    const reconcile = regionStatusReconciler(store, lookup, { periodMs: 60_000 });
    const ready = async () =>
      findCondition((await store.get(regionType, 'default', req.name)).status?.conditions, READY_CONDITION);

    assert.deepEqual(await reconcile(req, passContext(clock)), { requeueAfterMs: 60_000 }, 'read again every period');
    assert.deepEqual(
      { ...(await ready()), lastTransitionTime: undefined },
      {
        type: 'Ready',
        status: 'True',
        reason: 'InventoryRead',
        message: '2 flavors, 1 external network, 0 volume classes',
        observedGeneration: region.metadata.generation,
        lastTransitionTime: undefined,
      },
    );
    const version = (await store.get(regionType, 'default', req.name)).metadata.resourceVersion;
    await reconcile(req, passContext(clock));
    assert.equal(
      (await store.get(regionType, 'default', req.name)).metadata.resourceVersion,
      version,
      'no change, no write',
    );

    flavors = 3;
    await reconcile(req, passContext(clock));
    assert.equal((await ready())?.message, '3 flavors, 1 external network, 0 volume classes');

    failing = true;
    const captured = capturedLogger();
    await reconcile(req, passContext(clock, { log: captured.log }));
    const down = (await ready()) ?? assert.fail('a Ready condition');
    assert.equal(down.status, 'False');
    assert.equal(down.reason, 'InventoryUnavailable');
    assert.doesNotMatch(down.message, /nova|10\.0\.0\.5/, 'the cause stays in the log');
    assert.match(captured.lines.join('\n'), /10\.0\.0\.5/);
  });

  it('a count of one reads singular', () => {
    assert.equal(
      readyCondition({ flavors: 1, externalNetworks: 2, volumeClasses: 1 }, 3).message,
      '1 flavor, 2 external networks, 1 volume class',
    );
  });
});

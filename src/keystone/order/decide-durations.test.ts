import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { openEmbeddedStore, type EmbeddedStore } from '../../kube/embedded/store.ts';
import { builtin } from '../../kube/resource-type.ts';
import { ManualClock } from '../../util/clock.ts';
import { keystoneUserCrd, keystoneUserType, ROTATION_INTERVAL_BOUNDS } from '../apis/keystoneuser.ts';
import { keystoneUser } from '../apis/testing/admission-corpus.ts';
import { checkDuration, decideDurations } from './decide-durations.ts';

const interval = (value: string | undefined) => ({ value, bounds: ROTATION_INTERVAL_BOUNDS });

/** Nanoseconds per unit, exact (BigInt), as Go's time package counts them. */
const S = 1_000_000_000n;
const UNIT_NS: Readonly<Record<string, bigint>> = { ns: 1n, us: 1000n, ms: 1_000_000n, s: S, m: 60n * S, h: 3600n * S };
const MIN_NS = 60n * 1_000_000_000n;
const MAX_NS = 87_600n * 3_600n * 1_000_000_000n;

/** Whether the CRD's rules admit `n` `unit`s, computed exactly: 0s, or 1m..87600h inclusive. */
const admitted = (n: bigint, unit: string) => {
  const ns = n * (UNIT_NS[unit] as bigint);
  return ns === 0n || (ns >= MIN_NS && ns <= MAX_NS);
};

/**
 * An interval as `n` and a unit, biased to the bounds. The count stays where a double holds the value in ms to well
 * under a nanosecond at that magnitude, so the oracle's exact arithmetic and the parser's agree on which side of a
 * bound a value lies.
 */
const intervals = fc.oneof(
  fc.record({ unit: fc.constantFrom('ns', 'us'), n: fc.bigInt({ min: 0n, max: 10n ** 12n }) }),
  fc.record({ unit: fc.constant('ns'), n: fc.bigInt({ min: MIN_NS - 3n, max: MIN_NS + 3n }) }),
  fc.record({ unit: fc.constant('us'), n: fc.bigInt({ min: MAX_NS / 1000n - 3n, max: MAX_NS / 1000n + 3n }) }),
  fc.record({ unit: fc.constant('ms'), n: fc.bigInt({ min: 0n, max: 2n ** 45n }) }),
  fc.record({ unit: fc.constantFrom('s', 'm', 'h'), n: fc.bigInt({ min: 0n, max: 10n ** 9n }) }),
  fc.record({ unit: fc.constant('h'), n: fc.bigInt({ min: 87_590n, max: 87_610n }) }),
  fc.record({ unit: fc.constant('s'), n: fc.bigInt({ min: 55n, max: 65n }) }),
);

describe('the duration fields, checked by the reconciler whatever the apiserver enforced', () => {
  it('rows: absent, 0s, the inclusive bounds, and what is out of them', () => {
    assert.deepEqual(checkDuration(interval(undefined)), { row: 'Valid', ms: undefined });
    assert.deepEqual(checkDuration(interval('0s')), { row: 'Valid', ms: 0 });
    assert.deepEqual(checkDuration(interval('1m')), { row: 'Valid', ms: 60_000 });
    assert.deepEqual(checkDuration(interval('87600h')), { row: 'Valid', ms: 87_600 * 3_600_000 });
    assert.deepEqual(checkDuration(interval('1ns')), {
      row: 'TooShort',
      message: 'spec.rotation.interval "1ns": rotation.interval is 0s or at least 1m',
    });
    assert.equal(checkDuration(interval('-1h')).row, 'TooShort');
    assert.equal(checkDuration(interval('59.999s')).row, 'TooShort');
    assert.deepEqual(checkDuration(interval('999999999999h')), {
      row: 'TooLong',
      message: 'spec.rotation.interval "999999999999h": rotation.interval is at most 87600h',
    });
    assert.equal(checkDuration(interval('87600h1ms')).row, 'TooLong');
    for (const text of ['', '720', 'h', '1d', '30 days', '1h-1m', 'NaN', '1e3h']) {
      assert.equal(checkDuration(interval(text)).row, 'NotADuration', text);
    }
  });

  it('decideDurations: the first field out of bounds refuses the order with a condition naming it', () => {
    assert.deepEqual(decideDurations([]), { row: 'Valid' });
    assert.deepEqual(decideDurations([interval('720h'), interval(undefined)]), { row: 'Valid' });
    const other = { value: '1x', bounds: { ...ROTATION_INTERVAL_BOUNDS, field: 'spec.other' } };
    assert.deepEqual(decideDurations([interval('720h'), other, interval('1ns')]), {
      row: 'InvalidDuration',
      field: 'spec.other',
      condition: {
        reason: 'InvalidDuration',
        message:
          'spec.other "1x" is not a duration (a Go duration such as 720h or 90m); the order is refused until the ' +
          'field is corrected: nothing is provisioned, rotated or delivered, and what was created stays',
      },
    });
  });

  it('property: an interval is valid exactly when the bounds the CRD gives admit it', () => {
    fc.assert(
      fc.property(intervals, ({ n, unit }) => {
        const check = checkDuration(interval(`${String(n)}${unit}`));
        assert.equal(check.row === 'Valid', admitted(n, unit), JSON.stringify(check));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: any text either checks or is refused naming the field; nothing throws', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.stringMatching(/^-?[0-9]{0,20}(\.[0-9]{0,3})?(ns|us|ms|s|m|h|d)?$/)),
        (t) => {
          const decision = decideDurations([interval(t)]);
          if (decision.row === 'InvalidDuration') {
            assert.equal(decision.field, 'spec.rotation.interval');
            assert.ok(decision.condition.message.startsWith(`spec.rotation.interval ${JSON.stringify(t)}`));
          }
        },
      ),
    );
  });
});

describe('the reconciler and the CRD agree on the bounds (CEL as the embedded store evaluates it)', () => {
  let store: EmbeddedStore;
  before(async () => {
    store = openEmbeddedStore(':memory:', { clock: new ManualClock(), garbageCollection: false });
    await store.create(builtin.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'p' } });
    await store.create(builtin.customResourceDefinition, keystoneUserCrd());
  });
  after(() => store.close());

  it('property: the apiserver admits an interval exactly when the reconciler finds it valid', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(intervals, async ({ n: count, unit }) => {
        const text = `${String(count)}${unit}`;
        const admittedByCel = await store
          .create(keystoneUserType, keystoneUser('p', `i${String(++n)}`, { rotation: { interval: text } }))
          .then(
            () => true,
            () => false,
          );
        assert.equal(checkDuration(interval(text)).row === 'Valid', admittedByCel, text);
      }),
      { numRuns: 300 },
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../util/clock.ts';
import {
  decidePasswordGeneration,
  declaredGeneration,
  heldRotationNote,
  nextPasswordRotation,
  scheduleRequeue,
  scheduleState,
  stampRotation,
  type GenerationInput,
  type ScheduleState,
} from './decide-schedule.ts';

const HOUR = 3_600_000;
const T0 = '2026-01-01T00:00:00Z';
const t0 = Date.parse(T0);

function input(overrides: Partial<GenerationInput>): GenerationInput {
  return {
    specGeneration: 1,
    statusGeneration: 1,
    pointedGeneration: 1,
    schedule: { row: 'Off' },
    deletingCredentials: undefined,
    ...overrides,
  };
}
const due: ScheduleState = { row: 'Due', nextMs: t0 };

describe('The password schedule, the hold and the anchor', () => {
  it('the schedule is due once the clock reaches lastPasswordRotation plus the interval', () => {
    const clock = new ManualClock(t0);
    clock.advance(24 * HOUR - 1);
    assert.deepEqual(scheduleState('24h', T0, clock.now()), { row: 'NotDue', nextMs: t0 + 24 * HOUR });
    clock.advance(1);
    assert.deepEqual(scheduleState('24h', T0, clock.now()), { row: 'Due', nextMs: t0 + 24 * HOUR });
  });

  it('interval 0s turns the schedule off; no interval is off too', () => {
    assert.deepEqual(scheduleState('0s', T0, t0 + 1000 * HOUR), { row: 'Off' });
    assert.deepEqual(scheduleState(undefined, T0, t0 + 1000 * HOUR), { row: 'Off' });
    assert.equal(nextPasswordRotation('0s', T0), undefined);
  });

  it('no time recorded: unanchored, never due, and the pass anchors it', () => {
    assert.deepEqual(scheduleState('1h', undefined, t0), { row: 'Unanchored' });
    assert.deepEqual(
      stampRotation({ repointed: false, newlyApplied: false, lastPasswordRotation: undefined, now: t0 + 1500 }),
      {
        row: 'Anchored',
        lastPasswordRotation: '2026-01-01T00:00:01Z',
      },
    );
  });

  it('the stamp: on re-pointing, again when the new generation is seen applied, else kept', () => {
    const now = t0 + 5 * HOUR;
    const at = '2026-01-01T05:00:00Z';
    assert.deepEqual(stampRotation({ repointed: true, newlyApplied: false, lastPasswordRotation: T0, now }), {
      row: 'Repointed',
      lastPasswordRotation: at,
    });
    assert.deepEqual(stampRotation({ repointed: false, newlyApplied: true, lastPasswordRotation: T0, now }), {
      row: 'Applied',
      lastPasswordRotation: at,
    });
    assert.deepEqual(stampRotation({ repointed: false, newlyApplied: false, lastPasswordRotation: T0, now }), {
      row: 'Kept',
      lastPasswordRotation: T0,
    });
  });

  it('nextPasswordRotation follows the anchor; a converged pass returns the time until it', () => {
    assert.equal(nextPasswordRotation('720h', T0), '2026-01-31T00:00:00Z');
    const steady = decidePasswordGeneration(input({ schedule: { row: 'NotDue', nextMs: t0 + HOUR } }));
    assert.deepEqual(scheduleRequeue(steady, '2026-01-01T01:00:00Z', t0 + 15 * 60_000), {
      requeueAfterMs: 45 * 60_000,
    });
    assert.deepEqual(scheduleRequeue(steady, undefined, t0), {});
  });

  it('a stored zero reads as 1', () => {
    assert.equal(declaredGeneration(0), 1);
    assert.equal(declaredGeneration(undefined), 1);
    assert.equal(declaredGeneration(4), 4);
    assert.deepEqual(
      decidePasswordGeneration(input({ specGeneration: 0, statusGeneration: 0, pointedGeneration: undefined })),
      {
        row: 'Raised',
        generation: 1,
        holders: [],
      },
    );
  });

  it('Raised: a spec generation above the current one wins and is never held', () => {
    assert.deepEqual(
      decidePasswordGeneration(input({ specGeneration: 3, schedule: due, deletingCredentials: ['ci'] })),
      { row: 'Raised', generation: 3, holders: [] },
    );
  });

  it('InFlight: a pointed generation K-ORC has not applied yet is kept', () => {
    assert.deepEqual(decidePasswordGeneration(input({ pointedGeneration: 2, schedule: due })), {
      row: 'InFlight',
      generation: 2,
      holders: [],
    });
  });

  it('CheckHolds: only a due rotation lists the credential orders', () => {
    assert.deepEqual(decidePasswordGeneration(input({ schedule: due })), { row: 'CheckHolds' });
    assert.equal(decidePasswordGeneration(input({ schedule: { row: 'NotDue', nextMs: t0 } })).row, 'Steady');
  });

  it('Held: a credential order being deleted holds the rotation; a minute\u2019s requeue and a note naming it', () => {
    const decision = decidePasswordGeneration(input({ schedule: due, deletingCredentials: ['b', 'a'] }));
    assert.deepEqual(decision, { row: 'Held', generation: 1, holders: ['a', 'b'] });
    assert.deepEqual(scheduleRequeue(decision, T0, t0), { requeueAfterMs: 60_000 });
    assert.equal(
      heldRotationNote(decision.row === 'Held' ? decision.holders : [], 'tenant-a'),
      '; the due password rotation waits for KeystoneApplicationCredential(s) ["a" "b"] in namespace "tenant-a" to be deleted',
    );
  });

  it('Scheduled: the status generation plus one', () => {
    assert.deepEqual(
      decidePasswordGeneration(
        input({ specGeneration: 1, statusGeneration: 4, pointedGeneration: 4, schedule: due, deletingCredentials: [] }),
      ),
      {
        row: 'Scheduled',
        generation: 5,
        holders: [],
      },
    );
  });

  it('Steady: a value below the current one never rolls the password back', () => {
    assert.deepEqual(
      decidePasswordGeneration(input({ specGeneration: 2, statusGeneration: 5, pointedGeneration: 5 })),
      {
        row: 'Steady',
        generation: 5,
        holders: [],
      },
    );
  });

  describe('properties', () => {
    const gen = fc.option(fc.integer({ min: 0, max: 50 }), { nil: undefined });
    const schedule: fc.Arbitrary<ScheduleState> = fc.oneof(
      fc.constant({ row: 'Off' as const }),
      fc.constant({ row: 'Unanchored' as const }),
      fc.constantFrom('NotDue' as const, 'Due' as const).map((row) => ({ row, nextMs: t0 })),
    );
    const holders = fc.option(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }), { nil: undefined });
    const inputs = fc.record({
      specGeneration: gen,
      statusGeneration: gen,
      pointedGeneration: gen,
      schedule,
      deletingCredentials: holders,
    });

    it('never rolls back: the generation is at least the applied, the pointed and the declared one', () => {
      fc.assert(
        fc.property(inputs, (i) => {
          const d = decidePasswordGeneration(i);
          if (d.row === 'CheckHolds') return;
          const floor = Math.max(
            i.statusGeneration ?? 0,
            i.pointedGeneration ?? 0,
            declaredGeneration(i.specGeneration),
          );
          assert.ok(d.generation >= floor, JSON.stringify({ i, d }));
          assert.ok(d.generation <= floor + 1);
        }),
      );
    });

    it('a raised spec generation is never held', () => {
      fc.assert(
        fc.property(inputs, (i) => {
          fc.pre(declaredGeneration(i.specGeneration) > Math.max(i.statusGeneration ?? 0, i.pointedGeneration ?? 0));
          assert.deepEqual(decidePasswordGeneration(i), {
            row: 'Raised',
            generation: declaredGeneration(i.specGeneration),
            holders: [],
          });
        }),
      );
    });

    it('interval 0s is off: nothing is scheduled, held or listed, whatever the anchor and the clock', () => {
      fc.assert(
        fc.property(
          inputs,
          fc.option(fc.date({ noInvalidDate: true }), { nil: undefined }),
          fc.integer(),
          (i, last, now) => {
            const state = scheduleState('0s', last?.toISOString(), now);
            assert.deepEqual(state, { row: 'Off' });
            const d = decidePasswordGeneration({ ...i, schedule: state });
            assert.ok(d.row === 'Raised' || d.row === 'InFlight' || d.row === 'Steady', d.row);
          },
        ),
      );
    });
  });
});

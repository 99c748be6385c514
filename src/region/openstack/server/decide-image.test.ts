import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decideServerImage, IMAGE_ROWS, imageRowOutcome, type ImageDecision, type ImageRow } from './decide-image.ts';
import { IMAGE_MISSING_MESSAGE, IMAGE_NOT_REALIZED_MESSAGE, IMAGE_UNREADABLE_MESSAGE } from './messages.ts';
import {
  openstackServerImageID,
  serverLaunched,
  serverRebuildInFlight,
  serverTaskActive,
  type NovaServerState,
} from './nova-server.ts';

const DESIRED = '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b';
const OTHER = 'f0e1d2c3-b4a5-4968-8776-655443322110';
const LAUNCHED = '2026-11-30T12:00:00.000000';

const server = (over: Partial<NovaServerState> = {}): NovaServerState => ({
  status: 'ACTIVE',
  'OS-EXT-STS:task_state': null,
  'OS-SRV-USG:launched_at': LAUNCHED,
  image: { id: DESIRED, links: [] },
  ...over,
});

const row = (desired: string | undefined, s: NovaServerState): ImageRow => decideServerImage(desired, s).row;

describe('decideServerImage: one example per row', () => {
  it('R1: no desired image parks', () => {
    assert.deepEqual(decideServerImage(undefined, server()), { row: 'R1', action: 'park' });
    assert.equal(row('', server()), 'R1');
  });

  it('R2: an absent, empty or unparseable ref parks', () => {
    for (const image of [undefined, null, '', {}, { id: '' }, { id: 'cirros' }, { id: 42 }, [DESIRED]]) {
      assert.deepEqual(
        decideServerImage(DESIRED, server({ image })),
        { row: 'R2', action: 'park' },
        JSON.stringify(image),
      );
    }
  });

  it('R3: the desired ref with a rebuild running yields, whoever started it', () => {
    for (const s of [
      server({ status: 'REBUILD', 'OS-EXT-STS:task_state': 'rebuilding' }),
      server({ status: 'REBUILD', 'OS-EXT-STS:task_state': null }),
      server({ 'OS-EXT-STS:task_state': 'rebuild_block_device_mapping' }),
      server({ 'OS-EXT-STS:task_state': 'rebuild_spawning' }),
      server({ 'OS-EXT-STS:task_state': 'rebuild_some_future_substate' }),
      server({ status: 'ERROR', 'OS-EXT-STS:task_state': 'rebuilding' }),
    ]) {
      assert.deepEqual(decideServerImage(DESIRED, s), { row: 'R3', action: 'yield' });
    }
  });

  it('R3′: a quiesced ERROR on the desired ref of a launched server parks', () => {
    assert.deepEqual(decideServerImage(DESIRED, server({ status: 'ERROR' })), { row: 'R3′', action: 'park' });
    // A non-rebuild task does not hold the park off: the spec image is still not running.
    assert.equal(row(DESIRED, server({ status: 'ERROR', 'OS-EXT-STS:task_state': 'deleting' })), 'R3′');
  });

  it('R3″: the desired ref otherwise is done, including a never-launched ERROR and a user reboot', () => {
    assert.deepEqual(decideServerImage(DESIRED, server()), { row: 'R3″', action: 'done' });
    assert.equal(row(DESIRED, server({ status: 'ERROR', 'OS-SRV-USG:launched_at': null })), 'R3″');
    assert.equal(row(DESIRED, server({ status: 'REBOOT', 'OS-EXT-STS:task_state': 'rebooting' })), 'R3″');
    assert.equal(row(DESIRED, server({ status: 'SHUTOFF' })), 'R3″');
    assert.equal(row(DESIRED.toUpperCase(), server()), 'R3″');
  });

  it('R4: a diverged ref before first boot yields, whatever the status', () => {
    const neverLaunched = { image: { id: OTHER }, 'OS-SRV-USG:launched_at': null };
    assert.deepEqual(decideServerImage(DESIRED, server(neverLaunched)), { row: 'R4', action: 'yield' });
    assert.equal(row(DESIRED, server({ ...neverLaunched, status: 'ERROR' })), 'R4');
    assert.equal(
      row(DESIRED, server({ ...neverLaunched, status: 'BUILD', 'OS-EXT-STS:task_state': 'spawning' })),
      'R4',
    );
    assert.equal(row(DESIRED, server({ ...neverLaunched, 'OS-SRV-USG:launched_at': '' })), 'R4');
  });

  it('R4′: a diverged ref with any task yields', () => {
    const diverged = { image: { id: OTHER } };
    assert.deepEqual(decideServerImage(DESIRED, server({ ...diverged, 'OS-EXT-STS:task_state': 'rebooting' })), {
      row: 'R4′',
      action: 'yield',
    });
    assert.equal(row(DESIRED, server({ ...diverged, status: 'REBUILD' })), 'R4′');
  });

  it('R4″: a diverged, launched, quiescent server submits, including a failed foreign rebuild onto another image', () => {
    assert.deepEqual(decideServerImage(DESIRED, server({ image: { id: OTHER } })), { row: 'R4″', action: 'submit' });
    assert.equal(row(DESIRED, server({ image: { id: OTHER }, status: 'ERROR' })), 'R4″');
    assert.equal(row(DESIRED, server({ image: { id: OTHER }, status: 'SHUTOFF' })), 'R4″');
  });
});

describe('decideServerImage: the policy-gated fields degrade as the spec says', () => {
  it('a hidden task_state reads at rest: a diverged server submits and Nova’s 409 is the only guard', () => {
    const { 'OS-EXT-STS:task_state': _, ...hidden } = server({ image: { id: OTHER } });
    assert.equal(row(DESIRED, hidden), 'R4″');
  });

  it('a hidden launched_at reads never-launched: image changes defer and R3′ never parks', () => {
    const { 'OS-SRV-USG:launched_at': _, ...hidden } = server();
    assert.equal(row(DESIRED, { ...hidden, image: { id: OTHER } }), 'R4');
    assert.equal(row(DESIRED, { ...hidden, status: 'ERROR' }), 'R3″');
  });
});

// Every combination: the statuses Nova sends plus one it might, task states at rest, rebuilding and otherwise busy,
// every shape of ref, and launched_at present, null, empty and hidden.
const STATUSES = [
  'ACTIVE',
  'BUILD',
  'DELETED',
  'ERROR',
  'HARD_REBOOT',
  'MIGRATING',
  'PASSWORD',
  'PAUSED',
  'REBOOT',
  'REBUILD',
  'RESCUE',
  'RESIZE',
  'REVERT_RESIZE',
  'SHELVED',
  'SHELVED_OFFLOADED',
  'SHUTOFF',
  'SOFT_DELETED',
  'SUSPENDED',
  'UNKNOWN',
  'VERIFY_RESIZE',
  'SOME_FUTURE_STATUS',
];
const TASKS = [
  undefined,
  null,
  '',
  'rebuilding',
  'rebuild_block_device_mapping',
  'rebuild_spawning',
  'rebuild_future',
  'rebooting',
  'powering-off',
  'spawning',
  'deleting',
];
const REFS: unknown[] = [undefined, null, '', { id: '' }, { id: 'garbage' }, { id: DESIRED }, { id: OTHER }];
const LAUNCH = [undefined, null, '', LAUNCHED];
const DESIREDS = [undefined, DESIRED, DESIRED.toUpperCase()];

function build(status: string, task: unknown, image: unknown, launched: unknown): NovaServerState {
  const s: Record<string, unknown> = { status, image };
  if (task !== undefined) s['OS-EXT-STS:task_state'] = task;
  if (launched !== undefined) s['OS-SRV-USG:launched_at'] = launched;
  return s as unknown as NovaServerState;
}

/** The table's invariants, each of which a wrong row order or a wrong predicate breaks. */
function assertInvariants(desired: string | undefined, s: NovaServerState, d: ImageDecision): void {
  const ref = openstackServerImageID(s);
  const converged = desired !== undefined && ref !== undefined && desired.toLowerCase() === ref;
  const context = JSON.stringify({ desired, s, d });
  assert.equal(d.action, IMAGE_ROWS[d.row].action, context);
  if (desired === undefined) assert.equal(d.row, 'R1', context);
  else if (ref === undefined) assert.equal(d.row, 'R2', context);
  // No destructive row on an undiverged ref, and only on a launched, quiescent, readable server.
  if (d.action === 'submit') {
    assert.ok(desired !== undefined && ref !== undefined && !converged, context);
    assert.ok(serverLaunched(s) && !serverTaskActive(s), context);
  }
  if (converged) assert.notEqual(d.action, 'submit', context);
  // A rebuild in flight never reads done (a disk being rewritten is not settled) and never submits.
  if (serverRebuildInFlight(s)) assert.ok(d.action !== 'done' && d.action !== 'submit', context);
  // Never-launched never parks R3′ (a failed create belongs to create-retry) and never submits.
  if (!serverLaunched(s)) assert.ok(d.row !== 'R3′' && d.action !== 'submit', context);
  // Parks only where the table parks; R3′ exactly when its condition holds.
  if (d.action === 'park') assert.ok(['R1', 'R2', 'R3′'].includes(d.row), context);
  const r3prime = converged && !serverRebuildInFlight(s) && s.status === 'ERROR' && serverLaunched(s);
  assert.equal(d.row === 'R3′', r3prime, context);
  // Done means the spec image is what Nova reports and nothing is rewriting it, and that is all it takes.
  if (d.action === 'done') assert.ok(converged && !serverRebuildInFlight(s), context);
  if (converged && !serverRebuildInFlight(s) && !r3prime) assert.equal(d.row, 'R3″', context);
  // The destructive row exactly: diverged, launched, and no task holding the server.
  const diverged = desired !== undefined && ref !== undefined && !converged;
  assert.equal(d.action === 'submit', diverged && serverLaunched(s) && !serverTaskActive(s), context);
  // Converged rows are R3*, diverged rows R4*.
  if (desired !== undefined && ref !== undefined) assert.equal(d.row.startsWith('R3'), converged, context);
}

describe('decideServerImage: exhaustively', () => {
  it('every combination of desired, status, task state, ref and launched_at keeps the invariants', () => {
    const seen = new Set<ImageRow>();
    let cases = 0;
    for (const desired of DESIREDS)
      for (const status of STATUSES)
        for (const task of TASKS)
          for (const image of REFS)
            for (const launched of LAUNCH) {
              const s = build(status, task, image, launched);
              const d = decideServerImage(desired, s);
              assertInvariants(desired, s, d);
              seen.add(d.row);
              cases++;
            }
    assert.equal(cases, 3 * 21 * 11 * 7 * 4);
    assert.deepEqual([...seen].sort(), Object.keys(IMAGE_ROWS).sort());
  });

  it('arbitrary strings for status, task state and ref keep the invariants', () => {
    const text = fc.oneof(fc.string(), fc.constantFrom(...STATUSES, ...TASKS.filter((t) => typeof t === 'string')));
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(DESIRED, OTHER), { nil: undefined }),
        text,
        fc.option(text, { nil: undefined }),
        fc.oneof(fc.constantFrom(...REFS), fc.record({ id: fc.oneof(fc.string(), fc.uuid()) })),
        fc.constantFrom(...LAUNCH),
        (desired, status, task, image, launched) => {
          const s = build(status, task, image, launched);
          assertInvariants(desired, s, decideServerImage(desired, s));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('imageRowOutcome', () => {
  it('parks with the fixed messages, yields with the row, and is done on R3″', () => {
    assert.deepEqual(imageRowOutcome('R1'), { kind: 'park', reason: 'Errored', message: IMAGE_MISSING_MESSAGE });
    assert.deepEqual(imageRowOutcome('R2'), { kind: 'park', reason: 'Errored', message: IMAGE_UNREADABLE_MESSAGE });
    assert.deepEqual(imageRowOutcome('R3′'), { kind: 'park', reason: 'Errored', message: IMAGE_NOT_REALIZED_MESSAGE });
    assert.deepEqual(imageRowOutcome('R3″'), { kind: 'done', value: undefined });
    assert.deepEqual(imageRowOutcome('R3'), { kind: 'yield', reason: 'R3', rebuilding: true });
    for (const r of ['R4', 'R4′'] as const) assert.deepEqual(imageRowOutcome(r), { kind: 'yield', reason: r });
    assert.throws(() => imageRowOutcome('R4″'), /rebuild response/);
  });

  it('the R3′ message names no cause and advertises the spec edit', () => {
    assert.doesNotMatch(IMAGE_NOT_REALIZED_MESSAGE, /rebuil|evacuat|nova|fault/i);
    assert.match(IMAGE_NOT_REALIZED_MESSAGE, /change the image in the server's spec/);
  });

  it('only R3 re-asserts the accepted stamp: its yield is the one that is rebuilding', () => {
    const rebuilding = (row: ImageRow) => {
      const outcome = imageRowOutcome(row);
      return outcome.kind === 'yield' && outcome.rebuilding === true;
    };
    assert.deepEqual(
      (Object.keys(IMAGE_ROWS) as ImageRow[]).filter((r) => r !== 'R4″' && rebuilding(r)),
      ['R3'],
    );
  });
});

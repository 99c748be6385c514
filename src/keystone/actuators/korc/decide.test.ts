import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KORC_WAITING_FOR_EXTERNAL, korcReasons } from '../../apis/korc.ts';
import {
  decide,
  decideFromObject,
  MESSAGE_AMBIGUOUS_IMPORT,
  type Facts,
  type Lookup,
  type ObjectFacts,
  type PasswordFacts,
  type Row,
} from './decide.ts';

const base: Facts = {
  deleting: false,
  hasFinalizer: true,
  policy: 'managed',
  onDelete: 'delete',
  terminalAtGeneration: false,
  upToDateAtGeneration: false,
  dependencyWait: undefined,
  lookup: { by: 'name', ids: [] },
  password: { ref: 'pw-1', applied: undefined, secret: 'ok' },
};
const f = (over: Partial<Facts>): Facts => ({ ...base, ...over });

describe('decide: named rows', () => {
  const rows: [string, Facts, Row, Record<string, unknown>][] = [
    ['deleted and released', f({ deleting: true, hasFinalizer: false }), 'D0-gone', { kind: 'none' }],
    [
      'deleting a managed user deletes it',
      f({ deleting: true, lookup: { by: 'statusId', ids: ['u1'] } }),
      'D1-delete',
      { kind: 'delete', id: 'u1' },
    ],
    [
      'deleting one found only by name (a crash before status.id) still deletes it',
      f({ deleting: true, lookup: { by: 'name', ids: ['u1'] } }),
      'D1-delete',
      { kind: 'delete', id: 'u1' },
    ],
    [
      'deleting once gone releases',
      f({ deleting: true, lookup: { by: 'statusId', ids: [] } }),
      'D2-release',
      { kind: 'removeFinalizer' },
    ],
    [
      'deleting an import leaves it',
      f({ deleting: true, policy: 'unmanaged', lookup: { by: 'statusId', ids: ['u1'] } }),
      'D2-release',
      { kind: 'removeFinalizer' },
    ],
    [
      'onDelete detach leaves it',
      f({ deleting: true, onDelete: 'detach', lookup: { by: 'statusId', ids: ['u1'] } }),
      'D2-release',
      { kind: 'removeFinalizer' },
    ],
    [
      'a terminal error at this generation is latched',
      f({ terminalAtGeneration: true }),
      'T0-terminal-latched',
      {
        kind: 'none',
      },
    ],
    [
      'up to date at this generation with no resync due (K-ORC ShouldReconcile): left alone',
      f({ upToDateAtGeneration: true, lookup: { by: 'statusId', ids: [] } }),
      'T1-up-to-date',
      { kind: 'none' },
    ],
    ['the finalizer first', f({ hasFinalizer: false }), 'F0-add-finalizer', { kind: 'addFinalizer' }],
    [
      'a domain not ready',
      f({ dependencyWait: 'Waiting for Domain/d to be ready', lookup: { by: 'none' } }),
      'W0-dependency',
      { kind: 'wait', message: 'Waiting for Domain/d to be ready', poll: false },
    ],
    [
      'a managed resource that vanished is forgotten, then recreated',
      f({ lookup: { by: 'statusId', ids: [] } }),
      'S1-vanished-recreate',
      { kind: 'forget' },
    ],
    [
      'an import that vanished is unrecoverable',
      f({ policy: 'unmanaged', lookup: { by: 'statusId', ids: [] } }),
      'S2-vanished-unmanaged',
      { kind: 'terminal', reason: korcReasons.unrecoverableError },
    ],
    [
      'an import id that does not exist is unrecoverable',
      f({ policy: 'unmanaged', lookup: { by: 'importId', ids: [] } }),
      'I0-id-missing',
      { kind: 'terminal', reason: korcReasons.unrecoverableError },
    ],
    [
      'an import filter with no match waits and polls',
      f({ policy: 'unmanaged', lookup: { by: 'filter', ids: [] } }),
      'I1-waiting-external',
      { kind: 'wait', message: KORC_WAITING_FOR_EXTERNAL, poll: true },
    ],
    [
      'an import filter with two matches is invalid',
      f({ policy: 'unmanaged', lookup: { by: 'filter', ids: ['a', 'b'] } }),
      'I2-ambiguous',
      { kind: 'terminal', reason: korcReasons.invalidConfiguration, message: MESSAGE_AMBIGUOUS_IMPORT },
    ],
    [
      'an import filter with one match adopts',
      f({ policy: 'unmanaged', lookup: { by: 'filter', ids: ['a'] } }),
      'I3-adopt',
      { kind: 'adopt', id: 'a' },
    ],
    [
      'an import id that exists adopts',
      f({ policy: 'unmanaged', lookup: { by: 'importId', ids: ['a'] } }),
      'I3-adopt',
      { kind: 'adopt', id: 'a' },
    ],
    [
      'a managed user found by name is re-found, never duplicated',
      f({ lookup: { by: 'name', ids: ['u1'] } }),
      'M0-adopt-by-name',
      { kind: 'adopt', id: 'u1' },
    ],
    [
      'no password Secret yet',
      f({ password: { ref: 'pw-1', applied: undefined, secret: 'absent' } }),
      'M1-password-secret',
      { kind: 'wait', message: 'Waiting for Secret/pw-1 to be created' },
    ],
    [
      'a password Secret without the key',
      f({ password: { ref: 'pw-1', applied: undefined, secret: 'noKey' } }),
      'M1-password-secret',
      { kind: 'wait', message: 'Password secret does not contain "password" key' },
    ],
    ['create', f({}), 'M2-create', { kind: 'create' }],
    [
      'create without a password',
      f({ password: { ref: undefined, applied: undefined, secret: 'ok' } }),
      'M2-create',
      {
        kind: 'create',
      },
    ],
    [
      'first pass after create records the ref without a PATCH',
      f({ lookup: { by: 'statusId', ids: ['u1'] } }),
      'P0-record-ref',
      { kind: 'recordPasswordRef', ref: 'pw-1' },
    ],
    [
      'a moved ref whose Secret is missing waits',
      f({ lookup: { by: 'statusId', ids: ['u1'] }, password: { ref: 'pw-2', applied: 'pw-1', secret: 'absent' } }),
      'P1-password-secret',
      { kind: 'wait' },
    ],
    [
      'a moved ref sets the password',
      f({ lookup: { by: 'statusId', ids: ['u1'] }, password: { ref: 'pw-2', applied: 'pw-1', secret: 'ok' } }),
      'P2-set-password',
      { kind: 'setPassword', id: 'u1', ref: 'pw-2' },
    ],
    [
      'an import keeps its password even when the ref moved',
      f({
        policy: 'unmanaged',
        lookup: { by: 'statusId', ids: ['u1'] },
        password: { ref: 'pw-2', applied: 'pw-1', secret: 'ok' },
      }),
      'A0-available',
      { kind: 'available', id: 'u1' },
    ],
    [
      'the same ref never re-applies',
      f({ lookup: { by: 'statusId', ids: ['u1'] }, password: { ref: 'pw-1', applied: 'pw-1', secret: 'ok' } }),
      'A0-available',
      { kind: 'available', id: 'u1' },
    ],
    [
      'a domain (no password) is available',
      f({ lookup: { by: 'statusId', ids: ['d1'] }, password: undefined }),
      'A0-available',
      { kind: 'available', id: 'd1' },
    ],
  ];
  for (const [name, facts, row, action] of rows) {
    it(`${row}: ${name}`, () => {
      const decision = decide(facts);
      assert.equal(decision.row, row);
      for (const [k, v] of Object.entries(action)) assert.deepEqual((decision.action as Record<string, unknown>)[k], v);
    });
  }
});

const lookupArb: fc.Arbitrary<Lookup> = fc.oneof(
  fc.constant<Lookup>({ by: 'none' }),
  // Plain prototypes: fast-check may otherwise hand out null-prototype records, which deepEqual tells apart.
  fc.record(
    {
      by: fc.constantFrom('statusId' as const, 'importId' as const, 'filter' as const, 'name' as const),
      ids: fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }),
    },
    { noNullPrototype: true },
  ),
);
const refArb = fc.option(fc.constantFrom('pw-1', 'pw-2', ''), { nil: undefined });
const passwordArb: fc.Arbitrary<PasswordFacts | undefined> = fc.option(
  fc.record({
    ref: refArb,
    applied: refArb,
    secret: fc.constantFrom('ok' as const, 'absent' as const, 'noKey' as const),
  }),
  { nil: undefined },
);
const factsArb: fc.Arbitrary<Facts> = fc
  .record({
    deleting: fc.boolean(),
    hasFinalizer: fc.boolean(),
    policy: fc.constantFrom('managed' as const, 'unmanaged' as const),
    onDelete: fc.constantFrom('delete' as const, 'detach' as const),
    terminalAtGeneration: fc.boolean(),
    upToDateAtGeneration: fc.boolean(),
    dependencyWait: fc.option(fc.constant('Waiting for Domain/d to be ready'), { nil: undefined }),
    lookup: lookupArb,
    password: passwordArb,
  })
  .filter(reachable);

/** The gatherers look a managed object up by name and an import by its id or filter, never the other way round. */
function reachable(facts: Facts): boolean {
  if (facts.lookup.by === 'name') return facts.policy === 'managed';
  if (facts.lookup.by === 'importId' || facts.lookup.by === 'filter') return facts.policy === 'unmanaged';
  return true;
}

describe('decide: properties', () => {
  it('never touches Keystone for an import, and deletes only what a managed object owns', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const { action } = decide(facts);
        if (facts.policy === 'unmanaged') {
          assert.ok(!['create', 'delete', 'setPassword'].includes(action.kind));
        }
        if (action.kind === 'delete') assert.ok(facts.deleting && facts.onDelete === 'delete');
        if (facts.deleting) assert.ok(['none', 'delete', 'removeFinalizer'].includes(action.kind));
      }),
    );
  });
  it('creates only when nothing by the name exists, and sets a password only when the ref moved off a recorded one', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const { action } = decide(facts);
        if (action.kind === 'create') assert.deepEqual(facts.lookup, { by: 'name', ids: [] });
        if (action.kind === 'setPassword') {
          assert.ok(facts.password?.ref !== undefined && facts.password.applied);
          assert.notEqual(facts.password.ref, facts.password.applied);
          assert.equal(facts.password.secret, 'ok');
        }
      }),
    );
  });
  it('acts only past the finalizer', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const { action } = decide(facts);
        if (!facts.hasFinalizer && !['none', 'addFinalizer'].includes(action.kind)) assert.fail(action.kind);
      }),
    );
  });
  it('the rows the object alone decides are the rows decide takes, whatever Keystone would answer', () => {
    fc.assert(
      fc.property(factsArb, (facts) => {
        const early = decideFromObject(facts);
        const full = decide(facts);
        if (early !== undefined) assert.deepEqual(early, full);
        else
          assert.ok(
            !['D0-gone', 'T0-terminal-latched', 'T1-up-to-date', 'F0-add-finalizer'].includes(full.row),
            full.row,
          );
      }),
    );
  });
  it('needs no lookup for a User without its finalizer, a latched or up-to-date one, one gone, or a deleted one it does not own', () => {
    const object: ObjectFacts = {
      deleting: false,
      hasFinalizer: true,
      terminalAtGeneration: false,
      upToDateAtGeneration: false,
      policy: 'managed',
      onDelete: 'delete',
    };
    assert.equal(decideFromObject({ ...object, hasFinalizer: false })?.row, 'F0-add-finalizer');
    assert.equal(decideFromObject({ ...object, terminalAtGeneration: true })?.row, 'T0-terminal-latched');
    assert.equal(decideFromObject({ ...object, upToDateAtGeneration: true })?.row, 'T1-up-to-date');
    // ShouldReconcile comes before the finalizer, and a deletion before both, as in K-ORC's reconcile.
    assert.equal(
      decideFromObject({ ...object, upToDateAtGeneration: true, hasFinalizer: false })?.row,
      'T1-up-to-date',
    );
    assert.equal(decideFromObject({ ...object, upToDateAtGeneration: true, deleting: true }), undefined);
    assert.equal(decideFromObject({ ...object, deleting: true, hasFinalizer: false })?.row, 'D0-gone');
    assert.equal(decideFromObject({ ...object, deleting: true }), undefined);
    assert.equal(decideFromObject({ ...object, deleting: true, policy: 'unmanaged' })?.row, 'D2-release');
    assert.equal(decideFromObject({ ...object, deleting: true, onDelete: 'detach' })?.row, 'D2-release');
    assert.equal(decideFromObject(object), undefined);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { KORC_WAITING_FOR_EXTERNAL } from '../apis/korc.ts';
import { classifyKorcFailure } from './external-mode.ts';
import {
  decideProbe,
  decideSecretStore,
  decideUserState,
  latchedTransportError,
  UNLATCH_BACKOFF_MS,
  unlatchDueAt,
  unlatchJitterMs,
} from './decide-provision.ts';
import { cond, korcAvailable, korcTerminal, korcWaiting } from './testing/fixture.ts';

const probeOf = (domainName: string) => ({ userName: 'svc', domainName, external: false });
const object = (generation: number, conditions = korcAvailable(generation), applied = 'p-v1') => ({
  metadata: { name: 'u', generation, uid: 'uid-1' },
  status: { id: 'id', conditions, resource: { appliedPasswordRef: applied } },
});

const state = (user: ReturnType<typeof object>, extra: { external?: boolean; now?: number; last?: string } = {}) =>
  decideUserState({
    user,
    passwordRef: 'p-v1',
    generation: 1,
    external: extra.external ?? false,
    now: extra.now ?? 0,
    lastUnlatched: extra.last,
  });

describe('User provisioning: the decisions', () => {
  it('step 2: a store that is not Ready (or absent) is SecretStoreNotReady, 10 s', () => {
    const store = { kind: 'SecretStore', name: 'openbao-tenant-store', namespace: 'default' };
    assert.equal(decideSecretStore(store, [cond('Ready', 'True')]), undefined);
    for (const conditions of [undefined, [], [cond('Ready', 'False')]]) {
      const end = decideSecretStore(store, conditions);
      assert.equal(end?.condition.reason, 'SecretStoreNotReady');
      assert.deepEqual(end.result, { requeueAfterMs: 10_000 });
      assert.equal(
        end.condition.message,
        'SecretStore "openbao-tenant-store" in namespace "default" is not Ready; the password could not be backed up',
      );
    }
    const cluster = decideSecretStore({ ...store, kind: 'ClusterSecretStore' }, undefined);
    assert.doesNotMatch(cluster?.condition.message ?? '', /namespace/);
  });

  it('step 3: the probe reads as a collision, as absent, or as still probing', () => {
    assert.equal(decideProbe(object(2, korcAvailable(2)), probeOf('Default')).row, 'P3-ProbeCollision');
    const collision = decideProbe(object(2, korcAvailable(2)), probeOf('Default'));
    assert.equal('condition' in collision && collision.condition.reason, 'ServiceAccountCollision');
    assert.match(
      'condition' in collision ? collision.condition.message : '',
      /never takes over a user it did not create/,
    );
    // Available at an older generation is not an answer yet.
    assert.equal(decideProbe(object(2, korcAvailable(1)), probeOf('Default')).row, 'P3-Probing');
    assert.equal(
      decideProbe(object(1, korcWaiting(1, KORC_WAITING_FOR_EXTERNAL)), probeOf('Default')).row,
      'P3-ProbeAbsent',
    );
    assert.equal(
      decideProbe(object(1, korcWaiting(1, 'Waiting for Domain/cp-domain-default')), probeOf('D')).row,
      'P3-Probing',
    );
    const probing = decideProbe(undefined, probeOf('Default'));
    assert.equal('condition' in probing && probing.condition.reason, 'ProbingForCollision');
  });

  it('step 3 against an External Keystone: a failing probe reads as the failure class, never as probing', () => {
    const failing = (message: string) =>
      object(1, [
        { ...cond('Progressing', 'True', 'TransientError', message), observedGeneration: 1 },
        { ...cond('Available', 'Unknown', 'TransientError', message), observedGeneration: 1 },
      ]);
    const auth = failing('providerClient authentication err: POST identity/auth/tokens: HTTP 401: Unauthorized');
    const external = decideProbe(auth, { ...probeOf('Default'), external: true });
    assert.equal(external.row, 'P3-ExternalFailure');
    assert.equal('condition' in external && external.condition.reason, 'AuthenticationFailed');
    assert.match(
      'condition' in external ? external.condition.message : '',
      /^the external Keystone refuses the admin credential; K-ORC reports: providerClient authentication err/,
    );
    const unreachable = decideProbe(failing('dial tcp 10.0.0.1:5000: connection refused'), {
      ...probeOf('Default'),
      external: true,
    });
    assert.equal('condition' in unreachable && unreachable.condition.reason, 'EndpointUnreachable');
    // A managed Keystone is the operator's to fix: the probe keeps probing.
    assert.equal(decideProbe(auth, probeOf('Default')).row, 'P3-Probing');
    // An unclassified wait (a Domain not ready yet) is still probing, External or not.
    const domainWait = object(1, korcWaiting(1, 'Waiting for Domain/demo-domain-default to be ready'));
    assert.equal(decideProbe(domainWait, { ...probeOf('Default'), external: true }).row, 'P3-Probing');
  });

  it('step 6: provisioned only when Available at the generation with the password applied', () => {
    assert.equal(state(object(1)).row, 'P6-Provisioned');
    const notApplied = state(object(1, korcAvailable(1), 'p-v0'));
    assert.equal(notApplied.row, 'P6-WaitPassword');
    assert.equal(
      'condition' in notApplied && notApplied.condition.message,
      'awaiting K-ORC to apply password generation 1 to the user',
    );
    const stale = state(object(2, korcAvailable(1)));
    assert.equal(stale.row, 'P6-WaitAvailable');
    assert.equal('condition' in stale && stale.condition.reason, 'WaitingForServiceAccounts');
    assert.equal('condition' in stale && stale.condition.message, 'the user is registered but not yet Available');
  });

  it('step 6: a terminal K-ORC error is ServiceAccountsFailed; one at an older generation is not', () => {
    for (const reason of ['InvalidConfiguration', 'UnrecoverableError']) {
      const end = state(object(1, korcTerminal(1, reason, 'bad domain')));
      assert.equal(end.row, 'P6-Terminal');
      assert.equal('condition' in end && end.condition.reason, 'ServiceAccountsFailed');
      assert.equal(
        'condition' in end && end.condition.message,
        'K-ORC reported a terminal error on the user: bad domain',
      );
    }
    assert.equal(state(object(2, korcTerminal(1, 'InvalidConfiguration', 'x'))).row, 'P6-WaitAvailable');
  });

  it('step 6: a latched transport error is cleared, at most once per backoff plus a uid-derived jitter', () => {
    const latched = object(
      1,
      korcTerminal(
        1,
        'InvalidConfiguration',
        'invalid configuration creating resource: dial tcp 10.0.0.1:5000: connection refused',
      ),
    );
    assert.ok(latchedTransportError(latched));
    assert.equal(state(latched).row, 'P6-Unlatch');
    const last = '2026-06-01T00:00:00Z';
    const due = unlatchDueAt(latched, last);
    assert.equal(due, Date.parse(last) + UNLATCH_BACKOFF_MS + unlatchJitterMs('uid-1'));
    const paced = state(latched, { now: due - 1, last });
    assert.equal(paced.row, 'P6-UnlatchPaced');
    assert.deepEqual('result' in paced && paced.result, { requeueAfterMs: 1 });
    assert.equal(state(latched, { now: due, last }).row, 'P6-Unlatch');
    assert.ok(!latchedTransportError(object(1, korcTerminal(1, 'InvalidConfiguration', 'domain not found'))));
  });

  it('step 6: against an External ControlPlane a wait reads as the classified K-ORC failure', () => {
    const cases = [
      ['No suitable endpoint could be found in the service catalog', 'CatalogEndpointMismatch'],
      ['403: identity:create_application_credential is not allowed', 'CredentialDrift'],
      ['tls: failed to verify certificate: x509: unknown authority', 'TLSVerificationFailed'],
      ['Expected HTTP response code [200] but got 401 Unauthorized', 'AuthenticationFailed'],
      ['dial tcp: lookup keystone: no such host', 'EndpointUnreachable'],
      ['read tcp: i/o timeout', 'EndpointUnreachable'],
    ] as const;
    for (const [message, reason] of cases) {
      assert.equal(classifyKorcFailure(message), reason);
      const waiting = object(1, [
        { ...cond('Available', 'Unknown', 'TransientError', message), observedGeneration: 1 },
        { ...cond('Progressing', 'True', 'TransientError', message), observedGeneration: 1 },
      ]);
      const end = state(waiting, { external: true });
      assert.equal(end.row, 'P6-ExternalFailure');
      assert.equal('condition' in end && end.condition.reason, reason);
      assert.equal(state(waiting).row, 'P6-WaitAvailable', 'a managed Keystone keeps the wait');
    }
    assert.equal(classifyKorcFailure('still creating'), undefined);
    assert.equal(state(object(1, korcWaiting(1, 'still creating')), { external: true }).row, 'P6-WaitAvailable');
  });

  it('step 6 over every K-ORC report: provisioned only with the password applied at the generation', () => {
    const condition = (type: string) =>
      fc.record({
        type: fc.constant(type),
        status: fc.constantFrom('True' as const, 'False' as const, 'Unknown' as const),
        reason: fc.constantFrom(
          'Success',
          'Progressing',
          'TransientError',
          'InvalidConfiguration',
          'UnrecoverableError',
        ),
        message: fc.constantFrom('', 'dial tcp: connection refused', '401 Unauthorized', 'x509', 'busy'),
        lastTransitionTime: fc.constant('2026-01-01T00:00:00Z'),
        observedGeneration: fc.integer({ min: 1, max: 3 }),
      });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        condition('Available'),
        condition('Progressing'),
        fc.constantFrom('p-v1', 'p-v2', undefined),
        fc.boolean(),
        (generation, available, progressing, applied, external) => {
          const user = {
            metadata: { name: 'u', generation, uid: 'uid' },
            status: {
              conditions: [available, progressing],
              resource: applied === undefined ? {} : { appliedPasswordRef: applied },
            },
          };
          const decision = decideUserState({
            user,
            passwordRef: 'p-v1',
            generation: 1,
            external,
            now: 0,
            lastUnlatched: undefined,
          });
          if (decision.row === 'P6-Provisioned') {
            assert.equal(applied, 'p-v1');
            assert.equal(available.status, 'True');
            assert.equal(available.observedGeneration, generation);
          } else if (decision.row !== 'P6-Unlatch') {
            assert.equal(decision.condition.status, 'False');
            assert.ok((decision.result.requeueAfterMs ?? 0) > 0, 'every wait comes back');
          }
        },
      ),
    );
  });
});

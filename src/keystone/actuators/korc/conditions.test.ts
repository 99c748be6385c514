import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpError, TransportError } from '../../../openstack/errors.ts';
import { korcReasons } from '../../apis/korc.ts';
import { isRetryable, korcConditionsFor, terminalAtGeneration, writeFailure } from './conditions.ts';

const http = (status: number) =>
  httpError({ serviceType: 'identity', method: 'POST', urlTemplate: '/users', status, requestID: undefined, body: '' });

describe('K-ORC conditions', () => {
  it('done: Progressing False/Success, Available True/Success', () => {
    const [p, a] = korcConditionsFor({ kind: 'available' }, 3);
    assert.deepEqual(
      [p.status, p.reason, p.message, p.observedGeneration],
      ['False', 'Success', 'OpenStack resource is up to date', 3],
    );
    assert.deepEqual([a.status, a.reason, a.message], ['True', 'Success', 'OpenStack resource is available']);
  });
  it('waiting: Progressing True, Available copies reason and message', () => {
    const [p, a] = korcConditionsFor({ kind: 'wait', message: 'm' }, 1);
    assert.deepEqual(
      [p.status, p.reason, a.status, a.reason, a.message],
      ['True', 'Progressing', 'False', 'Progressing', 'm'],
    );
  });
  it('terminal and transient', () => {
    const [p] = korcConditionsFor({ kind: 'terminal', reason: korcReasons.invalidConfiguration, message: 'x' }, 1);
    assert.deepEqual([p.status, p.reason], ['False', 'InvalidConfiguration']);
    const [q, a] = korcConditionsFor({ kind: 'transient', message: 'x' }, 1);
    assert.deepEqual([q.status, q.reason, a.status], ['True', 'TransientError', 'Unknown']);
  });
  it('terminalAtGeneration reads only a terminal Progressing at the current generation', () => {
    const c = (reason: string, observedGeneration: number, status: 'True' | 'False' = 'False') => [
      { type: 'Progressing', status, reason, message: '', lastTransitionTime: '', observedGeneration },
    ];
    assert.equal(terminalAtGeneration(c('InvalidConfiguration', 2), 2), true);
    assert.equal(terminalAtGeneration(c('UnrecoverableError', 2), 2), true);
    assert.equal(terminalAtGeneration(c('InvalidConfiguration', 1), 2), false);
    assert.equal(terminalAtGeneration(c('Success', 2), 2), false);
    assert.equal(terminalAtGeneration(c('Progressing', 2, 'True'), 2), false);
    assert.equal(terminalAtGeneration(undefined, 2), false);
  });
  it('only HTTP errors other than 409 and 501 are retried; a transport error on a write latches', () => {
    assert.equal(isRetryable(http(503)), true);
    assert.equal(isRetryable(http(400)), true);
    assert.equal(isRetryable(http(409)), false);
    assert.equal(isRetryable(http(501)), false);
    const dial = new TransportError(
      { serviceType: 'identity', method: 'POST', urlTemplate: '/users' },
      new Error('connection refused'),
    );
    const end = writeFailure(dial, 'creating');
    assert.ok(end.kind === 'terminal');
    assert.ok(end.message.startsWith('invalid configuration creating resource: '));
    assert.equal(writeFailure(http(500), 'updating').kind, 'transient');
  });
});

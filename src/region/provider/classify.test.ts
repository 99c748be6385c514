import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, ConsistencyError, httpError, TransportError, type HttpFailure } from '../../openstack/errors.ts';
import { classify, REJECTED_MESSAGE, REJECTED_REASON, terminalOrThrow } from './classify.ts';
import {
  ProviderErrorCode,
  QuotaExceededError,
  RequestRefusedError,
  ResourceConflictError,
  ResourceConsistencyError,
  ResourceKind,
  ResourceNotFoundError,
  TransientError,
} from './errors.ts';

const http = (status: number, body = '{"itemNotFound": {"message": "raw nova detail"}}') =>
  httpError({
    serviceType: 'block-storage',
    method: 'GET',
    urlTemplate: '/volumes/{volume_id}',
    status,
    requestID: 'req-1',
    body,
  } satisfies HttpFailure);
const site = { serviceType: 'compute', method: 'POST', urlTemplate: '/servers' };

describe('classify', () => {
  const thrown: [string, unknown, abstract new (...a: never[]) => Error, string][] = [
    ['404', http(404), ResourceNotFoundError, ProviderErrorCode.NotFound],
    ['409', http(409), ResourceConflictError, ProviderErrorCode.Conflict],
    [
      'duplicate names',
      new ConsistencyError('volume', 'volume-1', ['a', 'b']),
      ResourceConsistencyError,
      ProviderErrorCode.Consistency,
    ],
    ['500', http(500), TransientError, ProviderErrorCode.Transient],
    ['503', http(503), TransientError, ProviderErrorCode.Transient],
    ['transport', new TransportError(site, new Error('ECONNRESET')), TransientError, ProviderErrorCode.Transient],
    ['401', http(401), TransientError, ProviderErrorCode.Transient],
    ['403', http(403), TransientError, ProviderErrorCode.Transient],
    ['config', new ConfigError('auth.url', 'must be https'), TransientError, ProviderErrorCode.Transient],
    ['not an OpenStack error', new TypeError('boom'), TransientError, ProviderErrorCode.Transient],
  ];
  for (const [name, err, Type, code] of thrown) {
    it(`${name} → ${code}, chaining the cause`, () => {
      const result = classify(err, { resource: ResourceKind.Volume, operation: 'create volume' });
      assert.ok(result instanceof Type);
      assert.equal((result as { code?: unknown }).code, code);
      assert.equal(result.cause, err);
    });
  }

  for (const status of [400, 422]) {
    it(`${status} → terminal with the fixed message, the error kept as the operator-only cause`, () => {
      const err = http(status, '{"badRequest": {"message": "Invalid volume_type secret-type-42"}}');
      assert.deepEqual(classify(err), {
        kind: 'terminal',
        reason: REJECTED_REASON,
        message: REJECTED_MESSAGE,
        cause: err,
      });
    });
  }

  it('a 400 retries instead when the call site says the spec retries it', () => {
    assert.ok(classify(http(400), { badRequest: 'transient' }) instanceof TransientError);
  });

  it('a 400 the call site retries as a refusal reads refused, not as the cloud being unavailable', () => {
    const refused = classify(http(400), { badRequest: 'refused', resource: ResourceKind.Server });
    assert.ok(refused instanceof RequestRefusedError);
    assert.equal(refused.code, 'PROVIDER_REFUSED');
    assert.equal(refused.userMessage, 'the cloud provider refused the requested change to this server; retrying');
    assert.ok(classify(http(500), { badRequest: 'refused' }) instanceof TransientError, 'only a 400 is a refusal');
  });

  it('passes provider errors through untouched', () => {
    const err = new ResourceConflictError('attach: volume attached elsewhere', { resource: ResourceKind.Volume });
    assert.equal(classify(err), err);
  });

  it('records the resource kind and operation for the operator', () => {
    const result = classify(http(404), { resource: ResourceKind.Server, operation: 'reboot server' });
    assert.ok(result instanceof ResourceNotFoundError);
    assert.equal(result.resource, 'server');
    assert.match(result.message, /^reboot server: /);
    assert.equal(result.userMessage, 'server not found');
  });
});

describe('terminalOrThrow', () => {
  it('returns the terminal outcome for a bad request', () => {
    assert.equal(terminalOrThrow(http(400)).kind, 'terminal');
  });
  it('throws the provider error otherwise', () => {
    assert.throws(() => terminalOrThrow(http(404)), ResourceNotFoundError);
    assert.throws(() => terminalOrThrow(http(502)), TransientError);
  });
});

describe('classify: quota refusals', () => {
  const refusal = (serviceType: string, status: number, body: unknown) =>
    httpError({
      serviceType,
      method: 'POST',
      urlTemplate: '/x',
      status,
      requestID: 'req-9',
      body: JSON.stringify(body),
    });
  const cases: [string, unknown, string][] = [
    [
      'Nova 403',
      refusal('compute', 403, {
        forbidden: { message: 'Quota exceeded for instances: Requested 1, but already used 10 of 10 instances' },
      }),
      "the project's quota for servers is exhausted",
    ],
    [
      'Neutron 409 OverQuota',
      refusal('network', 409, {
        NeutronError: { type: 'OverQuota', message: "Quota exceeded for resources: ['security_group']." },
      }),
      "the project's quota for security groups is exhausted",
    ],
    [
      'Cinder 413',
      refusal('block-storage', 413, {
        overLimit: {
          message: "VolumeLimitExceeded: Maximum number of volumes allowed (10) exceeded for quota 'volumes'.",
        },
      }),
      "the project's quota for volumes is exhausted",
    ],
    [
      'Octavia 403',
      refusal('load-balancer', 403, { faultstring: 'Quota has been met for resources: Load Balancer' }),
      "the project's quota for load balancers is exhausted",
    ],
    [
      'a quota OpenStack does not name',
      refusal('block-storage', 400, { badRequest: { message: 'quota exceeded somewhere' } }),
      'a quota of the project is exhausted',
    ],
  ];
  for (const [name, error, start] of cases) {
    it(`${name}: a quota error naming the quota, never "in use" and never OpenStack's words`, () => {
      const result = classify(error, { resource: ResourceKind.SecurityGroup, operation: 'create' });
      assert.ok(result instanceof QuotaExceededError);
      assert.equal(result.code, ProviderErrorCode.Quota);
      assert.ok(result.userMessage.startsWith(start), result.userMessage);
      assert.match(result.userMessage, /delete unused resources or ask an operator to raise it/);
      assert.doesNotMatch(
        result.userMessage,
        /in use|Requested|req-9|VolumeLimitExceeded|Quota exceeded|Quota has been met/,
      );
      assert.equal(result.cause, error, 'the raw answer rides in the cause, for operators');
    });
  }
});

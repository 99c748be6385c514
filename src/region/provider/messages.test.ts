import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { httpError, TransportError } from '../../openstack/errors.ts';
import { classify } from './classify.ts';
import { ResourceKind, ResourceNotFoundError, TransientError } from './errors.ts';
import { INTERNAL_ERROR_MESSAGE, toOperatorLog, toUserMessage } from './messages.ts';
import { Outcome } from './outcome.ts';

const statuses = [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503, 504];
const kinds = Object.values(ResourceKind);

// A body shaped the way some OpenStack service reports faults, with a secret planted in its detail.
const bodyArb = (secret: string) =>
  fc.oneof(
    fc.constant(JSON.stringify({ itemNotFound: { message: `no volume ${secret}`, code: 404 } })),
    fc.constant(JSON.stringify({ NeutronError: { type: 'IpAddressGenerationFailure', message: secret } })),
    fc.constant(JSON.stringify({ error: { message: `user ${secret} denied`, title: 'Forbidden' } })),
    fc.constant(JSON.stringify({ faultstring: secret })),
    fc.constant(JSON.stringify({ errors: [{ code: 'placement.x', detail: secret }] })),
    fc.constant(`<html>${secret}</html>`),
    fc.constant(secret),
  );

describe('toUserMessage', () => {
  it('never carries OpenStack detail, whatever the body and status', () => {
    const secretArb = fc.string({ minLength: 12, maxLength: 40 }).map((s) => `S3CRET${s}`);
    fc.assert(
      fc.property(
        secretArb.chain((secret) => fc.tuple(fc.constant(secret), bodyArb(secret))),
        fc.constantFrom(...statuses),
        fc.option(fc.constantFrom(...kinds), { nil: undefined }),
        fc.string({ maxLength: 20 }),
        ([secret, body], status, resource, requestID) => {
          const err = httpError({ serviceType: 'compute', method: 'PUT', urlTemplate: '/x', status, requestID, body });
          const classified = classify(err, resource === undefined ? {} : { resource });
          const message = toUserMessage(classified);
          assert.ok(!message.includes('S3CRET'), message);
          assert.ok(!message.includes(secret));
          if (requestID.length > 3) assert.ok(!message.includes(requestID));
          assert.equal(toUserMessage(err), INTERNAL_ERROR_MESSAGE);
        },
      ),
    );
  });

  it('gives the fixed text of each class and outcome', () => {
    assert.equal(toUserMessage(new ResourceNotFoundError('x', { resource: ResourceKind.Volume })), 'volume not found');
    assert.equal(toUserMessage(new TransientError('x')), 'the cloud provider is temporarily unavailable; retrying');
    assert.equal(toUserMessage(Outcome.park('R3′', 'edit the image')), 'edit the image');
    assert.equal(toUserMessage(Outcome.yield('r')), INTERNAL_ERROR_MESSAGE);
    assert.equal(toUserMessage('oops'), INTERNAL_ERROR_MESSAGE);
  });
});

describe('toOperatorLog', () => {
  it('keeps the whole chain with OpenStack status, request id and redacted body', () => {
    const err = httpError({
      serviceType: 'block-storage',
      method: 'POST',
      urlTemplate: '/volumes',
      status: 500,
      requestID: 'req-9',
      body: '{"computeFault": {"message": "scheduler died on host-7", "password": "hunter2"}}',
    });
    const log = toOperatorLog(classify(err, { resource: ResourceKind.Volume, operation: 'create volume' }));
    assert.equal(log.code, 'PROVIDER_TRANSIENT');
    assert.equal(log.resource, 'volume');
    assert.equal(log.chain.length, 2);
    assert.equal(log.chain[0]?.name, 'TransientError');
    const os = log.chain[1];
    assert.equal(os?.status, 500);
    assert.equal(os.requestID, 'req-9');
    assert.equal(os.request, 'POST block-storage/volumes');
    assert.match(os.body ?? '', /host-7/);
    assert.doesNotMatch(JSON.stringify(log), /hunter2/);
  });

  it('logs a terminal outcome by its cause', () => {
    const err = httpError({
      serviceType: 'c',
      method: 'GET',
      urlTemplate: '/',
      status: 400,
      requestID: undefined,
      body: 'bad',
    });
    const log = toOperatorLog(classify(err));
    assert.equal(log.code, 'terminal');
    assert.equal(log.reason, 'Errored');
    assert.equal(log.chain[0]?.code, 'OS_BAD_REQUEST');
  });

  it('follows non-OpenStack causes and stops on a cycle', () => {
    const inner = new TransportError(
      { serviceType: 'network', method: 'GET', urlTemplate: '/ports' },
      new Error('ECONNREFUSED'),
    );
    const a = new Error('a', { cause: inner });
    const log = toOperatorLog(a);
    assert.deepEqual(
      log.chain.map((l) => l.name),
      ['Error', 'TransportError', 'Error'],
    );
    const loop: { cause?: unknown } & Error = new Error('loop');
    loop.cause = loop;
    assert.equal(toOperatorLog(loop).chain.length, 1);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BadRequestError,
  ConfigError,
  ConflictError,
  ConsistencyError,
  EndpointNotFoundError,
  ErrorCode,
  ForbiddenError,
  httpError,
  isConflict,
  isNotFound,
  NotFoundError,
  OpenStackError,
  OpenStackHttpError,
  parseFault,
  ServerError,
  TransportError,
  TruncatedListError,
  UnauthorizedError,
  UnexpectedStatusError,
  type HttpFailure,
} from './errors.ts';

const failure = (status: number, body = ''): HttpFailure => ({
  serviceType: 'compute',
  method: 'GET',
  urlTemplate: '/servers/{server_id}',
  status,
  requestID: 'req-42',
  body,
});

describe('httpError', () => {
  const cases: [number, abstract new (...args: never[]) => OpenStackHttpError, string][] = [
    [400, BadRequestError, 'OS_BAD_REQUEST'],
    [422, BadRequestError, 'OS_BAD_REQUEST'],
    [401, UnauthorizedError, 'OS_UNAUTHORIZED'],
    [403, ForbiddenError, 'OS_FORBIDDEN'],
    [404, NotFoundError, 'OS_NOT_FOUND'],
    [409, ConflictError, 'OS_CONFLICT'],
    [500, ServerError, 'OS_SERVER_ERROR'],
    [502, ServerError, 'OS_SERVER_ERROR'],
    [503, ServerError, 'OS_SERVER_ERROR'],
    [504, ServerError, 'OS_SERVER_ERROR'],
    [300, UnexpectedStatusError, 'OS_UNEXPECTED_STATUS'],
    [405, UnexpectedStatusError, 'OS_UNEXPECTED_STATUS'],
    [413, UnexpectedStatusError, 'OS_UNEXPECTED_STATUS'],
    [429, UnexpectedStatusError, 'OS_UNEXPECTED_STATUS'],
  ];
  for (const [status, Type, code] of cases) {
    it(`maps ${String(status)} to ${Type.name} (${code})`, () => {
      const e = httpError(failure(status));
      assert.ok(e instanceof Type);
      assert.ok(e instanceof OpenStackHttpError);
      assert.ok(e instanceof OpenStackError);
      assert.equal(e.code, code);
      assert.equal(e.name, Type.name);
      assert.equal(e.serviceType, 'compute');
      assert.equal(e.method, 'GET');
      assert.equal(e.urlTemplate, '/servers/{server_id}');
      assert.equal(e.status, status);
      assert.equal(e.requestID, 'req-42');
      assert.equal(e.message, `GET compute/servers/{server_id}: HTTP ${String(status)} [req-42]`);
    });
  }

  it('leaves the request id out of the message when there is none', () => {
    const e = httpError({ ...failure(404), requestID: undefined });
    assert.equal(e.requestID, undefined);
    assert.equal(e.message, 'GET compute/servers/{server_id}: HTTP 404');
  });

  it('puts the fault message in the error message and keeps the fault', () => {
    const e = httpError(
      failure(404, JSON.stringify({ itemNotFound: { code: 404, message: 'Instance s-1 could not be found.' } })),
    );
    assert.equal(e.message, 'GET compute/servers/{server_id}: HTTP 404 [req-42]: Instance s-1 could not be found.');
    assert.deepEqual(e.fault, { type: 'itemNotFound', message: 'Instance s-1 could not be found.' });
  });

  it('redacts a password in both the body and the message', () => {
    const body = `Invalid request {"auth": {"identity": {"password": {"user": {"password": "hunter2-Secret"}}}}}`;
    const e = httpError(failure(400, body));
    assert.ok(!e.body.includes('hunter2-Secret'), e.body);
    assert.ok(!e.message.includes('hunter2-Secret'), e.message);
    assert.ok(e.message.includes('"password": "***"'), e.message);
  });

  it('redacts a password inside JSON carried as a string, as in Ironic’s error_message', () => {
    const inner = JSON.stringify({
      faultstring: 'Invalid driver_info {"password": "hunter2-Secret"}',
      faultcode: 'Client',
    });
    const e = httpError(failure(400, JSON.stringify({ error_message: inner })));
    assert.ok(!e.body.includes('hunter2-Secret'), e.body);
    assert.ok(!e.message.includes('hunter2-Secret'), e.message);
    assert.equal(e.fault.message, 'Invalid driver_info {"password": "***"}');
  });

  it('truncates the body to 4096 characters', () => {
    const e = httpError(failure(500, 'x'.repeat(10_000)));
    assert.equal(e.body.length, 4096);
    const short = httpError(failure(500, 'y'.repeat(4096)));
    assert.equal(short.body.length, 4096);
  });

  it('redacts before truncating, so a secret cut at the limit does not leak its head', () => {
    const secret = 'hunter2-Secret-that-is-long';
    const prefix = 'p'.repeat(4096 - `{"password": "hunter2`.length);
    const body = `${prefix}{"password": "${secret}"}`;
    assert.ok(body.length > 4096);
    const e = httpError(failure(400, body));
    assert.ok(e.body.length <= 4096);
    assert.ok(e.body.endsWith('{"password": "***"}'), e.body.slice(-40));
    assert.ok(!e.body.includes('hunter2'), e.body.slice(-40));
  });
});

describe('parseFault', () => {
  it('reads Nova’s and Cinder’s {"<type>": {"message"}}', () => {
    assert.deepEqual(
      parseFault(JSON.stringify({ conflictingRequest: { code: 409, message: 'Cannot delete while resizing' } })),
      { type: 'conflictingRequest', message: 'Cannot delete while resizing' },
    );
    assert.deepEqual(
      parseFault(JSON.stringify({ overLimit: { code: 413, message: 'VolumeLimitExceeded', retryAfter: '0' } })),
      {
        type: 'overLimit',
        message: 'VolumeLimitExceeded',
      },
    );
  });

  it('reads Keystone’s {"error": {"message", "title"}}', () => {
    assert.deepEqual(
      parseFault(
        JSON.stringify({
          error: { code: 401, title: 'Unauthorized', message: 'The request you have made requires authentication.' },
        }),
      ),
      { type: 'Unauthorized', message: 'The request you have made requires authentication.' },
    );
  });

  it('reads Neutron’s {"NeutronError": {"type", "message"}}', () => {
    assert.deepEqual(
      parseFault(
        JSON.stringify({
          NeutronError: { type: 'IpAddressGenerationFailure', message: 'No more IP addresses available', detail: '' },
        }),
      ),
      { type: 'IpAddressGenerationFailure', message: 'No more IP addresses available' },
    );
  });

  it('reads Octavia’s {"faultcode", "faultstring"}', () => {
    assert.deepEqual(
      parseFault(
        JSON.stringify({ faultcode: 'Client', faultstring: 'Load Balancer lb-1 is immutable', debuginfo: null }),
      ),
      { type: 'Client', message: 'Load Balancer lb-1 is immutable' },
    );
  });

  it('reads Placement’s {"errors": [{"code", "detail"}]}, falling back to the title', () => {
    assert.deepEqual(
      parseFault(
        JSON.stringify({
          errors: [
            {
              status: 409,
              title: 'Conflict',
              detail: 'resource provider generation conflict',
              code: 'placement.concurrent_update',
            },
          ],
        }),
      ),
      { type: 'placement.concurrent_update', message: 'resource provider generation conflict' },
    );
    assert.deepEqual(parseFault(JSON.stringify({ errors: [{ status: 404, title: 'Not Found' }] })), {
      type: undefined,
      message: 'Not Found',
    });
  });

  it('reads Ironic’s JSON inside error_message, and a plain error_message', () => {
    const inner = JSON.stringify({
      faultcode: 'Client',
      faultstring: 'Node n-1 is locked by host c-1',
      debuginfo: null,
    });
    assert.deepEqual(parseFault(JSON.stringify({ error_message: inner })), {
      type: 'Client',
      message: 'Node n-1 is locked by host c-1',
    });
    assert.deepEqual(parseFault(JSON.stringify({ error_message: 'not json' })), {
      type: undefined,
      message: 'not json',
    });
  });

  it('reads a plain-text body, trimmed and cut to 300 characters', () => {
    assert.deepEqual(parseFault('  502 Bad Gateway\n'), { type: undefined, message: '502 Bad Gateway' });
    assert.equal(parseFault('z'.repeat(1000)).message?.length, 300);
    assert.deepEqual(parseFault(''), { type: undefined, message: undefined });
    assert.deepEqual(parseFault('   '), { type: undefined, message: undefined });
  });

  it('finds no fault in JSON of no known shape', () => {
    assert.deepEqual(parseFault('[1, 2]'), { type: undefined, message: undefined });
    assert.deepEqual(parseFault('"text"'), { type: undefined, message: undefined });
    assert.deepEqual(parseFault(JSON.stringify({ a: 1, b: 2 })), { type: undefined, message: undefined });
    assert.deepEqual(parseFault(JSON.stringify({ message: 'top-level' })), { type: undefined, message: 'top-level' });
  });
});

describe('the rest of the catalogue', () => {
  it('gives every error its stable code and name', () => {
    const site = { serviceType: 'network', method: 'POST', urlTemplate: '/ports' };
    const transport = new TransportError(site, Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }));
    assert.equal(transport.code, ErrorCode.Transport);
    assert.equal(transport.name, 'TransportError');
    assert.equal(transport.message, 'POST network/ports: connect failed (ECONNREFUSED)');
    assert.equal(transport.urlTemplate, '/ports');

    const consistency = new ConsistencyError('network', 'net-1', ['a', 'b']);
    assert.equal(consistency.code, 'OS_CONSISTENCY');
    assert.deepEqual(consistency.ids, ['a', 'b']);

    const endpoint = new EndpointNotFoundError('compute', 'public', 'RegionTwo');
    assert.equal(endpoint.code, 'OS_ENDPOINT_NOT_FOUND');
    assert.match(endpoint.message, /compute.*RegionTwo/);

    const config = new ConfigError('compute_api_version', 'must look like 2.N');
    assert.equal(config.code, 'OS_CONFIG');
    assert.equal(config.field, 'compute_api_version');

    const truncated = new TruncatedListError('identity', '/users');
    assert.equal(truncated.code, 'OS_TRUNCATED');
    assert.equal(truncated.name, 'TruncatedListError');
    assert.match(truncated.message, /^identity\/users: .*list_limit.*narrow the filter or raise list_limit/);
  });

  it('has one distinct code per error kind', () => {
    const codes = Object.values(ErrorCode);
    assert.equal(new Set(codes).size, codes.length);
    assert.ok(codes.includes('OS_TRUNCATED'));
  });

  it('narrows with isNotFound and isConflict', () => {
    assert.equal(isNotFound(httpError(failure(404))), true);
    assert.equal(isNotFound(httpError(failure(409))), false);
    assert.equal(isConflict(httpError(failure(409))), true);
    assert.equal(isConflict(new Error('409')), false);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import {
  KubeAlreadyExistsError,
  KubeBadRequestError,
  KubeConflictError,
  KubeForbiddenError,
  KubeGoneError,
  KubeInternalError,
  KubeInvalidError,
  KubeNotFoundError,
} from '../errors.ts';
import { errorFromStatus, toKubeError } from './errors.ts';

const status = (code: number, reason: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: `${reason} happened`,
  reason,
  code,
  ...extra,
});

describe('errorFromStatus', () => {
  it('maps Status reasons to the catalogue', () => {
    assert.ok(errorFromStatus(404, status(404, 'NotFound')) instanceof KubeNotFoundError);
    assert.ok(errorFromStatus(409, status(409, 'AlreadyExists')) instanceof KubeAlreadyExistsError);
    assert.ok(errorFromStatus(409, status(409, 'Conflict')) instanceof KubeConflictError);
    assert.ok(errorFromStatus(410, status(410, 'Expired')) instanceof KubeGoneError);
    assert.ok(errorFromStatus(410, status(410, 'Gone')) instanceof KubeGoneError);
    assert.ok(errorFromStatus(403, status(403, 'Forbidden')) instanceof KubeForbiddenError);
    assert.ok(errorFromStatus(400, status(400, 'BadRequest')) instanceof KubeBadRequestError);
  });

  it('keeps the message and the Status as cause', () => {
    const body = status(404, 'NotFound');
    const error = errorFromStatus(404, JSON.stringify(body));
    assert.equal(error.message, 'NotFound happened');
    assert.deepEqual(error.cause, body);
  });

  it('parses Invalid causes from details.causes', () => {
    const body = status(422, 'Invalid', {
      details: {
        name: 'u1',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: "x"', field: 'spec.userName' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.domain' },
        ],
      },
    });
    const error = errorFromStatus(422, JSON.stringify(body));
    assert.ok(error instanceof KubeInvalidError);
    assert.deepEqual(error.causes, [
      { field: 'spec.userName', message: 'Invalid value: "x"', reason: 'FieldValueInvalid' },
      { field: 'spec.domain', message: 'Required value', reason: 'FieldValueRequired' },
    ]);
  });

  it('falls back to the HTTP code when the body is not a Status', () => {
    assert.ok(errorFromStatus(404, '404 page not found') instanceof KubeNotFoundError);
    assert.ok(errorFromStatus(401, '') instanceof KubeForbiddenError);
    assert.ok(errorFromStatus(422, '{}') instanceof KubeInvalidError);
    const internal = errorFromStatus(503, '<html>proxy</html>');
    assert.ok(internal instanceof KubeInternalError);
    assert.equal(internal.message, '<html>proxy</html>');
    assert.equal(errorFromStatus(504, '').message, 'HTTP 504');
  });
});

describe('toKubeError', () => {
  it('unwraps an ApiException body', () => {
    const e = new ApiException(409, 'Unknown API Status Code!', JSON.stringify(status(409, 'AlreadyExists')), {});
    assert.ok(toKubeError(e) instanceof KubeAlreadyExistsError);
  });

  it('passes other errors through', () => {
    const e = new Error('ECONNREFUSED');
    assert.equal(toKubeError(e), e);
  });
});

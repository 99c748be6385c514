import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { httpError, TransportError } from '../../../openstack/errors.ts';
import {
  QuotaExceededError,
  RequestRefusedError,
  ResourceNotFoundError,
  TransientError,
} from '../../provider/errors.ts';
import { toUserMessage } from '../../provider/messages.ts';
import { IMAGE_NOT_FOUND_MESSAGE } from './messages.ts';
import { decideRebuildResponse, IMAGE_NOT_FOUND_SIGNATURE, serverRebuildRequest } from './decide-rebuild.ts';

const SITE = { serviceType: 'compute', method: 'POST', urlTemplate: '/servers/{server_id}/action', requestID: 'req-1' };
const nova = (status: number, message: string) =>
  httpError({ ...SITE, status, body: JSON.stringify({ badRequest: { code: status, message } }) });

describe('serverRebuildRequest', () => {
  it('carries the image and nothing else: no key_name, no user_data', () => {
    const body = serverRebuildRequest('6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b');
    assert.deepEqual(body, { imageRef: '6a3f2c1e-0b4d-4e5f-8a9b-0c1d2e3f4a5b' });
    assert.ok(!('key_name' in body) && !('user_data' in body));
  });
});

describe('decideRebuildResponse', () => {
  it('2xx: accepted yields as rebuilding, so the reconciler stamps Active Rebuilding + Healthy Unknown', () => {
    const d = decideRebuildResponse({ accepted: true });
    assert.deepEqual(d, { row: 'R4″/accepted', outcome: { kind: 'yield', reason: 'R4″/accepted', rebuilding: true } });
  });

  it('409: yields silently (pre-acceptance, the server untouched)', () => {
    const d = decideRebuildResponse({
      accepted: false,
      error: nova(409, 'Cannot rebuild while in task_state rebooting'),
    });
    assert.deepEqual(d, { row: 'R4″/conflict', outcome: { kind: 'yield', reason: 'R4″/conflict' } });
  });

  it('400 with the image-not-found signature parks with the fixed message; the body stays in the cause', () => {
    const error = nova(400, IMAGE_NOT_FOUND_SIGNATURE);
    const d = decideRebuildResponse({ accepted: false, error });
    assert.ok(d.row === 'R4″/image-not-found');
    assert.deepEqual(d.outcome, { kind: 'park', reason: 'Errored', message: IMAGE_NOT_FOUND_MESSAGE, cause: error });
    assert.equal(toUserMessage(d.outcome), IMAGE_NOT_FOUND_MESSAGE);
    assert.doesNotMatch(IMAGE_NOT_FOUND_MESSAGE, /Cannot find/);
  });

  it('every other 400 retries on the yield interval as the pass’s error: a refused change, never "unavailable"', () => {
    for (const error of [
      nova(400, 'Image 6a3f2c1e is not active.'),
      nova(400, "Flavor's memory is too small for requested image."),
      nova(400, 'cannot find image for rebuild'),
      nova(400, 'Image not found for rebuild'),
      httpError({ ...SITE, status: 400, body: '' }),
    ]) {
      const d = decideRebuildResponse({ accepted: false, error });
      assert.ok(d.row === 'R4″/retry', error.body);
      assert.ok(d.error instanceof RequestRefusedError);
      assert.equal(d.error.cause, error);
      assert.deepEqual(
        d.outcome,
        { kind: 'yield', reason: 'R4″/retry', error: d.error },
        'a 10 s yield, not a back-off',
      );
      assert.equal(d.error.userMessage, 'the cloud provider refused the requested change to this server; retrying');
      assert.doesNotMatch(d.error.userMessage, /flavor|memory|active|image/i, 'the body stays operator-only');
    }
  });

  it('a quota refusal (Nova’s 403 OverQuota) surfaces as the quota condition, retried on the yield interval', () => {
    for (const [message, quota] of [
      ['Maximum number of metadata items exceeds 128', 'metadata_items'],
      ["Quota exceeded for resources: ['metadata_items']", 'metadata_items'],
      ['Quota exceeded for instances: Requested 1, but already used 2 of 2 instances', 'instances'],
    ] as const) {
      const error = httpError({ ...SITE, status: 403, body: JSON.stringify({ forbidden: { code: 403, message } }) });
      const d = decideRebuildResponse({ accepted: false, error });
      assert.ok(d.row === 'R4″/retry' && d.error instanceof QuotaExceededError, message);
      assert.equal(d.error.quota, quota, message);
      assert.deepEqual(d.outcome, { kind: 'yield', reason: 'R4″/retry', error: d.error });
      assert.match(toUserMessage(d.error), /quota .* is exhausted/);
    }
  });

  it('a 422 carrying the signature is not Nova’s image-not-found 400 and retries', () => {
    const d = decideRebuildResponse({ accepted: false, error: nova(422, IMAGE_NOT_FOUND_SIGNATURE) });
    assert.equal(d.row, 'R4″/retry');
  });

  it('every other failure surfaces as the pass’s error (logged) and retries on the yield interval', () => {
    const gone = decideRebuildResponse({ accepted: false, error: nova(404, 'Instance could not be found') });
    assert.ok(gone.row === 'R4″/retry' && gone.error instanceof ResourceNotFoundError);
    assert.deepEqual(gone.outcome, { kind: 'yield', reason: 'R4″/retry', error: gone.error });
    for (const error of [nova(500, 'boom'), nova(403, 'policy'), new TransportError(SITE, new Error('reset'))]) {
      const d = decideRebuildResponse({ accepted: false, error });
      assert.ok(d.row === 'R4″/retry' && d.error instanceof TransientError);
      assert.deepEqual(d.outcome, { kind: 'yield', reason: 'R4″/retry', error: d.error });
    }
  });
});

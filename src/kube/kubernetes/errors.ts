/**
 * A real API server's failures as src/kube/errors.ts classes. The server answers with a `Status` body (also inside a
 * watch stream's ERROR event); client-node 1.4.0 hands it over as raw text inside `ApiException.body`
 * (docs/spec/client-node.md §Pitfall 2), so both paths end here.
 */
import { ApiException } from '@kubernetes/client-node';
import {
  KubeAlreadyExistsError,
  KubeBadRequestError,
  KubeConflictError,
  KubeForbiddenError,
  KubeGoneError,
  KubeInternalError,
  KubeInvalidError,
  type KubeError,
  KubeNotFoundError,
  type StatusCause,
} from '../errors.ts';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function causesOf(details: unknown): StatusCause[] {
  if (!isRecord(details) || !Array.isArray(details.causes)) return [];
  return details.causes.filter(isRecord).map((c) => ({
    field: typeof c.field === 'string' ? c.field : '',
    message: typeof c.message === 'string' ? c.message : '',
    ...(typeof c.reason === 'string' ? { reason: c.reason } : {}),
  }));
}

/**
 * The error for an HTTP status and its body (a Status object, its JSON text, or anything else a proxy sent).
 * The Status `reason` decides where it is known; the HTTP code decides otherwise.
 */
export function errorFromStatus(httpCode: number, body: unknown): KubeError {
  let status: Record<string, unknown> = {};
  if (isRecord(body)) status = body;
  else if (typeof body === 'string' && body !== '') {
    try {
      const parsed: unknown = JSON.parse(body);
      if (isRecord(parsed)) status = parsed;
    } catch {
      status = { message: body.slice(0, 500) };
    }
  }
  const code = typeof status.code === 'number' ? status.code : httpCode;
  const reason = typeof status.reason === 'string' ? status.reason : '';
  const message = typeof status.message === 'string' && status.message !== '' ? status.message : `HTTP ${code}`;
  const cause = { cause: status };

  switch (reason) {
    case 'NotFound':
      return new KubeNotFoundError(message, cause);
    case 'AlreadyExists':
      return new KubeAlreadyExistsError(message, cause);
    case 'Conflict':
      return new KubeConflictError(message, cause);
    case 'Invalid':
      return new KubeInvalidError(message, causesOf(status.details), cause);
    // "Expired" is what a watch from a compacted resourceVersion reports, with code 410.
    case 'Gone':
    case 'Expired':
      return new KubeGoneError(message, cause);
    case 'Forbidden':
      return new KubeForbiddenError(message, cause);
    case 'BadRequest':
      return new KubeBadRequestError(message, cause);
  }
  switch (code) {
    case 404:
      return new KubeNotFoundError(message, cause);
    case 409:
      return new KubeConflictError(message, cause);
    case 410:
      return new KubeGoneError(message, cause);
    case 422:
      return new KubeInvalidError(message, causesOf(status.details), cause);
    // The catalogue has no Unauthorized: to a controller, a refused credential is a refusal like 403.
    case 401:
    case 403:
      return new KubeForbiddenError(message, cause);
    case 400:
    case 415:
      return new KubeBadRequestError(message, cause);
  }
  return new KubeInternalError(message, cause);
}

/** Any error from talking to the server (an ApiException from client-node's typed calls, included) as a KubeError. */
export function toKubeError(error: unknown): unknown {
  if (error instanceof ApiException) return errorFromStatus(error.code, error.body);
  return error;
}

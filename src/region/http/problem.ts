import { defined } from '../../util/defined.ts';
/**
 * The REST API's one error type and its catalogue (Fastify's `lib/errors.js` model): every failure a client sees is
 * an RFC 9457 problem document with a stable `type`, and, for a request that broke a rule, the fields and rules it
 * broke. The upstream clients read `error` and `error_description` (OAuth 2.0 style), so both are carried too.
 * `detail` is always fixed, cause-neutral text: no store or cloud detail reaches a response.
 */

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One broken rule: where (a JSON pointer into the request and its dotted field name) and which rule. */
export interface FieldViolation {
  /** e.g. `/spec/listeners/0/port`. */
  readonly pointer: string;
  /** e.g. `spec.listeners[0].port`. */
  readonly field: string;
  /** A stable rule name, e.g. `minimum`, `immutable`, `exists`. */
  readonly rule: string;
  readonly message: string;
}

const catalogue = {
  'bad-request': { status: 400, title: 'Bad Request', oauth: 'invalid_request' },
  unauthorized: { status: 401, title: 'Unauthorized', oauth: 'access_denied' },
  forbidden: { status: 403, title: 'Forbidden', oauth: 'forbidden' },
  'not-found': { status: 404, title: 'Not Found', oauth: 'not_found' },
  'method-not-allowed': { status: 405, title: 'Method Not Allowed', oauth: 'method_not_allowed' },
  conflict: { status: 409, title: 'Conflict', oauth: 'conflict' },
  'request-timeout': { status: 408, title: 'Request Timeout', oauth: 'invalid_request' },
  'payload-too-large': { status: 413, title: 'Content Too Large', oauth: 'request_entity_too_large' },
  'uri-too-long': { status: 414, title: 'URI Too Long', oauth: 'invalid_request' },
  'unsupported-media-type': { status: 415, title: 'Unsupported Media Type', oauth: 'unsupported_media_type' },
  'unprocessable-content': { status: 422, title: 'Unprocessable Content', oauth: 'unprocessable_content' },
  'too-many-requests': { status: 429, title: 'Too Many Requests', oauth: 'temporarily_unavailable' },
  'internal-error': { status: 500, title: 'Internal Server Error', oauth: 'server_error' },
  'not-implemented': { status: 501, title: 'Not Implemented', oauth: 'server_error' },
  unavailable: { status: 503, title: 'Service Unavailable', oauth: 'server_error' },
} as const;

type ProblemType = keyof typeof catalogue;

const PROBLEM_TYPE_BASE = 'https://openregion.dev/problems/';

interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance?: string;
  readonly errors?: readonly FieldViolation[];
  readonly error: string;
  readonly error_description: string;
}

export class Problem extends Error {
  readonly problem: ProblemType;
  readonly status: number;
  readonly detail: string;
  readonly errors: readonly FieldViolation[];

  constructor(problem: ProblemType, detail: string, errors: readonly FieldViolation[] = [], options?: ErrorOptions) {
    super(detail, options);
    this.name = 'Problem';
    this.problem = problem;
    this.status = catalogue[problem].status;
    this.detail = detail;
    this.errors = errors;
  }

  body(instance?: string): ProblemBody {
    const entry = catalogue[this.problem];
    return {
      type: `${PROBLEM_TYPE_BASE}${this.problem}`,
      title: entry.title,
      status: entry.status,
      detail: this.detail,
      ...defined({ instance }),
      ...(this.errors.length === 0 ? {} : { errors: this.errors }),
      error: entry.oauth,
      error_description: this.detail,
    };
  }
}

/** `/spec/listeners/0/port` → `spec.listeners[0].port`. */
export function fieldOf(pointer: string): string {
  let field = '';
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(token)) field += `[${token}]`;
    else field += field === '' ? token : `.${token}`;
  }
  return field;
}

/** A violation from a dotted path's pointer, e.g. `violation('/spec/flavorId', 'immutable', 'flavorId is immutable')`. */
export function violation(pointer: string, rule: string, message: string): FieldViolation {
  return { pointer, field: fieldOf(pointer), rule, message };
}

export const problems = {
  invalid: (errors: readonly FieldViolation[]) =>
    new Problem('unprocessable-content', describe(errors, 'the request breaks a validation rule'), errors),
  schema: (errors: readonly FieldViolation[]) =>
    new Problem('bad-request', describe(errors, 'the request does not match its schema'), errors),
  /** A rule broken on a route whose contract (upstream v1) knows 400 for every refused request, not 422. */
  badRequest: (errors: readonly FieldViolation[]) =>
    new Problem('bad-request', describe(errors, 'the request breaks a validation rule'), errors),
  malformedJson: () =>
    new Problem('bad-request', 'the request body is not valid JSON', [
      violation('', 'json', 'the request body is not valid JSON'),
    ]),
  tooLarge: (limit: number) =>
    new Problem('payload-too-large', `the request body is larger than ${String(limit)} bytes`, [
      violation('', 'maxBytes', `the request body must not exceed ${String(limit)} bytes`),
    ]),
  uriTooLong: (max: number) =>
    new Problem('uri-too-long', `a path segment is longer than ${String(max)} characters`, [
      violation('', 'maxParamLength', `a path segment must not exceed ${String(max)} characters`),
    ]),
  badUrl: () => new Problem('bad-request', 'the URL is not valid (a malformed percent-encoding?)'),
  unsupportedMediaType: () => new Problem('unsupported-media-type', 'request bodies must be application/json'),
  unauthorized: () => new Problem('unauthorized', 'a valid bearer token is required'),
  forbidden: (detail: string) => new Problem('forbidden', detail),
  notFound: (what: string) => new Problem('not-found', `${what} not found`),
  routeNotFound: () => new Problem('not-found', 'no such route'),
  conflict: (detail: string) => new Problem('conflict', detail),
  /** The request names something another resource holds: a conflict with the current state, naming the fields. */
  inUse: (errors: readonly FieldViolation[]) =>
    new Problem('conflict', describe(errors, 'the request names a resource another one holds'), errors),
  notImplemented: (capability: string) =>
    new Problem('not-implemented', `${capability} is not available in this region service yet`),
  unavailable: (detail: string) => new Problem('unavailable', detail),
  tooManyRequests: (retryAfterSeconds: number) =>
    new Problem('too-many-requests', `too many requests; retry after ${String(retryAfterSeconds)} s`, [
      violation('', 'rateLimit', 'requests from this token or address exceed the rate limit'),
    ]),
  internal: () => new Problem('internal-error', 'internal error'),
};

function describe(errors: readonly FieldViolation[], fallback: string): string {
  const first = errors[0];
  if (first === undefined) return fallback;
  const where = first.field === '' ? 'the request' : first.field;
  const more = errors.length > 1 ? ` (and ${String(errors.length - 1)} more)` : '';
  return `${where}: ${first.message}${more}`;
}

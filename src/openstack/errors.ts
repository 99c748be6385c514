/**
 * The one catalogue of OpenStack client errors. Every error has a stable `code`; HTTP errors also carry the method,
 * the URL template (never the concrete URL, which can hold ids a caller did not ask to log), the status and
 * OpenStack's request id. Messages are for operators: they never contain credentials (see redact.ts), but they may
 * contain raw OpenStack detail, which callers must not show to tenants.
 */
import { redactText } from './redact.ts';

export const ErrorCode = {
  NotFound: 'OS_NOT_FOUND',
  Conflict: 'OS_CONFLICT',
  BadRequest: 'OS_BAD_REQUEST',
  Unauthorized: 'OS_UNAUTHORIZED',
  Forbidden: 'OS_FORBIDDEN',
  ServerError: 'OS_SERVER_ERROR',
  UnexpectedStatus: 'OS_UNEXPECTED_STATUS',
  Transport: 'OS_TRANSPORT',
  Consistency: 'OS_CONSISTENCY',
  EndpointNotFound: 'OS_ENDPOINT_NOT_FOUND',
  Config: 'OS_CONFIG',
  Truncated: 'OS_TRUNCATED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export abstract class OpenStackError extends Error {
  abstract readonly code: ErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Where a failed request was going: enough to find it in OpenStack's logs, nothing secret. */
export interface RequestSite {
  readonly serviceType: string;
  readonly method: string;
  /** The path template, e.g. `/servers/{server_id}`. */
  readonly urlTemplate: string;
}

export interface HttpFailure extends RequestSite {
  readonly status: number;
  readonly requestID: string | undefined;
  /** The response body as text, redacted and truncated; operator-only. */
  readonly body: string;
}

/** The parts of an OpenStack error body that callers branch on. */
interface Fault {
  /** The service's own error type, e.g. Neutron's `IpAddressGenerationFailure` or Placement's `placement.concurrent_update`. */
  readonly type: string | undefined;
  readonly message: string | undefined;
}

const BODY_LIMIT = 4096;

export abstract class OpenStackHttpError extends OpenStackError implements HttpFailure {
  readonly serviceType: string;
  readonly method: string;
  readonly urlTemplate: string;
  readonly status: number;
  readonly requestID: string | undefined;
  readonly body: string;
  readonly fault: Fault;

  constructor(failure: Omit<HttpFailure, 'body'> & { body: string }) {
    const body = redactText(failure.body).slice(0, BODY_LIMIT);
    const fault = parseFault(body);
    const where = `${failure.method} ${failure.serviceType}${failure.urlTemplate}`;
    const id = failure.requestID ? ` [${failure.requestID}]` : '';
    super(`${where}: HTTP ${failure.status}${id}${fault.message ? `: ${fault.message}` : ''}`);
    this.serviceType = failure.serviceType;
    this.method = failure.method;
    this.urlTemplate = failure.urlTemplate;
    this.status = failure.status;
    this.requestID = failure.requestID;
    this.body = body;
    this.fault = fault;
  }
}

export class NotFoundError extends OpenStackHttpError {
  readonly code = ErrorCode.NotFound;
}
export class ConflictError extends OpenStackHttpError {
  readonly code = ErrorCode.Conflict;
}
/** A 400 or 422: the body is kept because it says which field OpenStack refused. */
export class BadRequestError extends OpenStackHttpError {
  readonly code = ErrorCode.BadRequest;
}
export class UnauthorizedError extends OpenStackHttpError {
  readonly code = ErrorCode.Unauthorized;
}
export class ForbiddenError extends OpenStackHttpError {
  readonly code = ErrorCode.Forbidden;
}
export class ServerError extends OpenStackHttpError {
  readonly code = ErrorCode.ServerError;
}
export class UnexpectedStatusError extends OpenStackHttpError {
  readonly code = ErrorCode.UnexpectedStatus;
}

/** The request never got an HTTP answer: refused, reset, timed out, TLS failure. */
export class TransportError extends OpenStackError implements RequestSite {
  readonly code = ErrorCode.Transport;
  readonly serviceType: string;
  readonly method: string;
  readonly urlTemplate: string;

  constructor(site: RequestSite, cause: unknown) {
    super(`${site.method} ${site.serviceType}${site.urlTemplate}: ${describeCause(cause)}`, { cause });
    this.serviceType = site.serviceType;
    this.method = site.method;
    this.urlTemplate = site.urlTemplate;
  }
}

/** OpenStack holds two resources under a name that must be unique: someone else wrote there, or a create raced. */
export class ConsistencyError extends OpenStackError {
  readonly code = ErrorCode.Consistency;
  readonly ids: readonly string[];

  constructor(kind: string, name: string, ids: readonly string[]) {
    super(
      `${String(ids.length)} ${kind} resources are named ${JSON.stringify(name)} (${ids.join(', ')}); expected at most one`,
    );
    this.ids = ids;
  }
}

export class EndpointNotFoundError extends OpenStackError {
  readonly code = ErrorCode.EndpointNotFound;

  constructor(serviceType: string, iface: string, region: string | undefined) {
    super(`no ${iface} endpoint for service type ${serviceType}${region ? ` in region ${region}` : ''} in the catalog`);
  }
}

/** Configuration OpenStack access cannot work with; names the setting and the rule it broke. */
export class ConfigError extends OpenStackError {
  readonly code = ErrorCode.Config;
  readonly field: string;

  constructor(field: string, rule: string) {
    super(`${field}: ${rule}`);
    this.field = field;
  }
}

/**
 * Keystone answered with a list cut short by its `list_limit` (`"truncated": true`, no next link). Acting on part of
 * a list (an exact-name lookup, a sweep of orphans) would be wrong, so the list fails instead.
 */
export class TruncatedListError extends OpenStackError implements Omit<RequestSite, 'method'> {
  readonly code = ErrorCode.Truncated;
  readonly serviceType: string;
  readonly urlTemplate: string;

  constructor(serviceType: string, urlTemplate: string) {
    super(
      `${serviceType}${urlTemplate}: the list was truncated by the service's list_limit; ` +
        'narrow the filter or raise list_limit in the service configuration',
    );
    this.serviceType = serviceType;
    this.urlTemplate = urlTemplate;
  }
}

const statusErrors: Record<number, new (f: HttpFailure) => OpenStackHttpError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  422: BadRequestError,
};

export function httpError(failure: HttpFailure): OpenStackHttpError {
  const Type = statusErrors[failure.status] ?? (failure.status >= 500 ? ServerError : UnexpectedStatusError);
  return new Type(failure);
}

export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;

/**
 * Reads the fault out of the body shapes the services use: Nova and Cinder `{"itemNotFound": {"message"}}`,
 * Keystone `{"error": {"message", "title"}}`, Neutron `{"NeutronError": {"type", "message"}}`, Octavia
 * `{"faultstring"}`, Placement `{"errors": [{"code", "detail"}]}` and Ironic `{"error_message": "<json>"}`.
 */
export function parseFault(body: string): Fault {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    const text = body.trim();
    return { type: undefined, message: text ? text.slice(0, 300) : undefined };
  }
  return faultOf(parsed);
}

function faultOf(parsed: unknown): Fault {
  if (!isRecord(parsed)) return { type: undefined, message: undefined };
  if (isRecord(parsed.NeutronError)) {
    return { type: str(parsed.NeutronError.type), message: str(parsed.NeutronError.message) };
  }
  if (Array.isArray(parsed.errors) && isRecord(parsed.errors[0])) {
    const first = parsed.errors[0];
    return { type: str(first.code), message: str(first.detail) ?? str(first.title) };
  }
  if (typeof parsed.error_message === 'string') {
    try {
      return faultOf(JSON.parse(parsed.error_message));
    } catch {
      return { type: undefined, message: parsed.error_message };
    }
  }
  if (typeof parsed.faultstring === 'string') return { type: str(parsed.faultcode), message: parsed.faultstring };
  if (isRecord(parsed.error)) return { type: str(parsed.error.title), message: str(parsed.error.message) };
  const keys = Object.keys(parsed);
  if (keys.length === 1 && keys[0] !== undefined) {
    const inner = parsed[keys[0]];
    if (isRecord(inner) && typeof inner.message === 'string') return { type: keys[0], message: inner.message };
  }
  return { type: undefined, message: str(parsed.message) ?? str(parsed.detail) };
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  const code = (cause as { code?: unknown }).code ?? (cause.cause as { code?: unknown } | undefined)?.code;
  return `${cause.message}${inner}${typeof code === 'string' ? ` (${code})` : ''}`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Kubernetes API errors as both backends report them, mirroring apimachinery's StatusReason. Product code
 * branches on the class (or `reason`), never on a backend's raw error.
 */
export type StatusReason =
  'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'Gone' | 'Forbidden' | 'BadRequest' | 'InternalError';

/** One field a validation refused: `field` is a path like `spec.userName`, `message` says the rule. */
export interface StatusCause {
  readonly field: string;
  readonly message: string;
  readonly reason?: string;
}

export abstract class KubeError extends Error {
  abstract readonly reason: StatusReason;
  abstract readonly code: number;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class NotFoundError extends KubeError {
  readonly reason = 'NotFound';
  readonly code = 404;
}
export class AlreadyExistsError extends KubeError {
  readonly reason = 'AlreadyExists';
  readonly code = 409;
}
/** An update or delete lost an optimistic-concurrency race, or an apply hit another manager's field. */
export class ConflictError extends KubeError {
  readonly reason = 'Conflict';
  readonly code = 409;
}
export class InvalidError extends KubeError {
  readonly reason = 'Invalid';
  readonly code = 422;
  readonly causes: readonly StatusCause[];

  constructor(message: string, causes: readonly StatusCause[], options?: ErrorOptions) {
    super(message, options);
    this.causes = causes;
  }
}
/** A watch asked for a resourceVersion the server no longer has: relist. */
export class GoneError extends KubeError {
  readonly reason = 'Gone';
  readonly code = 410;
}
export class ForbiddenError extends KubeError {
  readonly reason = 'Forbidden';
  readonly code = 403;
}
export class BadRequestError extends KubeError {
  readonly reason = 'BadRequest';
  readonly code = 400;
}
export class InternalError extends KubeError {
  readonly reason = 'InternalError';
  readonly code = 500;
}

export const isNotFound = (e: unknown): e is NotFoundError => e instanceof NotFoundError;
export const isConflict = (e: unknown): e is ConflictError => e instanceof ConflictError;
export const isAlreadyExists = (e: unknown): e is AlreadyExistsError => e instanceof AlreadyExistsError;

/** The Kubernetes Status body for an error, as an API server sends it (the embedded REST facade uses this). */
export function statusOf(error: KubeError): Readonly<Record<string, unknown>> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    message: error.message,
    reason: error.reason,
    code: error.code,
    ...(error instanceof InvalidError ? { details: { causes: error.causes } } : {}),
  };
}

/**
 * Kubernetes API errors as both backends report them, mirroring apimachinery's StatusReason. Product code
 * branches on the class (or `reason`), never on a backend's raw error.
 */
type StatusReason =
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

export class KubeNotFoundError extends KubeError {
  readonly reason = 'NotFound';
  readonly code = 404;
}
export class KubeAlreadyExistsError extends KubeError {
  readonly reason = 'AlreadyExists';
  readonly code = 409;
}
/** An update or delete lost an optimistic-concurrency race, or an apply hit another manager's field. */
export class KubeConflictError extends KubeError {
  readonly reason = 'Conflict';
  readonly code = 409;
}
export class KubeInvalidError extends KubeError {
  readonly reason = 'Invalid';
  readonly code = 422;
  readonly causes: readonly StatusCause[];

  constructor(message: string, causes: readonly StatusCause[], options?: ErrorOptions) {
    super(message, options);
    this.causes = causes;
  }
}
/** A watch asked for a resourceVersion the server no longer has: relist. */
export class KubeGoneError extends KubeError {
  readonly reason = 'Gone';
  readonly code = 410;
}
export class KubeForbiddenError extends KubeError {
  readonly reason = 'Forbidden';
  readonly code = 403;
}
export class KubeBadRequestError extends KubeError {
  readonly reason = 'BadRequest';
  readonly code = 400;
}
export class KubeInternalError extends KubeError {
  readonly reason = 'InternalError';
  readonly code = 500;
}

export const isKubeNotFound = (e: unknown): e is KubeNotFoundError => e instanceof KubeNotFoundError;
export const isKubeConflict = (e: unknown): e is KubeConflictError => e instanceof KubeConflictError;
export const isKubeAlreadyExists = (e: unknown): e is KubeAlreadyExistsError => e instanceof KubeAlreadyExistsError;
/**
 * A failure the next attempt routinely gets past: a write that lost an optimistic-concurrency race, an object
 * deleted or compacted away meanwhile. Worth a warning, not an error with a stack.
 */
export const isKubeRace = (e: unknown): e is KubeError =>
  e instanceof KubeConflictError || e instanceof KubeNotFoundError || e instanceof KubeGoneError;

/** The promise's value, or undefined when it fails with NotFound (controller-runtime's `client.IgnoreNotFound`). */
export async function ignoreNotFound<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (error) {
    if (error instanceof KubeNotFoundError) return undefined;
    throw error;
  }
}

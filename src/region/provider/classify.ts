/**
 * How an OpenStack client error becomes a provider disposition. A quota refusal comes first, whatever its status
 * (Nova and Octavia 403, Neutron 409, Cinder 413 or 400): it is the tenant's to act on and must not read as a
 * conflict or a rejected configuration. Call sites whose specified rows distinguish answers
 * (the rebuild 400 "Cannot find image for rebuild" parks, a 409 yields awaiting quiescence) decide those first and
 * hand everything else here.
 */
import {
  BadRequestError,
  ConflictError,
  ConsistencyError,
  NotFoundError,
  OpenStackError,
} from '../../openstack/errors.ts';
import { quotaRefusal } from '../../openstack/quota.ts';
import {
  ProviderError,
  QuotaExceededError,
  RequestRefusedError,
  ResourceConflictError,
  ResourceConsistencyError,
  ResourceNotFoundError,
  TransientError,
  type ResourceKind,
} from './errors.ts';
import { Outcome, type Terminal } from './outcome.ts';
import { defined } from '../../util/defined.ts';

export const REJECTED_REASON = 'Errored';
export const REJECTED_MESSAGE = 'the cloud provider rejected the requested configuration';

interface ClassifyOptions {
  readonly resource?: ResourceKind;
  /** What the provider was doing, for the operator message, e.g. "create network". */
  readonly operation?: string;
  /**
   * A 400/422 is terminal by default: OpenStack refused the request as specified. A read passes `'transient'`
   * (retried as the cloud failing); the rebuild passes `'refused'`, retried as a refusal the tenant is told of, since
   * a deactivated image recovers when an operator reactivates it.
   */
  readonly badRequest?: 'terminal' | 'transient' | 'refused';
}

/** The error to throw, or the terminal outcome to return, for a failure the provider does not handle itself. */
export function classify(err: unknown, options: ClassifyOptions = {}): ProviderError | Terminal {
  if (err instanceof ProviderError) return err;
  const what = options.operation ?? 'provider call';
  const opts = { cause: err, ...defined({ resource: options.resource }) };
  const quota = quotaRefusal(err);
  if (quota !== undefined) return new QuotaExceededError(`${what}: quota exceeded`, quota, opts);
  if (err instanceof NotFoundError) return new ResourceNotFoundError(`${what}: not found`, opts);
  if (err instanceof ConflictError) return new ResourceConflictError(`${what}: conflict`, opts);
  if (err instanceof ConsistencyError) return new ResourceConsistencyError(`${what}: duplicate names`, opts);
  if (err instanceof BadRequestError && options.badRequest === 'refused') {
    return new RequestRefusedError(`${what}: refused`, opts);
  }
  if (err instanceof BadRequestError && options.badRequest !== 'transient') {
    return Outcome.terminal(REJECTED_REASON, REJECTED_MESSAGE, err);
  }
  const kind = err instanceof OpenStackError ? err.code : 'unexpected error';
  return new TransientError(`${what}: ${kind}`, opts);
}

/** Throws the provider error `classify` names, or returns its terminal outcome for the caller to return. */
export function terminalOrThrow(err: unknown, options: ClassifyOptions = {}): Terminal {
  const result = classify(err, options);
  if (result instanceof ProviderError) throw result;
  return result;
}

/**
 * R4″, the single destructive step: what the rebuild request carries and what its answer means
 * (docs/spec/openstack-provider.md §Image rebuild: "R4″ is the single destructive step" and "Nova's accept gate").
 *
 * - 2xx: accepted. Nova now rewrites the root disk, so the pass yields (never completes) as rebuilding, which has
 *   the reconciler write the fixed accepted stamp (contract.ts `ServerYield`). The stamp is never derived from the
 *   202 body, which can still describe the pre-destruction server as ACTIVE; the input type has no body.
 * - 409: pre-acceptance, the server untouched; yield silently for a short retry.
 * - 400 whose body carries "Cannot find image for rebuild": a deleted image never resolves again; park until the
 *   spec changes.
 * - Any other 400 (a deactivated image recovers on reactivation, which moves no generation and no observed field,
 *   so a park would strand the server), a reworded or stripped body, a quota refusal, and every other failure: the
 *   pass's error (Available reads Errored with the error's fixed text: a quota names itself, a 400 reads as a refused
 *   change), its body logged for operators, retried on the yield interval (docs/spec/openstack-provider.md §Image
 *   rebuild: 10 s, not an exponential back-off that waits up to 1,000 s). Failing safe toward the retry loop, never
 *   toward a wrong park.
 */
import { BadRequestError, ConflictError } from '../../../openstack/errors.ts';
import type { ServerRebuild } from '../../../openstack/compute.ts';
import { classify } from '../../provider/classify.ts';
import type { ServerYield } from '../../provider/contract.ts';
import { ProviderError, ResourceKind } from '../../provider/errors.ts';
import { Outcome, type Park, type Yield } from '../../provider/outcome.ts';
import { IMAGE_NOT_FOUND_MESSAGE, SERVER_ERRORED_REASON } from './messages.ts';

/**
 * The rebuild request: the image and nothing else. Omitting key_name and user_data makes Nova keep the stored
 * keypair and the create-time user data (with the SSH-CA cloud-init), so a rebuilt guest stays create-equivalent;
 * metadata, ports, volumes and flavor survive a rebuild on their own.
 */
export function serverRebuildRequest(imageID: string): ServerRebuild {
  return { imageRef: imageID };
}

/** Nova's image-not-found refusal (nova/api/openstack/compute/servers.py), matched exactly in the 400 body. */
export const IMAGE_NOT_FOUND_SIGNATURE = 'Cannot find image for rebuild';

/** What the I/O layer saw: acceptance (its body deliberately not carried) or the thrown client error. */
export type RebuildResult = { readonly accepted: true } | { readonly accepted: false; readonly error: unknown };

/** A yield while a rebuild to the desired image is accepted or in flight: the reconciler writes the accepted stamp. */
export const rebuildingYield = (row: string): ServerYield => ({ ...Outcome.yield(row), rebuilding: true });

type RebuildResponseDecision =
  | { readonly row: 'R4″/accepted'; readonly outcome: ServerYield }
  | { readonly row: 'R4″/conflict'; readonly outcome: Yield }
  | { readonly row: 'R4″/image-not-found'; readonly outcome: Park }
  /** Log `error` (operator-only); the yield carries it as the pass's error and runs again on the 10 s re-check. */
  | { readonly row: 'R4″/retry'; readonly outcome: Yield; readonly error: ProviderError };

export function decideRebuildResponse(result: RebuildResult): RebuildResponseDecision {
  if (result.accepted) {
    return { row: 'R4″/accepted', outcome: rebuildingYield('R4″/accepted') };
  }
  const { error } = result;
  if (error instanceof ConflictError) return { row: 'R4″/conflict', outcome: Outcome.yield('R4″/conflict') };
  if (error instanceof BadRequestError && error.status === 400 && error.body.includes(IMAGE_NOT_FOUND_SIGNATURE)) {
    // The body stays operator-only, in the park's cause.
    return {
      row: 'R4″/image-not-found',
      outcome: Outcome.park(SERVER_ERRORED_REASON, IMAGE_NOT_FOUND_MESSAGE, error),
    };
  }
  const retry = classify(error, {
    resource: ResourceKind.Server,
    operation: 'rebuild server',
    badRequest: 'refused',
  });
  // With badRequest 'refused' classify never answers with a terminal outcome; the guard keeps that true.
  if (!(retry instanceof ProviderError)) throw new Error('rebuild failures retry; classify returned an outcome');
  return { row: 'R4″/retry', outcome: Outcome.retry('R4″/retry', retry), error: retry };
}

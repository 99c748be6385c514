/**
 * The fixed, tenant-facing texts of the server decisions (docs/architecture.md §Dispositions, not exceptions). None is
 * built from anything OpenStack said; the few that carry a value carry one the provider chose (an attempt count, a Nova
 * status token).
 *
 * The park messages are cause-neutral on purpose: R3′ cannot tell our failed rebuild from a failed evacuation or an
 * unrelated host failure, so it names none of them, and says what resumes the server (a spec edit).
 */

/** The reason every park and the create-retry terminal report on the Available condition (unikorn core). */
export const SERVER_ERRORED_REASON = 'Errored';

/** R1: nothing to converge toward. */
export const IMAGE_MISSING_MESSAGE = "the server has no image; set an image in the server's spec";

/** R2: the ref cannot be verified; a later readable ref un-parks without a spec change. */
export const IMAGE_UNREADABLE_MESSAGE =
  "the server's current image cannot be determined; provisioning resumes once the cloud provider reports it";

/** R3′: the requested image is not running on the server; a spec edit resumes it. */
export const IMAGE_NOT_REALIZED_MESSAGE =
  "the server is in an error state and its requested image is not running; change the image in the server's spec to continue";

/** A rebuild refused with Nova's image-not-found signature: the one refusal that cannot heal without a spec edit. */
export const IMAGE_NOT_FOUND_MESSAGE =
  "the requested image does not exist; change the image in the server's spec to continue";

/** Upstream's terminal reason once the bounded create-retry is exhausted. */

/** Healthy messages (upstream convertServerHealthStatus; the fault never reaches them, it stays in logs). */
export const HEALTHY_MESSAGE = 'server is healthy';
export const ERRORED_MESSAGE = 'server is in an error state';
/** Shared by the monitor's rebuild mapping and the reconciler's accepted stamp, so the two writers never churn. */
/** The Healthy message of a server the cloud no longer has (deleted out of band, or not yet created). */
export const SERVER_NOT_FOUND_MESSAGE = 'the server was not found at the cloud provider';
const UNRECOGNISED_STATE_MESSAGE = 'server is in an unrecognised state';

/** Nova statuses are upper-case tokens; anything else is not echoed to a tenant. */
export function degradedMessage(novaStatus: string): string {
  return /^[A-Z][A-Z_]{0,31}$/.test(novaStatus) ? `server is in state ${novaStatus}` : UNRECOGNISED_STATE_MESSAGE;
}

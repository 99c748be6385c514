/**
 * An identity whose Keystone project exists: what every workload call (networks, security groups, servers …) needs
 * to bind its clients to that project. Delete paths take `RealisedIdentity | undefined`, where undefined means the
 * identity was never realised, which proves no provider resource of it can exist (`openstackIdentityProvisioned`,
 * docs/spec/upstream-region.md §Trust / scoping).
 */
import { ResourceKind, TransientError } from '../provider/errors.ts';
import type { IdentityCredentials } from './principals.ts';

export interface RealisedIdentity {
  /** The region Identity's id (its Kubernetes name). */
  readonly identityID: string;
  /** The Keystone project provisioned for it. */
  readonly projectID: string;
}

/**
 * A realised identity whose own user can act in its project: servers, volumes and load balancers are made as that
 * user. Undefined (no record, or one without a project, user and password) proves none of them can exist.
 */
export interface UserIdentity extends RealisedIdentity {
  readonly credentials: IdentityCredentials;
  /** The identity's Nova server group; new servers join it. */
  readonly serverGroupID?: string | undefined;
}

/**
 * The identity a create (or any call but a delete) runs in. Until it is realised the call waits, as a transient
 * state: the controllers gate on the identity before they call, so reaching here first is a race, not a user error.
 */
export function realisedForCreate<T extends RealisedIdentity>(identity: T | undefined, identityID: string): T {
  if (identity === undefined) {
    throw new TransientError(`identity ${identityID} is not realised yet`, { resource: ResourceKind.Identity });
  }
  return identity;
}

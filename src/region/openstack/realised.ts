/**
 * An identity whose Keystone project exists: what every workload call (networks, security groups, servers …) needs
 * to bind its clients to that project. Delete paths take `RealisedIdentity | undefined`, where undefined means the
 * identity was never realised, which proves no provider resource of it can exist (ref §5 `openstackIdentityProvisioned`).
 */
export interface RealisedIdentity {
  /** The region Identity's id (its Kubernetes name). */
  readonly identityID: string;
  /** The Keystone project provisioned for it. */
  readonly projectID: string;
}

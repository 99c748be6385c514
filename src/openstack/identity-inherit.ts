/**
 * Keystone OS-INHERIT: a role granted on a domain "inherited to projects" applies to every project of that domain,
 * present and future, and not to the domain itself. Region registration grants the region user `manager` this way,
 * so it is manager in each identity project it creates without ever granting `manager` itself (docs/adr/0010).
 */
import { isNotFound } from './errors.ts';
import type { IdentityClient } from './identity.ts';

interface InheritedGrant {
  readonly domainID: string;
  readonly userID: string;
  readonly roleID: string;
}

const path = '/OS-INHERIT/domains/{domain_id}/users/{user_id}/roles/{role_id}/inherited_to_projects';
const params = (g: InheritedGrant) => ({ domain_id: g.domainID, user_id: g.userID, role_id: g.roleID });

/** Grants the role on every project of the domain (PUT, 204); idempotent. */
export async function grantInheritedRole(identity: IdentityClient, grant: InheritedGrant): Promise<void> {
  await identity.request({ method: 'PUT', path, params: params(grant) });
}

/** Whether the inherited grant exists (HEAD: 204 yes, 404 no). */
export async function hasInheritedRole(identity: IdentityClient, grant: InheritedGrant): Promise<boolean> {
  try {
    await identity.request({ method: 'HEAD', path, params: params(grant) });
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

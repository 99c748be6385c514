/**
 * A server's floating IP, re-found by the port it is attached to (docs/spec/upstream-region.md §Deterministic names:
 * "Port: `server-{serverID}`; floating IP found by port ID"): made on the region's first external network when the spec
 * asks for one, released when it does not.
 */
import * as neutron from '../../../openstack/network.ts';
import { ResourceKind, ResourceConsistencyError, TransientError } from '../../provider/errors.ts';
import { allocateFloatingIP } from '../floating-ips.ts';
import { listExternalNetworks } from '../network/lifecycle.ts';
import type { IdentityClient } from '../principals.ts';
import { gone } from '../steps.ts';
import type { ServerDeps } from './deps.ts';
import type { UserIdentity } from '../realised.ts';

type Neutron = IdentityClient<'network'>;

function floatingIPsOf(client: Neutron, identity: UserIdentity, portID: string): Promise<neutron.FloatingIP[]> {
  return neutron.listFloatingIPs(client, { portID: portID, projectID: identity.projectID });
}

/**
 * The floating IP address the port has once converged, undefined when the spec asks for none. A port this pass
 * just made (`fresh`) has none yet, so nothing is listed for it.
 */
export async function convergeFloatingIP(
  deps: ServerDeps,
  client: Neutron,
  identity: UserIdentity,
  port: { readonly id: string; readonly fresh: boolean },
  wanted: boolean,
): Promise<string | undefined> {
  const portID = port.id;
  const found = port.fresh ? [] : await floatingIPsOf(client, identity, portID);
  if (!wanted) {
    for (const ip of found) await gone(neutron.deleteFloatingIP(client, ip.id));
    return undefined;
  }
  if (found.length > 1) {
    throw new ResourceConsistencyError(`port ${portID} has ${String(found.length)} floating IPs`, {
      resource: ResourceKind.Server,
    });
  }
  const [existing] = found;
  if (existing !== undefined) return existing.floating_ip_address;
  const [external] = await listExternalNetworks(deps);
  if (external === undefined) {
    // Only an operator can fix this (a selector or an external network); a retry recovers without a spec edit.
    throw new TransientError('create floating IP: no external network matches the region selector', {
      resource: ResourceKind.Server,
    });
  }
  const made = await allocateFloatingIP(client, identity.projectID, external.id, portID);
  return made.floating_ip_address;
}

export async function deleteFloatingIPs(client: Neutron, identity: UserIdentity, portID: string): Promise<void> {
  for (const ip of await floatingIPsOf(client, identity, portID)) await gone(neutron.deleteFloatingIP(client, ip.id));
}

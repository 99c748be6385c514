/**
 * Floating IPs as every workload makes them: on the region's external network, attached to the workload's port at
 * birth, and re-found by that port (docs/spec/upstream-region.md §Deterministic names: "floating IP found by port
 * ID"). So in an identity's project a floating IP attached to no port belongs to nobody: its port went out of band
 * (deleted by hand, or by Octavia with a load balancer deleted by hand). Allocating a replacement releases those first,
 * or each such loss would hold one more address for as long as the project lives.
 */
import * as neutron from '../../openstack/network.ts';
import type { IdentityClient } from './principals.ts';
import { gone } from './steps.ts';

/** Allocates a floating IP on `externalNetworkID` for `portID`, releasing the project's unattached ones first. */
export async function allocateFloatingIP(
  client: IdentityClient<'network'>,
  projectID: string,
  externalNetworkID: string,
  portID: string,
): Promise<neutron.FloatingIP> {
  const held = await neutron.listFloatingIPs(client, { projectID: projectID });
  for (const ip of held) if (ip.port_id === null) await gone(neutron.deleteFloatingIP(client, ip.id));
  return neutron.createFloatingIP(client, { floating_network_id: externalNetworkID, port_id: portID });
}

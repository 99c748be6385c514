/**
 * A region Network in Neutron (docs/spec/upstream-region.md §Network): network, subnet and router all named
 * `network-{id}` in the identity's project, made with the PRIVILEGED client (region credentials bound to that project)
 * because provider networks need the manager's powers there. Every step re-finds by exact name before it creates, so a
 * pass cut off anywhere converges on the next with exactly one of each and nothing leaked.
 *
 * Provider (VLAN) networks take their segmentation id from the region's VLAN allocator, which Neutron cannot do for us:
 * allocated before the network is created and kept if that create fails (handing a VLAN that failed to someone else
 * spreads the failure; docs/spec/upstream-region.md §VLAN allocator), freed only once Neutron has confirmed the network
 * is gone.
 */
import { ConflictError } from '../../../openstack/errors.ts';
import * as neutron from '../../../openstack/network.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { classify, REJECTED_REASON } from '../../provider/classify.ts';
import {
  CapacityExhaustedError,
  ProviderError,
  ResourceConsistencyError,
  ResourceKind,
  TransientError,
} from '../../provider/errors.ts';
import type { NetworkInput, NetworkRealisation } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { ExternalNetwork } from '../../provider/types.ts';
import {
  VlanConsistencyError,
  VlanContentionError,
  VlanExhaustedError,
  type VlanAllocator,
} from '../../vlan/allocator.ts';
import { networkName, routerName, subnetName } from '../names.ts';
import type { PrivilegedClient, RegionClientSet } from '../principals.ts';
import type { RealisedIdentity } from '../realised.ts';
import { gone, Steps } from '../steps.ts';
import { hostRoutes, InvalidSubnetError, planSubnet, subnetUpdate, type SubnetPlan } from './subnet.ts';
import { defined } from '../../../util/defined.ts';

export interface NetworkDeps {
  readonly clients: RegionClientSet;
  /** `Region.spec.openstack`. */
  readonly config: RegionOpenstack;
  /** Present when `network.providerNetworks.physicalNetwork` is set: networks are then VLAN provider networks. */
  readonly vlans?: VlanAllocator | undefined;
  readonly signal: AbortSignal;
}

type Neutron = PrivilegedClient<'network'>;

const INVALID_NETWORK_MESSAGE = 'the network prefix and reservations cannot be laid out';

export async function createNetwork(
  deps: NetworkDeps,
  identity: RealisedIdentity,
  network: NetworkInput,
): Promise<Outcome<NetworkRealisation>> {
  let plan: SubnetPlan;
  try {
    plan = planSubnet(network.prefix, network.reservations);
  } catch (error) {
    if (error instanceof InvalidSubnetError) return Outcome.terminal(REJECTED_REASON, INVALID_NETWORK_MESSAGE, error);
    throw error;
  }
  const client = deps.clients.privileged(identity.projectID).client('network');
  const step = new Steps(deps.signal, 'create network', ResourceKind.Network);
  try {
    const { found, vlanID } = await step.run('ensure network', () => ensureNetwork(deps, client, identity, network));
    const subnet = await step.run('ensure subnet', () => ensureSubnet(client, identity, network, found.id, plan));
    const router = await step.run('ensure router', () => ensureRouter(deps, client, identity, network));
    await step.run('ensure router interface', () => ensureRouterInterface(client, router.id, subnet.id));
    return Outcome.done({
      networkID: found.id,
      subnetID: subnet.id,
      ...defined({ vlanID, storageRange: plan.storageRange }),
    });
  } catch (error) {
    return step.fail(vlanError(error, 'create network: allocate VLAN'));
  }
}

/** Router interface → router → subnet → network → the VLAN; each step treats "already gone" as done. */
export async function deleteNetwork(
  deps: NetworkDeps,
  identity: RealisedIdentity | undefined,
  network: NetworkInput,
): Promise<Outcome<undefined>> {
  // No project, no provider resources: the identity's project is made before anything can live in it.
  if (identity === undefined) return Outcome.ok();
  const client = deps.clients.privileged(identity.projectID).client('network');
  const mine = { projectID: identity.projectID };
  const step = new Steps(deps.signal, 'delete network', ResourceKind.Network);
  try {
    const found = await step.run('find network', () =>
      neutron.findNetworkByName(client, networkName(network.id), mine),
    );
    const subnet = await step.run('find subnet', () => neutron.findSubnetByName(client, subnetName(network.id), mine));
    const router = await step.run('find router', () => neutron.findRouterByName(client, routerName(network.id), mine));
    if (router !== undefined) {
      if (subnet !== undefined && (await step.run('list router ports', () => onSubnet(client, router.id, subnet.id)))) {
        await step.run('remove router interface', () =>
          gone(neutron.removeRouterInterface(client, router.id, { subnet_id: subnet.id })),
        );
      }
      await step.run('delete router', () => gone(neutron.deleteRouter(client, router.id)));
    }
    if (subnet !== undefined) await step.run('delete subnet', () => gone(neutron.deleteSubnet(client, subnet.id)));
    if (found !== undefined) await step.run('delete network', () => gone(neutron.deleteNetwork(client, found.id)));
    // Neutron has answered the delete (or said the network is not there): no segment can still carry the VLAN.
    const { vlans } = deps;
    if (vlans !== undefined) await step.run('free VLAN', () => vlans.free(network.id));
    return Outcome.ok();
  } catch (error) {
    return step.fail(vlanError(error, 'delete network: free VLAN'));
  }
}

/**
 * The external networks the region offers (`router:external`), narrowed by `network.externalNetworks.selector`:
 * Neutron tags (all must match) and ids (an allowlist; its order decides which network a router's gateway uses).
 * `cached` answers from the inventory cache (caches.ts) instead of asking Neutron: the API's listing; a router's
 * gateway asks Neutron afresh.
 */
export async function listExternalNetworks(
  deps: NetworkDeps,
  cached?: () => Promise<readonly neutron.Network[]>,
): Promise<readonly ExternalNetwork[]> {
  const selector = deps.config.network?.externalNetworks?.selector;
  let networks: readonly neutron.Network[];
  try {
    deps.signal.throwIfAborted();
    networks =
      cached !== undefined
        ? await cached()
        : await neutron.listNetworks(deps.clients.region().client('network'), {
            routerExternal: true,
            tags: selector?.tags,
          });
  } catch (error) {
    if (deps.signal.aborted) throw error;
    const result = classify(error, { resource: ResourceKind.Network, operation: 'list external networks' });
    throw result instanceof ProviderError ? result : new TransientError('list external networks', { cause: error });
  }
  const tags = selector?.tags ?? [];
  const tagged = networks.filter((n) => tags.every((tag) => n.tags.includes(tag)));
  const ids = selector?.ids ?? [];
  const chosen = ids.length === 0 ? tagged : ids.flatMap((id) => tagged.filter((n) => n.id === id));
  return chosen.map((n) => ({ id: n.id, name: n.name }));
}

// ------------------------------------------------------------------------------------------------------- steps

async function ensureNetwork(
  deps: NetworkDeps,
  client: Neutron,
  identity: RealisedIdentity,
  network: NetworkInput,
): Promise<{ found: neutron.Network; vlanID: number | undefined }> {
  const name = networkName(network.id);
  const existing = await neutron.findNetworkByName(client, name, { projectID: identity.projectID });
  const physicalNetwork = deps.config.network?.providerNetworks?.physicalNetwork;
  if (existing !== undefined) {
    // Provider attributes are policy-gated; the allocator knows the VLAN when Neutron does not show it.
    const shown = existing['provider:network_type'] === 'vlan' ? existing['provider:segmentation_id'] : undefined;
    return { found: existing, vlanID: shown ?? (await deps.vlans?.lookup(network.id)) };
  }
  if (physicalNetwork === undefined) return { found: await neutron.createNetwork(client, { name }), vlanID: undefined };
  if (deps.vlans === undefined) {
    throw new TransientError('create network: provider networks are configured but no VLAN allocator was given', {
      resource: ResourceKind.Network,
    });
  }
  let vlan = await deps.vlans.allocate(network.id);
  for (let attempt = 1; ; attempt++) {
    try {
      // On any other failure the VLAN stays with this network: the next pass retries with the same id.
      const found = await neutron.createNetwork(client, {
        name,
        'provider:network_type': 'vlan',
        'provider:physical_network': vlan.physicalNetwork,
        'provider:segmentation_id': vlan.segmentationID,
      });
      return { found, vlanID: vlan.segmentationID };
    } catch (error) {
      // Ours was re-found absent above, so a network openregion did not make holds the id: move to the next one.
      if (!isVlanInUse(error) || attempt >= MAX_VLAN_MOVES_PER_PASS) throw error;
      vlan = await deps.vlans.reallocate(network.id, vlan.segmentationID);
    }
  }
}

/** VLAN ids moved past foreign holders in one pass before the pass gives up and retries later. */
const MAX_VLAN_MOVES_PER_PASS = 5;

const isVlanInUse = (error: unknown): boolean => error instanceof ConflictError && error.fault.type === 'VlanIdInUse';

async function ensureSubnet(
  client: Neutron,
  identity: RealisedIdentity,
  network: NetworkInput,
  networkID: string,
  plan: SubnetPlan,
): Promise<neutron.Subnet> {
  const name = subnetName(network.id);
  const existing = await neutron.findSubnetByName(client, name, {
    networkID: networkID,
    projectID: identity.projectID,
  });
  if (existing === undefined) {
    return neutron.createSubnet(client, {
      network_id: networkID,
      name,
      cidr: plan.cidr,
      ip_version: 4,
      gateway_ip: plan.gatewayIP,
      allocation_pools: [plan.allocationPool],
      dns_nameservers: network.dnsNameservers,
      host_routes: hostRoutes(network.routes),
    });
  }
  // DNS servers and routes follow the spec in place; the prefix and reservations are immutable (the CRD says so).
  const update = subnetUpdate(existing, network);
  return update === undefined ? existing : neutron.updateSubnet(client, existing.id, update);
}

async function ensureRouter(
  deps: NetworkDeps,
  client: Neutron,
  identity: RealisedIdentity,
  network: NetworkInput,
): Promise<neutron.Router> {
  const name = routerName(network.id);
  const existing = await neutron.findRouterByName(client, name, { projectID: identity.projectID });
  if (existing !== undefined) return existing;
  const [external] = await listExternalNetworks(deps);
  if (external === undefined) {
    // Only an operator can fix this (a selector or an external network); retrying recovers without a spec edit.
    throw new TransientError('create router: no external network matches the region selector', {
      resource: ResourceKind.Network,
    });
  }
  return neutron.createRouter(client, { name, external_gateway_info: { network_id: external.id } });
}

async function ensureRouterInterface(client: Neutron, routerID: string, subnetID: string): Promise<void> {
  if (await onSubnet(client, routerID, subnetID)) return;
  await neutron.addRouterInterface(client, routerID, { subnet_id: subnetID });
}

/** Whether the router already has a port on the subnet (its interface there). */
async function onSubnet(client: Neutron, routerID: string, subnetID: string): Promise<boolean> {
  const ports = await neutron.listPorts(client, { deviceID: routerID });
  return ports.some((p) => p.fixed_ips.some((ip) => ip.subnet_id === subnetID));
}

/** The VLAN allocator's failures as provider errors (anything else is left to classify). */
function vlanError(error: unknown, operation: string): unknown {
  const options = { resource: ResourceKind.Network, cause: error };
  if (error instanceof VlanConsistencyError) return new ResourceConsistencyError(operation, options);
  // Exhaustion retries until a VLAN is freed or a segment widened (ADR 0008); contention is a lost race.
  if (error instanceof VlanExhaustedError) return new CapacityExhaustedError(operation, options);
  if (error instanceof VlanContentionError) return new TransientError(operation, options);
  return error;
}

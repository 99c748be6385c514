/**
 * Neutron (v2.0; no microversions): networks, subnets, routers, ports, security groups and rules, floating IPs,
 * project quotas and tags. Request bodies use Neutron's wire names (`provider:network_type`, `router:external`) so a
 * body reads the same here as in Neutron's API reference; list filters are camelCase, mapped to wire names once.
 */
import type { Named } from './exact.ts';
import { pageStyleFor } from './pagination.ts';
import { projectQuota, resource, type Resource } from './resource.ts';
import type { ServiceClient } from './session.ts';
import { commaJoined, requestEnveloped, type QueryKeys } from './request.ts';

export type NetworkClient = ServiceClient<'network'>;

/**
 * Neutron's tag filters: `tags` matches resources carrying every tag, `tagsAny` (`tags-any`) those carrying at
 * least one. Both are sent comma-joined, so a tag containing a comma cannot be filtered on.
 */
interface TagFilter {
  readonly tags?: readonly string[] | undefined;
  readonly tagsAny?: readonly string[] | undefined;
}

const tagKeys: QueryKeys<TagFilter> = { tags: commaJoined('tags'), tagsAny: commaJoined('tags-any') };
/** The keys almost every Neutron filter shares. */
const ownedKeys = { ...tagKeys, name: 'name', projectID: 'project_id' } as const;

/** A Neutron collection (see resource.ts): lists page by `<items>_links`, updates replace fields with PUT. */
function neutron<T extends Named, F extends object, Create = never, Update = never>(
  path: string,
  envelope: string,
  keys: QueryKeys<F>,
  kind?: string,
): Resource<NetworkClient, T, F, Create, Update> {
  return resource({ path, envelope, keys, kind, style: pageStyleFor('network', `${envelope}s`) });
}

// ---------------------------------------------------------------------------------------------------- networks

export interface Network {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly status: string;
  readonly admin_state_up: boolean;
  readonly project_id: string;
  readonly subnets: readonly string[];
  readonly shared: boolean;
  readonly 'router:external': boolean;
  readonly mtu?: number;
  readonly port_security_enabled?: boolean;
  /** Provider attributes are visible to admins (and the region's privileged project clients) only. */
  readonly 'provider:network_type'?: string | null;
  readonly 'provider:physical_network'?: string | null;
  readonly 'provider:segmentation_id'?: number | null;
  readonly tags: readonly string[];
}

interface NetworkCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly admin_state_up?: boolean | undefined;
  readonly shared?: boolean | undefined;
  readonly mtu?: number | undefined;
  readonly port_security_enabled?: boolean | undefined;
  /** Provider networks: Neutron does not allocate VLAN IDs for us, so the region's VLAN allocator picks the id. */
  readonly 'provider:network_type'?: string | undefined;
  readonly 'provider:physical_network'?: string | undefined;
  readonly 'provider:segmentation_id'?: number | undefined;
  readonly 'router:external'?: boolean | undefined;
}

interface NetworkFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly projectID?: string | undefined;
  readonly routerExternal?: boolean | undefined;
}

const networkKeys: QueryKeys<NetworkFilter> = { ...ownedKeys, routerExternal: 'router:external' };

/** Networks are found by their deterministic name, `network-{id}`. */
const networks = neutron<Network, NetworkFilter, NetworkCreate>('/networks', 'network', networkKeys);
export const { create: createNetwork, get: getNetwork, list: listNetworks, delete: deleteNetwork } = networks;
export const { findByName: findNetworkByName } = networks;

// ----------------------------------------------------------------------------------------------------- subnets

interface AllocationPool {
  readonly start: string;
  readonly end: string;
}

export interface HostRoute {
  readonly destination: string;
  readonly nexthop: string;
}

export interface Subnet {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly network_id: string;
  readonly project_id: string;
  readonly cidr: string;
  readonly ip_version: 4 | 6;
  readonly gateway_ip: string | null;
  readonly enable_dhcp: boolean;
  readonly dns_nameservers: readonly string[];
  readonly allocation_pools: readonly AllocationPool[];
  readonly host_routes: readonly HostRoute[];
  readonly tags: readonly string[];
}

interface SubnetCreate {
  readonly network_id: string;
  readonly name: string;
  readonly description?: string | undefined;
  readonly cidr: string;
  readonly ip_version: 4 | 6;
  /** `null` asks for no gateway; absent lets Neutron pick the first address. */
  readonly gateway_ip?: string | null | undefined;
  readonly enable_dhcp?: boolean | undefined;
  readonly dns_nameservers?: readonly string[] | undefined;
  readonly allocation_pools?: readonly AllocationPool[] | undefined;
  readonly host_routes?: readonly HostRoute[] | undefined;
}

/** The fields the network reconciler converges in place (DNS servers and routes follow the spec). */
export interface SubnetUpdate {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly gateway_ip?: string | null | undefined;
  readonly enable_dhcp?: boolean | undefined;
  readonly dns_nameservers?: readonly string[] | undefined;
  readonly allocation_pools?: readonly AllocationPool[] | undefined;
  readonly host_routes?: readonly HostRoute[] | undefined;
}

interface SubnetFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly networkID?: string | undefined;
  readonly projectID?: string | undefined;
}

const subnetKeys: QueryKeys<SubnetFilter> = { ...ownedKeys, networkID: 'network_id' };

const subnets = neutron<Subnet, SubnetFilter, SubnetCreate, SubnetUpdate>('/subnets', 'subnet', subnetKeys);
export const { create: createSubnet, get: getSubnet, update: updateSubnet, list: listSubnets } = subnets;
export const { delete: deleteSubnet, findByName: findSubnetByName } = subnets;

// ----------------------------------------------------------------------------------------------------- routers

interface ExternalFixedIP {
  readonly subnet_id: string;
  readonly ip_address: string;
}

interface ExternalGatewayInfo {
  readonly network_id: string;
  readonly enable_snat?: boolean;
  readonly external_fixed_ips?: readonly ExternalFixedIP[];
}

export interface Router {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly status: string;
  readonly admin_state_up: boolean;
  readonly project_id: string;
  readonly external_gateway_info: ExternalGatewayInfo | null;
  readonly routes?: readonly HostRoute[];
  readonly tags: readonly string[];
}

interface RouterCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly admin_state_up?: boolean | undefined;
  /** The gateway on the region's external network, so the tenant subnet reaches the outside. */
  readonly external_gateway_info?:
    { readonly network_id: string; readonly enable_snat?: boolean | undefined } | undefined;
}

interface RouterFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly projectID?: string | undefined;
}

/** Which interface: a subnet (Neutron makes the router port) or an existing port. */
type RouterInterfaceTarget = { readonly subnet_id: string } | { readonly port_id: string };

/** Neutron's answer to an interface add or remove; `id` is the router's. */
interface RouterInterface {
  readonly id: string;
  readonly subnet_id: string;
  readonly subnet_ids: readonly string[];
  readonly port_id: string;
  readonly network_id: string;
  readonly project_id: string;
}

const routers = neutron<Router, RouterFilter, RouterCreate>('/routers', 'router', ownedKeys);
export const { create: createRouter, get: getRouter, list: listRouters, delete: deleteRouter } = routers;
export const { findByName: findRouterByName } = routers;

export async function addRouterInterface(
  neutron: NetworkClient,
  routerID: string,
  target: RouterInterfaceTarget,
): Promise<RouterInterface> {
  const { body } = await neutron.request<RouterInterface>({
    method: 'PUT',
    path: '/routers/{router_id}/add_router_interface',
    params: { router_id: routerID },
    body: target,
  });
  return body;
}

/** Deleting a network starts here: Neutron refuses to delete a subnet a router still has an interface on. */
export async function removeRouterInterface(
  neutron: NetworkClient,
  routerID: string,
  target: RouterInterfaceTarget,
): Promise<RouterInterface> {
  const { body } = await neutron.request<RouterInterface>({
    method: 'PUT',
    path: '/routers/{router_id}/remove_router_interface',
    params: { router_id: routerID },
    body: target,
  });
  return body;
}

// ------------------------------------------------------------------------------------------------------- ports

interface FixedIP {
  readonly subnet_id: string;
  readonly ip_address: string;
}

export interface AllowedAddressPair {
  /** An address or a CIDR. */
  readonly ip_address: string;
  /** Defaults to the port's own MAC. */
  readonly mac_address?: string;
}

export interface Port {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly network_id: string;
  readonly project_id: string;
  readonly device_id: string;
  readonly device_owner: string;
  readonly mac_address: string;
  readonly status: string;
  readonly admin_state_up: boolean;
  readonly fixed_ips: readonly FixedIP[];
  readonly security_groups: readonly string[];
  readonly allowed_address_pairs: readonly AllowedAddressPair[];
  readonly port_security_enabled?: boolean;
  readonly tags: readonly string[];
}

export interface PortCreate {
  readonly network_id: string;
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly admin_state_up?: boolean | undefined;
  /** Each entry may name a subnet, an address, or both. */
  readonly fixed_ips?:
    readonly { readonly subnet_id?: string | undefined; readonly ip_address?: string | undefined }[] | undefined;
  readonly security_groups?: readonly string[] | undefined;
  readonly allowed_address_pairs?:
    readonly { readonly ip_address: string; readonly mac_address?: string | undefined }[] | undefined;
  readonly port_security_enabled?: boolean | undefined;
  readonly device_id?: string | undefined;
  readonly device_owner?: string | undefined;
}

/** What a server's port converges in place: its security groups, the spec's allowed address pairs, an address. */
interface PortUpdate {
  readonly fixed_ips?: PortCreate['fixed_ips'];
  readonly security_groups?: readonly string[] | undefined;
  readonly allowed_address_pairs?:
    readonly { readonly ip_address: string; readonly mac_address?: string | undefined }[] | undefined;
}

interface PortFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly networkID?: string | undefined;
  readonly deviceID?: string | undefined;
  readonly deviceOwner?: string | undefined;
  readonly macAddress?: string | undefined;
  readonly projectID?: string | undefined;
}

const portKeys: QueryKeys<PortFilter> = {
  ...ownedKeys,
  networkID: 'network_id',
  deviceID: 'device_id',
  deviceOwner: 'device_owner',
  macAddress: 'mac_address',
};

/** updatePort: Neutron replaces each list it is given wholesale, so pass the full desired set, not a delta. */
const ports = neutron<Port, PortFilter, PortCreate, PortUpdate>('/ports', 'port', portKeys);
export const { create: createPort, get: getPort, list: listPorts, update: updatePort, delete: deletePort } = ports;

// --------------------------------------------------------------------------------------------- security groups

type Direction = 'ingress' | 'egress';
type EtherType = 'IPv4' | 'IPv6';

export interface SecurityGroupRule {
  readonly id: string;
  readonly security_group_id: string;
  readonly project_id: string;
  readonly description?: string;
  readonly direction: Direction;
  readonly ethertype: EtherType;
  /** A protocol name (`tcp`, `udp`, `icmp`, …) or number; null is any. */
  readonly protocol: string | null;
  readonly port_range_min: number | null;
  readonly port_range_max: number | null;
  readonly remote_ip_prefix: string | null;
  readonly remote_group_id: string | null;
}

export interface SecurityGroup {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly project_id: string;
  /** Neutron adds default egress-any rules to every new group. */
  readonly security_group_rules: readonly SecurityGroupRule[];
  readonly stateful?: boolean;
  readonly tags: readonly string[];
}

interface SecurityGroupCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly stateful?: boolean | undefined;
}

interface SecurityGroupFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly projectID?: string | undefined;
}

export interface SecurityGroupRuleCreate {
  readonly security_group_id: string;
  readonly direction: Direction;
  readonly ethertype?: EtherType | undefined;
  readonly protocol?: string | null | undefined;
  readonly port_range_min?: number | null | undefined;
  readonly port_range_max?: number | null | undefined;
  readonly remote_ip_prefix?: string | null | undefined;
  readonly remote_group_id?: string | null | undefined;
  readonly description?: string | undefined;
}

interface SecurityGroupRuleFilter {
  readonly securityGroupID?: string | undefined;
  readonly direction?: Direction | undefined;
}

const securityGroupRuleKeys: QueryKeys<SecurityGroupRuleFilter> = {
  securityGroupID: 'security_group_id',
  direction: 'direction',
};

/** Groups are found by their name, `securitygroup-{id}`; every project also holds a group named `default`. */
const securityGroups = neutron<SecurityGroup, SecurityGroupFilter, SecurityGroupCreate>(
  '/security-groups',
  'security_group',
  ownedKeys,
  'security group',
);
export const { create: createSecurityGroup, get: getSecurityGroup, list: listSecurityGroups } = securityGroups;
export const { delete: deleteSecurityGroup, findByName: findSecurityGroupByName } = securityGroups;

const securityGroupRules = neutron<SecurityGroupRule, SecurityGroupRuleFilter, SecurityGroupRuleCreate>(
  '/security-group-rules',
  'security_group_rule',
  securityGroupRuleKeys,
);
export const { create: createSecurityGroupRule, list: listSecurityGroupRules } = securityGroupRules;
export const { delete: deleteSecurityGroupRule } = securityGroupRules;

// ------------------------------------------------------------------------------------------------ floating IPs

export interface FloatingIP {
  readonly id: string;
  readonly floating_ip_address: string;
  readonly floating_network_id: string;
  readonly port_id: string | null;
  readonly fixed_ip_address: string | null;
  readonly router_id: string | null;
  readonly status: string;
  readonly project_id: string;
  readonly description?: string;
  readonly tags: readonly string[];
}

interface FloatingIPCreate {
  readonly floating_network_id: string;
  /** Associates on create; a server's or a load balancer VIP's port. */
  readonly port_id?: string | undefined;
  readonly fixed_ip_address?: string | undefined;
  readonly subnet_id?: string | undefined;
  readonly description?: string | undefined;
}

interface FloatingIPUpdate {
  /** A port to associate with, or null to disassociate. */
  readonly port_id: string | null;
  readonly fixed_ip_address?: string | undefined;
}

interface FloatingIPFilter extends TagFilter {
  /** Floating IPs are re-found by the port they are attached to (a server's port, a load balancer's VIP port). */
  readonly portID?: string | undefined;
  readonly floatingIPAddress?: string | undefined;
  readonly floatingNetworkID?: string | undefined;
  readonly projectID?: string | undefined;
}

const floatingIPKeys: QueryKeys<FloatingIPFilter> = {
  ...tagKeys,
  portID: 'port_id',
  floatingIPAddress: 'floating_ip_address',
  floatingNetworkID: 'floating_network_id',
  projectID: 'project_id',
};

const floatingIPs = neutron<FloatingIP, FloatingIPFilter, FloatingIPCreate, FloatingIPUpdate>(
  '/floatingips',
  'floatingip',
  floatingIPKeys,
);
export const { create: createFloatingIP, get: getFloatingIP, list: listFloatingIPs } = floatingIPs;
export const { update: updateFloatingIP, delete: deleteFloatingIP } = floatingIPs;

// ------------------------------------------------------------------------------------------------------ quotas

/** A project's Neutron quota; -1 is unlimited. */
interface NetworkQuota {
  readonly network: number;
  readonly subnet: number;
  readonly subnetpool: number;
  readonly port: number;
  readonly router: number;
  readonly floatingip: number;
  readonly security_group: number;
  readonly security_group_rule: number;
  readonly rbac_policy: number;
}

type NetworkQuotaUpdate = { readonly [K in keyof NetworkQuota]?: number | undefined };

/** What identity creation applies: every Neutron quota the region sets, unlimited (-1). */
export const unlimitedNetworkQuota: NetworkQuota = {
  network: -1,
  subnet: -1,
  subnetpool: -1,
  port: -1,
  router: -1,
  floatingip: -1,
  security_group: -1,
  security_group_rule: -1,
  rbac_policy: -1,
};

/** Neutron answers a delete 204. */
const quotas = projectQuota<NetworkClient, NetworkQuota, NetworkQuotaUpdate>('/quotas', 'quota');
export const { get: getNetworkQuota, update: updateNetworkQuota, delete: deleteNetworkQuota } = quotas;

// -------------------------------------------------------------------------------------------------------- tags

/** The resource collections whose tags openregion manages (Neutron's standard-attr tag extension). */
export type TaggableResource = 'networks' | 'subnets' | 'routers' | 'ports' | 'security-groups' | 'floatingips';

/** Literal templates per collection, so each tag request is named by its real path in errors and metrics. */
const tagPaths = {
  networks: { all: '/networks/{id}/tags', one: '/networks/{id}/tags/{tag}' },
  subnets: { all: '/subnets/{id}/tags', one: '/subnets/{id}/tags/{tag}' },
  routers: { all: '/routers/{id}/tags', one: '/routers/{id}/tags/{tag}' },
  ports: { all: '/ports/{id}/tags', one: '/ports/{id}/tags/{tag}' },
  'security-groups': { all: '/security-groups/{id}/tags', one: '/security-groups/{id}/tags/{tag}' },
  floatingips: { all: '/floatingips/{id}/tags', one: '/floatingips/{id}/tags/{tag}' },
} as const satisfies Record<TaggableResource, { readonly all: string; readonly one: string }>;

/** Sets the resource's tags to exactly `tags`; returns the tags Neutron now holds. */
export function replaceTags(
  neutron: NetworkClient,
  resource: TaggableResource,
  id: string,
  tags: readonly string[],
): Promise<readonly string[]> {
  return requestEnveloped<readonly string[]>(neutron, 'tags', {
    method: 'PUT',
    path: tagPaths[resource].all,
    params: { id },
    body: { tags },
  });
}

/** Adds one tag; adding a tag the resource already has succeeds. */
export async function addTag(
  neutron: NetworkClient,
  resource: TaggableResource,
  id: string,
  tag: string,
): Promise<void> {
  await neutron.request({ method: 'PUT', path: tagPaths[resource].one, params: { id, tag } });
}

/** Removes one tag; Neutron answers 404 when the resource does not carry it. */
export async function deleteTag(
  neutron: NetworkClient,
  resource: TaggableResource,
  id: string,
  tag: string,
): Promise<void> {
  await neutron.request({ method: 'DELETE', path: tagPaths[resource].one, params: { id, tag } });
}

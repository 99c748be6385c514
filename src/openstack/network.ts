/**
 * Neutron (v2.0; no microversions): networks, subnets, routers, ports, security groups and rules, floating IPs,
 * project quotas and tags. Request and filter shapes use Neutron's wire names (`provider:network_type`,
 * `router:external`, `tags-any`) so a body reads the same here as in Neutron's API reference.
 */
import { exactlyNamed } from './exact.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { Query, ServiceClient } from './session.ts';

export type NetworkClient = ServiceClient<'network'>;

/**
 * Neutron's tag filters: `tags` matches resources carrying every tag, `tags-any` those carrying at least one.
 * Both are sent comma-joined, so a tag containing a comma cannot be filtered on.
 */
export interface TagFilter {
  readonly tags?: readonly string[] | undefined;
  readonly 'tags-any'?: readonly string[] | undefined;
}

function tagQuery(filter: TagFilter): Query {
  return {
    tags: joined(filter.tags),
    'tags-any': joined(filter['tags-any']),
  };
}

function joined(values: readonly string[] | undefined): string | undefined {
  return values === undefined || values.length === 0 ? undefined : values.join(',');
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

export interface NetworkCreate {
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

export interface NetworkFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly project_id?: string | undefined;
  readonly 'router:external'?: boolean | undefined;
}

export async function createNetwork(neutron: NetworkClient, network: NetworkCreate): Promise<Network> {
  const { body } = await neutron.request<{ network: Network }>({
    method: 'POST',
    path: '/networks',
    body: { network },
  });
  return body.network;
}

export async function getNetwork(neutron: NetworkClient, networkId: string): Promise<Network> {
  const { body } = await neutron.request<{ network: Network }>({
    method: 'GET',
    path: '/networks/{network_id}',
    params: { network_id: networkId },
  });
  return body.network;
}

export function listNetworks(
  neutron: NetworkClient,
  filter: NetworkFilter = {},
  options?: ListOptions,
): Promise<Network[]> {
  return listAll<Network>(
    neutron,
    {
      method: 'GET',
      path: '/networks',
      query: {
        name: filter.name,
        project_id: filter.project_id,
        'router:external': filter['router:external'],
        ...tagQuery(filter),
      },
    },
    pageStyleFor('network', 'networks'),
    options,
  );
}

export async function deleteNetwork(neutron: NetworkClient, networkId: string): Promise<void> {
  await neutron.request({ method: 'DELETE', path: '/networks/{network_id}', params: { network_id: networkId } });
}

/** The network named exactly `name` (the deterministic `network-{id}`), or undefined; duplicates throw. */
export async function findNetworkByName(
  neutron: NetworkClient,
  name: string,
  filter: Omit<NetworkFilter, 'name'> = {},
): Promise<Network | undefined> {
  return exactlyNamed(await listNetworks(neutron, { ...filter, name }), name, 'network');
}

// ----------------------------------------------------------------------------------------------------- subnets

export interface AllocationPool {
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

export interface SubnetCreate {
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

export interface SubnetFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly network_id?: string | undefined;
  readonly project_id?: string | undefined;
}

export async function createSubnet(neutron: NetworkClient, subnet: SubnetCreate): Promise<Subnet> {
  const { body } = await neutron.request<{ subnet: Subnet }>({ method: 'POST', path: '/subnets', body: { subnet } });
  return body.subnet;
}

export async function getSubnet(neutron: NetworkClient, subnetId: string): Promise<Subnet> {
  const { body } = await neutron.request<{ subnet: Subnet }>({
    method: 'GET',
    path: '/subnets/{subnet_id}',
    params: { subnet_id: subnetId },
  });
  return body.subnet;
}

export async function updateSubnet(neutron: NetworkClient, subnetId: string, subnet: SubnetUpdate): Promise<Subnet> {
  const { body } = await neutron.request<{ subnet: Subnet }>({
    method: 'PUT',
    path: '/subnets/{subnet_id}',
    params: { subnet_id: subnetId },
    body: { subnet },
  });
  return body.subnet;
}

export function listSubnets(
  neutron: NetworkClient,
  filter: SubnetFilter = {},
  options?: ListOptions,
): Promise<Subnet[]> {
  return listAll<Subnet>(
    neutron,
    {
      method: 'GET',
      path: '/subnets',
      query: { name: filter.name, network_id: filter.network_id, project_id: filter.project_id, ...tagQuery(filter) },
    },
    pageStyleFor('network', 'subnets'),
    options,
  );
}

export async function deleteSubnet(neutron: NetworkClient, subnetId: string): Promise<void> {
  await neutron.request({ method: 'DELETE', path: '/subnets/{subnet_id}', params: { subnet_id: subnetId } });
}

export async function findSubnetByName(
  neutron: NetworkClient,
  name: string,
  filter: Omit<SubnetFilter, 'name'> = {},
): Promise<Subnet | undefined> {
  return exactlyNamed(await listSubnets(neutron, { ...filter, name }), name, 'subnet');
}

// ----------------------------------------------------------------------------------------------------- routers

export interface ExternalFixedIp {
  readonly subnet_id: string;
  readonly ip_address: string;
}

export interface ExternalGatewayInfo {
  readonly network_id: string;
  readonly enable_snat?: boolean;
  readonly external_fixed_ips?: readonly ExternalFixedIp[];
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

export interface RouterCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly admin_state_up?: boolean | undefined;
  /** The gateway on the region's external network, so the tenant subnet reaches the outside. */
  readonly external_gateway_info?:
    { readonly network_id: string; readonly enable_snat?: boolean | undefined } | undefined;
}

export interface RouterFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly project_id?: string | undefined;
}

/** Which interface: a subnet (Neutron makes the router port) or an existing port. */
export type RouterInterfaceTarget = { readonly subnet_id: string } | { readonly port_id: string };

/** Neutron's answer to an interface add or remove; `id` is the router's. */
export interface RouterInterface {
  readonly id: string;
  readonly subnet_id: string;
  readonly subnet_ids: readonly string[];
  readonly port_id: string;
  readonly network_id: string;
  readonly project_id: string;
}

export async function createRouter(neutron: NetworkClient, router: RouterCreate): Promise<Router> {
  const { body } = await neutron.request<{ router: Router }>({ method: 'POST', path: '/routers', body: { router } });
  return body.router;
}

export async function getRouter(neutron: NetworkClient, routerId: string): Promise<Router> {
  const { body } = await neutron.request<{ router: Router }>({
    method: 'GET',
    path: '/routers/{router_id}',
    params: { router_id: routerId },
  });
  return body.router;
}

export function listRouters(
  neutron: NetworkClient,
  filter: RouterFilter = {},
  options?: ListOptions,
): Promise<Router[]> {
  return listAll<Router>(
    neutron,
    {
      method: 'GET',
      path: '/routers',
      query: { name: filter.name, project_id: filter.project_id, ...tagQuery(filter) },
    },
    pageStyleFor('network', 'routers'),
    options,
  );
}

export async function deleteRouter(neutron: NetworkClient, routerId: string): Promise<void> {
  await neutron.request({ method: 'DELETE', path: '/routers/{router_id}', params: { router_id: routerId } });
}

export async function findRouterByName(
  neutron: NetworkClient,
  name: string,
  filter: Omit<RouterFilter, 'name'> = {},
): Promise<Router | undefined> {
  return exactlyNamed(await listRouters(neutron, { ...filter, name }), name, 'router');
}

export async function addRouterInterface(
  neutron: NetworkClient,
  routerId: string,
  target: RouterInterfaceTarget,
): Promise<RouterInterface> {
  const { body } = await neutron.request<RouterInterface>({
    method: 'PUT',
    path: '/routers/{router_id}/add_router_interface',
    params: { router_id: routerId },
    body: target,
  });
  return body;
}

/** Deleting a network starts here: Neutron refuses to delete a subnet a router still has an interface on. */
export async function removeRouterInterface(
  neutron: NetworkClient,
  routerId: string,
  target: RouterInterfaceTarget,
): Promise<RouterInterface> {
  const { body } = await neutron.request<RouterInterface>({
    method: 'PUT',
    path: '/routers/{router_id}/remove_router_interface',
    params: { router_id: routerId },
    body: target,
  });
  return body;
}

// ------------------------------------------------------------------------------------------------------- ports

export interface FixedIp {
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
  readonly fixed_ips: readonly FixedIp[];
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

/** What a server's port converges in place: its security groups and the spec's allowed address pairs. */
export interface PortUpdate {
  readonly security_groups?: readonly string[] | undefined;
  readonly allowed_address_pairs?:
    readonly { readonly ip_address: string; readonly mac_address?: string | undefined }[] | undefined;
}

export interface PortFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly network_id?: string | undefined;
  readonly device_id?: string | undefined;
  readonly device_owner?: string | undefined;
  readonly mac_address?: string | undefined;
  readonly project_id?: string | undefined;
}

export async function createPort(neutron: NetworkClient, port: PortCreate): Promise<Port> {
  const { body } = await neutron.request<{ port: Port }>({ method: 'POST', path: '/ports', body: { port } });
  return body.port;
}

export async function getPort(neutron: NetworkClient, portId: string): Promise<Port> {
  const { body } = await neutron.request<{ port: Port }>({
    method: 'GET',
    path: '/ports/{port_id}',
    params: { port_id: portId },
  });
  return body.port;
}

export function listPorts(neutron: NetworkClient, filter: PortFilter = {}, options?: ListOptions): Promise<Port[]> {
  return listAll<Port>(
    neutron,
    {
      method: 'GET',
      path: '/ports',
      query: {
        name: filter.name,
        network_id: filter.network_id,
        device_id: filter.device_id,
        device_owner: filter.device_owner,
        mac_address: filter.mac_address,
        project_id: filter.project_id,
        ...tagQuery(filter),
      },
    },
    pageStyleFor('network', 'ports'),
    options,
  );
}

/** Neutron replaces each list it is given wholesale: pass the full desired set, not a delta. */
export async function updatePort(neutron: NetworkClient, portId: string, port: PortUpdate): Promise<Port> {
  const { body } = await neutron.request<{ port: Port }>({
    method: 'PUT',
    path: '/ports/{port_id}',
    params: { port_id: portId },
    body: { port },
  });
  return body.port;
}

export async function deletePort(neutron: NetworkClient, portId: string): Promise<void> {
  await neutron.request({ method: 'DELETE', path: '/ports/{port_id}', params: { port_id: portId } });
}

// --------------------------------------------------------------------------------------------- security groups

export type Direction = 'ingress' | 'egress';
export type EtherType = 'IPv4' | 'IPv6';

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

export interface SecurityGroupCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly stateful?: boolean | undefined;
}

export interface SecurityGroupFilter extends TagFilter {
  readonly name?: string | undefined;
  readonly project_id?: string | undefined;
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

export interface SecurityGroupRuleFilter {
  readonly security_group_id?: string | undefined;
  readonly direction?: Direction | undefined;
}

export async function createSecurityGroup(neutron: NetworkClient, group: SecurityGroupCreate): Promise<SecurityGroup> {
  const { body } = await neutron.request<{ security_group: SecurityGroup }>({
    method: 'POST',
    path: '/security-groups',
    body: { security_group: group },
  });
  return body.security_group;
}

export async function getSecurityGroup(neutron: NetworkClient, securityGroupId: string): Promise<SecurityGroup> {
  const { body } = await neutron.request<{ security_group: SecurityGroup }>({
    method: 'GET',
    path: '/security-groups/{security_group_id}',
    params: { security_group_id: securityGroupId },
  });
  return body.security_group;
}

export function listSecurityGroups(
  neutron: NetworkClient,
  filter: SecurityGroupFilter = {},
  options?: ListOptions,
): Promise<SecurityGroup[]> {
  return listAll<SecurityGroup>(
    neutron,
    {
      method: 'GET',
      path: '/security-groups',
      query: { name: filter.name, project_id: filter.project_id, ...tagQuery(filter) },
    },
    pageStyleFor('network', 'security_groups'),
    options,
  );
}

export async function deleteSecurityGroup(neutron: NetworkClient, securityGroupId: string): Promise<void> {
  await neutron.request({
    method: 'DELETE',
    path: '/security-groups/{security_group_id}',
    params: { security_group_id: securityGroupId },
  });
}

/** The group named exactly `name` (`securitygroup-{id}`); every project also holds a group named `default`. */
export async function findSecurityGroupByName(
  neutron: NetworkClient,
  name: string,
  filter: Omit<SecurityGroupFilter, 'name'> = {},
): Promise<SecurityGroup | undefined> {
  return exactlyNamed(await listSecurityGroups(neutron, { ...filter, name }), name, 'security group');
}

export async function createSecurityGroupRule(
  neutron: NetworkClient,
  rule: SecurityGroupRuleCreate,
): Promise<SecurityGroupRule> {
  const { body } = await neutron.request<{ security_group_rule: SecurityGroupRule }>({
    method: 'POST',
    path: '/security-group-rules',
    body: { security_group_rule: rule },
  });
  return body.security_group_rule;
}

export function listSecurityGroupRules(
  neutron: NetworkClient,
  filter: SecurityGroupRuleFilter = {},
  options?: ListOptions,
): Promise<SecurityGroupRule[]> {
  return listAll<SecurityGroupRule>(
    neutron,
    {
      method: 'GET',
      path: '/security-group-rules',
      query: { security_group_id: filter.security_group_id, direction: filter.direction },
    },
    pageStyleFor('network', 'security_group_rules'),
    options,
  );
}

export async function deleteSecurityGroupRule(neutron: NetworkClient, ruleId: string): Promise<void> {
  await neutron.request({
    method: 'DELETE',
    path: '/security-group-rules/{security_group_rule_id}',
    params: { security_group_rule_id: ruleId },
  });
}

// ------------------------------------------------------------------------------------------------ floating IPs

export interface FloatingIp {
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

export interface FloatingIpCreate {
  readonly floating_network_id: string;
  /** Associates on create; a server's or a load balancer VIP's port. */
  readonly port_id?: string | undefined;
  readonly fixed_ip_address?: string | undefined;
  readonly subnet_id?: string | undefined;
  readonly description?: string | undefined;
}

export interface FloatingIpUpdate {
  /** A port to associate with, or null to disassociate. */
  readonly port_id: string | null;
  readonly fixed_ip_address?: string | undefined;
}

export interface FloatingIpFilter extends TagFilter {
  /** Floating IPs are re-found by the port they are attached to (a server's port, a load balancer's VIP port). */
  readonly port_id?: string | undefined;
  readonly floating_ip_address?: string | undefined;
  readonly floating_network_id?: string | undefined;
  readonly project_id?: string | undefined;
}

export async function createFloatingIp(neutron: NetworkClient, floatingip: FloatingIpCreate): Promise<FloatingIp> {
  const { body } = await neutron.request<{ floatingip: FloatingIp }>({
    method: 'POST',
    path: '/floatingips',
    body: { floatingip },
  });
  return body.floatingip;
}

export async function getFloatingIp(neutron: NetworkClient, floatingIpId: string): Promise<FloatingIp> {
  const { body } = await neutron.request<{ floatingip: FloatingIp }>({
    method: 'GET',
    path: '/floatingips/{floatingip_id}',
    params: { floatingip_id: floatingIpId },
  });
  return body.floatingip;
}

export function listFloatingIps(
  neutron: NetworkClient,
  filter: FloatingIpFilter = {},
  options?: ListOptions,
): Promise<FloatingIp[]> {
  return listAll<FloatingIp>(
    neutron,
    {
      method: 'GET',
      path: '/floatingips',
      query: {
        port_id: filter.port_id,
        floating_ip_address: filter.floating_ip_address,
        floating_network_id: filter.floating_network_id,
        project_id: filter.project_id,
        ...tagQuery(filter),
      },
    },
    pageStyleFor('network', 'floatingips'),
    options,
  );
}

export async function updateFloatingIp(
  neutron: NetworkClient,
  floatingIpId: string,
  floatingip: FloatingIpUpdate,
): Promise<FloatingIp> {
  const { body } = await neutron.request<{ floatingip: FloatingIp }>({
    method: 'PUT',
    path: '/floatingips/{floatingip_id}',
    params: { floatingip_id: floatingIpId },
    body: { floatingip },
  });
  return body.floatingip;
}

export async function deleteFloatingIp(neutron: NetworkClient, floatingIpId: string): Promise<void> {
  await neutron.request({
    method: 'DELETE',
    path: '/floatingips/{floatingip_id}',
    params: { floatingip_id: floatingIpId },
  });
}

// ------------------------------------------------------------------------------------------------------ quotas

/** A project's Neutron quota; -1 is unlimited. */
export interface NetworkQuota {
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

export type NetworkQuotaUpdate = { readonly [K in keyof NetworkQuota]?: number | undefined };

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

export async function getNetworkQuota(neutron: NetworkClient, projectId: string): Promise<NetworkQuota> {
  const { body } = await neutron.request<{ quota: NetworkQuota }>({
    method: 'GET',
    path: '/quotas/{project_id}',
    params: { project_id: projectId },
  });
  return body.quota;
}

export async function updateNetworkQuota(
  neutron: NetworkClient,
  projectId: string,
  quota: NetworkQuotaUpdate,
): Promise<NetworkQuota> {
  const { body } = await neutron.request<{ quota: NetworkQuota }>({
    method: 'PUT',
    path: '/quotas/{project_id}',
    params: { project_id: projectId },
    body: { quota },
  });
  return body.quota;
}

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
export async function replaceTags(
  neutron: NetworkClient,
  resource: TaggableResource,
  id: string,
  tags: readonly string[],
): Promise<readonly string[]> {
  const { body } = await neutron.request<{ tags: readonly string[] }>({
    method: 'PUT',
    path: tagPaths[resource].all,
    params: { id },
    body: { tags },
  });
  return body.tags;
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

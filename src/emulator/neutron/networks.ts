/**
 * Networks (ML2 with vlan `physnet1:100:200`, flat `public` and vxlan tenant networks, as the dev cloud runs it)
 * and subnets (IPv4 IPAM; an overlapping CIDR on one network is 400 InvalidInput).
 */
import { hasRole, isAdmin, type AuthContext } from '../auth.ts';
import { json, noContent } from '../http.ts';
import { arrayAt, booleanAt, isObject, numberAt, objectAt, stringAt, stringsOf, type JsonObject } from '../json.ts';
import {
  badRequest,
  fault,
  listAnswer,
  newStandard,
  notFound,
  ownerOf,
  policy,
  quotaCheck,
  standardView,
  touch,
  type NeutronApi,
} from './api.ts';
import { contains, formatIPv4, formatPrefix, overlaps, parseIPv4 } from '../../util/ipv4.ts';
import { defaultPools, parseCidr } from './ip.ts';
import type { NHostRoute, NNetwork, NSubnet } from './state.ts';

/** The physical networks ML2 knows, and the VLAN range tenants would be given on each. */
const PHYSNETS: Readonly<Record<string, 'vlan' | 'flat'>> = { physnet1: 'vlan', public: 'flat' };
const PROVIDER_KEYS = ['provider:network_type', 'provider:physical_network', 'provider:segmentation_id'] as const;

/**
 * deploy/policies/neutron.yaml `is_project_manager_owner`: a manager of the network's own project may set and read
 * its provider attributes (the region user is manager in every project of its domain, inherited).
 */
const managesProject = (auth: AuthContext, projectID: string): boolean =>
  hasRole(auth, 'manager') && auth.projectId === projectID;

/** Networks the caller may see: its own, shared ones and external ones (Neutron's `external` rule). */
export const networkVisible = (auth: AuthContext, n: NNetwork): boolean =>
  isAdmin(auth) || n.projectId === auth.projectId || n.shared || n.external;

export function networkFor(api: NeutronApi, auth: AuthContext, id: string): NNetwork {
  const network = api.state.networks.get(id);
  if (!network || !networkVisible(auth, network)) {
    throw notFound('NetworkNotFound', `Network ${id} could not be found.`);
  }
  return network;
}

export function subnetFor(api: NeutronApi, auth: AuthContext, id: string): NSubnet {
  const subnet = api.state.subnets.get(id);
  const network = subnet && api.state.networks.get(subnet.networkId);
  if (!subnet || !network || (!networkVisible(auth, network) && subnet.projectId !== auth.projectId)) {
    throw notFound('SubnetNotFound', `Subnet ${id} could not be found.`);
  }
  return subnet;
}

function networkView(api: NeutronApi, n: NNetwork, auth: AuthContext): JsonObject {
  const view: JsonObject = {
    ...standardView(n),
    admin_state_up: n.adminStateUp,
    mtu: n.mtu,
    status: 'ACTIVE',
    subnets: [...api.state.subnets.values()].filter((s) => s.networkId === n.id).map((s) => s.id),
    shared: n.shared,
    availability_zone_hints: [],
    availability_zones: [],
    ipv4_address_scope: null,
    ipv6_address_scope: null,
    'router:external': n.external,
    port_security_enabled: n.portSecurity,
    is_default: false,
  };
  if (isAdmin(auth) || managesProject(auth, n.projectId)) {
    view['provider:network_type'] = n.networkType;
    view['provider:physical_network'] = n.physicalNetwork;
    view['provider:segmentation_id'] = n.segmentationId;
  }
  return view;
}

function subnetView(s: NSubnet): JsonObject {
  return {
    ...standardView(s),
    network_id: s.networkId,
    ip_version: 4,
    subnetpool_id: null,
    enable_dhcp: s.enableDhcp,
    ipv6_ra_mode: null,
    ipv6_address_mode: null,
    gateway_ip: s.gatewayIp,
    cidr: s.cidr,
    allocation_pools: s.allocationPools.map((p) => ({ ...p })),
    host_routes: s.hostRoutes.map((r) => ({ ...r })),
    dns_nameservers: [...s.dnsNameservers],
    service_types: [],
  };
}

/** The segment a new network gets: the requested provider segment (admin only), or the next free VXLAN id. */
function segmentOf(
  api: NeutronApi,
  body: JsonObject,
): Pick<NNetwork, 'networkType' | 'physicalNetwork' | 'segmentationId'> {
  const type = stringAt(body, 'provider:network_type');
  const physnet = stringAt(body, 'provider:physical_network') ?? null;
  const segment = numberAt(body, 'provider:segmentation_id') ?? null;
  const taken = (t: string, p: string | null, id: number | null) =>
    [...api.state.networks.values()].some(
      (n) => n.networkType === t && n.physicalNetwork === p && (id === null || n.segmentationId === id),
    );
  if (type === undefined || type === 'vxlan') {
    let vni = 1;
    while (taken('vxlan', null, vni)) vni++;
    return { networkType: 'vxlan', physicalNetwork: null, segmentationId: segment ?? vni };
  }
  if (type !== 'vlan' && type !== 'flat') throw badRequest(`network_type value '${type}' not supported.`);
  if (physnet === null || PHYSNETS[physnet] === undefined) {
    throw badRequest(`physical_network '${physnet ?? ''}' unknown for ${type} provider network.`);
  }
  if (type === 'flat') {
    if (taken('flat', physnet, null)) {
      throw fault(409, 'FlatNetworkInUse', `Unable to create the flat network. Physical network ${physnet} is in use.`);
    }
    return { networkType: 'flat', physicalNetwork: physnet, segmentationId: null };
  }
  let vlan = segment;
  if (vlan === null) {
    vlan = 100;
    while (vlan <= 200 && taken('vlan', physnet, vlan)) vlan++;
    if (vlan > 200)
      throw fault(
        503,
        'NoNetworkAvailable',
        'Unable to create the network. No tenant network is available for allocation.',
      );
  }
  if (!Number.isInteger(vlan) || vlan < 1 || vlan > 4094) {
    throw badRequest(`segmentation_id out of range (1 through 4094)`);
  }
  if (taken('vlan', physnet, vlan)) {
    throw fault(
      409,
      'VlanIdInUse',
      `Unable to create the network. The VLAN ${String(vlan)} on physical network ${physnet} is in use.`,
    );
  }
  return { networkType: 'vlan', physicalNetwork: physnet, segmentationId: vlan };
}

export function registerNetworks(api: NeutronApi): void {
  const { state } = api;
  api.route('GET', '/networks', (req, auth) =>
    listAnswer(
      api,
      req,
      'networks',
      [...state.networks.values()].filter((n) => networkVisible(auth, n)),
      (n) => networkView(api, n, auth),
    ),
  );
  api.route('GET', '/networks/{network_id}', (req, auth) =>
    json({ network: networkView(api, networkFor(api, auth, req.params.network_id ?? ''), auth) }),
  );
  api.route('POST', '/networks', (req, auth) => {
    const body = objectAt(req.body, 'network');
    if (!body) throw fault(400, 'BadRequest', 'Bad network request: no network in the body.');
    const provider = PROVIDER_KEYS.filter((k) => k in body);
    if (!isAdmin(auth) && provider.length > 0 && !managesProject(auth, ownerOf(auth, body))) {
      throw policy(provider.reduce((rule, k) => `(${rule} and rule:create_network:${k})`, 'rule:create_network'));
    }
    if (!isAdmin(auth) && 'router:external' in body)
      throw policy('(rule:create_network and rule:create_network:router:external)');
    if (!isAdmin(auth) && booleanAt(body, 'shared') === true)
      throw policy('(rule:create_network and rule:create_network:shared)');
    const projectID = ownerOf(auth, body);
    quotaCheck(api, projectID, 'network', [...state.networks.values()].filter((n) => n.projectId === projectID).length);
    const segment = segmentOf(api, body);
    const network: NNetwork = {
      ...newStandard(api, projectID, body, 1),
      adminStateUp: booleanAt(body, 'admin_state_up') ?? true,
      shared: booleanAt(body, 'shared') ?? false,
      external: booleanAt(body, 'router:external') ?? false,
      mtu: numberAt(body, 'mtu') ?? (segment.networkType === 'vxlan' ? 1450 : 1500),
      portSecurity: booleanAt(body, 'port_security_enabled') ?? true,
      ...segment,
    };
    state.networks.set(network.id, network);
    return json({ network: networkView(api, network, auth) }, 201);
  });
  api.route('PUT', '/networks/{network_id}', (req, auth) => {
    const network = networkFor(api, auth, req.params.network_id ?? '');
    if (!isAdmin(auth) && network.projectId !== auth.projectId) throw policy('rule:update_network');
    const body = objectAt(req.body, 'network') ?? {};
    if (PROVIDER_KEYS.some((k) => k in body)) throw badRequest('Plugin does not support updating provider attributes.');
    network.name = stringAt(body, 'name') ?? network.name;
    network.description = stringAt(body, 'description') ?? network.description;
    network.adminStateUp = booleanAt(body, 'admin_state_up') ?? network.adminStateUp;
    network.mtu = numberAt(body, 'mtu') ?? network.mtu;
    network.portSecurity = booleanAt(body, 'port_security_enabled') ?? network.portSecurity;
    if (isAdmin(auth)) {
      network.shared = booleanAt(body, 'shared') ?? network.shared;
      network.external = booleanAt(body, 'router:external') ?? network.external;
    }
    touch(api, network);
    return json({ network: networkView(api, network, auth) });
  });
  api.route('DELETE', '/networks/{network_id}', (req, auth) => {
    const network = networkFor(api, auth, req.params.network_id ?? '');
    if (!isAdmin(auth) && network.projectId !== auth.projectId) throw policy('rule:delete_network');
    const inUse = [...state.ports.values()].filter(
      (p) => p.networkId === network.id && !p.deviceOwner.startsWith('network:dhcp'),
    );
    if (inUse.length > 0) {
      throw fault(
        409,
        'NetworkInUse',
        `Unable to complete operation on network ${network.id}. There are one or more ports still in use on the network, id for these ports is: ${inUse.map((p) => p.id).join(',')}.`,
      );
    }
    for (const s of [...state.subnets.values()]) if (s.networkId === network.id) state.subnets.delete(s.id);
    state.networks.delete(network.id);
    return noContent();
  });
  registerSubnets(api);
}

function hostRoutes(value: unknown[] | undefined): NHostRoute[] | undefined {
  if (value === undefined) return undefined;
  return value
    .filter(isObject)
    .map((r) => ({ destination: stringAt(r, 'destination') ?? '', nexthop: stringAt(r, 'nexthop') ?? '' }));
}

function registerSubnets(api: NeutronApi): void {
  const { state } = api;
  api.route('GET', '/subnets', (req, auth) =>
    listAnswer(
      api,
      req,
      'subnets',
      [...state.subnets.values()].filter((s) => {
        const n = state.networks.get(s.networkId);
        return isAdmin(auth) || s.projectId === auth.projectId || n?.shared === true;
      }),
      subnetView,
    ),
  );
  api.route('GET', '/subnets/{subnet_id}', (req, auth) =>
    json({ subnet: subnetView(subnetFor(api, auth, req.params.subnet_id ?? '')) }),
  );
  api.route('POST', '/subnets', (req, auth) => {
    const body = objectAt(req.body, 'subnet');
    if (!body) throw fault(400, 'BadRequest', 'Bad subnet request: no subnet in the body.');
    const network = networkFor(api, auth, stringAt(body, 'network_id') ?? '');
    if (!isAdmin(auth) && network.projectId !== auth.projectId) throw policy('rule:create_subnet');
    if (numberAt(body, 'ip_version') !== 4) throw badRequest('the emulator offers IPv4 subnets only.');
    const cidrText = stringAt(body, 'cidr') ?? '';
    const cidr = parseCidr(cidrText);
    if (!cidr) throw badRequest(`'${cidrText}' is not a valid IP subnet.`);
    const clash = [...state.subnets.values()].find((s) => {
      const other = parseCidr(s.cidr);
      return s.networkId === network.id && other !== undefined && overlaps(cidr, other);
    });
    if (clash) {
      throw badRequest(
        `Requested subnet with cidr: ${formatPrefix(cidr)} for network: ${network.id} overlaps with another subnet.`,
      );
    }
    const projectID = ownerOf(auth, body);
    quotaCheck(api, projectID, 'subnet', [...state.subnets.values()].filter((s) => s.projectId === projectID).length);
    const gatewayText =
      'gateway_ip' in body ? (body.gateway_ip === null ? null : stringAt(body, 'gateway_ip')) : undefined;
    const gateway =
      gatewayText === undefined ? cidr.base + 1 : gatewayText === null ? undefined : parseIPv4(gatewayText);
    if (gatewayText && (gateway === undefined || !contains(cidr, gateway))) {
      throw badRequest(`Gateway IP ${gatewayText} conflicts with the subnet ${formatPrefix(cidr)}.`);
    }
    const pools = arrayAt(body, 'allocation_pools');
    const subnet: NSubnet = {
      ...newStandard(api, projectID, body, 0),
      networkId: network.id,
      cidr: formatPrefix(cidr),
      gatewayIp: gateway === undefined ? null : (gatewayText ?? formatIPv4(cidr.base + 1)),
      enableDhcp: booleanAt(body, 'enable_dhcp') ?? true,
      dnsNameservers: stringsOf(arrayAt(body, 'dns_nameservers')),
      allocationPools:
        pools === undefined
          ? defaultPools(cidr, gateway)
          : pools.filter(isObject).map((p) => ({ start: stringAt(p, 'start') ?? '', end: stringAt(p, 'end') ?? '' })),
      hostRoutes: hostRoutes(arrayAt(body, 'host_routes')) ?? [],
    };
    state.subnets.set(subnet.id, subnet);
    touch(api, network);
    return json({ subnet: subnetView(subnet) }, 201);
  });
  api.route('PUT', '/subnets/{subnet_id}', (req, auth) => {
    const subnet = subnetFor(api, auth, req.params.subnet_id ?? '');
    if (!isAdmin(auth) && subnet.projectId !== auth.projectId) throw policy('rule:update_subnet');
    const body = objectAt(req.body, 'subnet') ?? {};
    subnet.name = stringAt(body, 'name') ?? subnet.name;
    subnet.description = stringAt(body, 'description') ?? subnet.description;
    subnet.enableDhcp = booleanAt(body, 'enable_dhcp') ?? subnet.enableDhcp;
    if ('gateway_ip' in body) subnet.gatewayIp = stringAt(body, 'gateway_ip') ?? null;
    const dns = arrayAt(body, 'dns_nameservers');
    if (dns) subnet.dnsNameservers = stringsOf(dns);
    subnet.hostRoutes = hostRoutes(arrayAt(body, 'host_routes')) ?? subnet.hostRoutes;
    touch(api, subnet);
    return json({ subnet: subnetView(subnet) });
  });
  api.route('DELETE', '/subnets/{subnet_id}', (req, auth) => {
    const subnet = subnetFor(api, auth, req.params.subnet_id ?? '');
    if (!isAdmin(auth) && subnet.projectId !== auth.projectId) throw policy('rule:delete_subnet');
    if (state.usedAddresses(subnet.id).size > 0) {
      throw fault(
        409,
        'SubnetInUse',
        `Unable to complete operation on subnet ${subnet.id}: One or more ports have an IP allocation from this subnet.`,
      );
    }
    state.subnets.delete(subnet.id);
    return noContent();
  });
}

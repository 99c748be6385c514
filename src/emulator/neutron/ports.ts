/**
 * Ports: fixed IPs allocated from the network's subnets (or the addresses asked for), a MAC in OpenStack's
 * `fa:16:3e` range, the project's default security group unless others are named, allowed address pairs with the
 * port's own MAC by default. No L2 agent runs, so every port stays DOWN.
 */
import { isAdmin, type AuthContext } from '../auth.ts';
import { json, noContent } from '../http.ts';
import { arrayAt, booleanAt, isObject, objectAt, stringAt, stringsOf, type JsonObject } from '../json.ts';
import {
  badRequest,
  fault,
  listAnswer,
  notFound,
  ownerOf,
  policy,
  quotaCheck,
  standardView,
  touch,
  type NeutronApi,
} from './api.ts';
import { contains, parseIPv4 } from '../../util/ipv4.ts';
import { firstFree, parseCidr } from './ip.ts';
import { networkFor } from './networks.ts';
import { groupFor } from './security-groups.ts';
import type { NAddressPair, NFixedIP, NNetwork, NPort } from './state.ts';

function portView(p: NPort): JsonObject {
  return {
    ...standardView(p),
    network_id: p.networkId,
    mac_address: p.mac,
    admin_state_up: p.adminStateUp,
    status: 'DOWN',
    device_id: p.deviceId,
    device_owner: p.deviceOwner,
    fixed_ips: p.fixedIps.map((ip) => ({ ...ip })),
    port_security_enabled: p.portSecurity,
    security_groups: [...p.securityGroups],
    'binding:vnic_type': 'normal',
    allowed_address_pairs: p.allowedAddressPairs.map((pair) => ({ ...pair })),
    extra_dhcp_opts: [],
  };
}

export function portFor(api: NeutronApi, auth: AuthContext, id: string): NPort {
  const port = api.state.ports.get(id);
  if (!port || !(isAdmin(auth) || port.projectId === auth.projectId)) {
    throw notFound('PortNotFound', `Port ${id} could not be found.`);
  }
  return port;
}

/** The fixed IPs a new port gets: those asked for (each by subnet, address or both), else one from the first subnet. */
function allocate(api: NeutronApi, network: NNetwork, requested: unknown[] | undefined): NFixedIP[] {
  const subnets = [...api.state.subnets.values()].filter((s) => s.networkId === network.id);
  const wanted = requested?.filter(isObject) ?? (subnets[0] ? [{ subnet_id: subnets[0].id }] : []);
  const out: NFixedIP[] = [];
  for (const entry of wanted) {
    const address = stringAt(entry, 'ip_address');
    const subnetID = stringAt(entry, 'subnet_id');
    const value = address === undefined ? undefined : parseIPv4(address);
    const subnet =
      subnetID !== undefined
        ? subnets.find((s) => s.id === subnetID)
        : subnets.find((s) => {
            const cidr = parseCidr(s.cidr);
            return cidr !== undefined && value !== undefined && contains(cidr, value);
          });
    if (!subnet) {
      if (subnetID !== undefined)
        throw badRequest(
          `Failed to create port on network ${network.id}, because fixed_ips included invalid subnet ${subnetID}.`,
        );
      throw fault(
        400,
        'InvalidIpForNetwork',
        `IP address ${address ?? ''} is not a valid IP for any of the subnets on the specified network.`,
      );
    }
    const used = api.state.usedAddresses(subnet.id);
    for (const ip of out) if (ip.subnet_id === subnet.id) used.add(ip.ip_address);
    if (address !== undefined) {
      const cidr = parseCidr(subnet.cidr);
      if (value === undefined || cidr === undefined || !contains(cidr, value)) {
        throw fault(400, 'InvalidIpForSubnet', `IP address ${address} is not a valid IP for the specified subnet.`);
      }
      if (used.has(address)) {
        throw fault(409, 'IpAddressAlreadyAllocated', `IP address ${address} already allocated in subnet ${subnet.id}`);
      }
      out.push({ subnet_id: subnet.id, ip_address: address });
      continue;
    }
    const free = firstFree(subnet.allocationPools, used);
    if (free === undefined) {
      throw fault(409, 'IpAddressGenerationFailure', `No more IP addresses available on network ${network.id}.`);
    }
    out.push({ subnet_id: subnet.id, ip_address: free });
  }
  return out;
}

interface PortInit {
  readonly projectId: string;
  readonly network: NNetwork;
  readonly name?: string | undefined;
  readonly fixedIps?: unknown[] | undefined;
  readonly deviceId?: string | undefined;
  readonly deviceOwner?: string | undefined;
  readonly securityGroups?: string[] | undefined;
  readonly novaOwned?: boolean | undefined;
}

/** Makes and stores a port (for the API, Nova, router interfaces and gateways alike). */
export function makePort(api: NeutronApi, init: PortInit): NPort {
  const { ctx } = api;
  const hex = ctx.newID().replaceAll('-', '');
  const now = ctx.clock.now();
  const owner = init.deviceOwner ?? '';
  const port: NPort = {
    id: ctx.newID(),
    projectId: init.projectId,
    name: init.name ?? '',
    description: '',
    tags: [],
    createdAt: now,
    updatedAt: now,
    revision: 1,
    networkId: init.network.id,
    mac: `fa:16:3e:${hex.slice(0, 2)}:${hex.slice(2, 4)}:${hex.slice(4, 6)}`,
    adminStateUp: true,
    deviceId: init.deviceId ?? '',
    deviceOwner: owner,
    fixedIps: allocate(api, init.network, init.fixedIps),
    // Router and DHCP ports carry no security groups; others get the project's default unless told otherwise.
    securityGroups:
      init.securityGroups ??
      (owner.startsWith('network:') || !init.network.portSecurity || init.projectId === ''
        ? []
        : [api.defaultGroup(init.projectId)]),
    allowedAddressPairs: [],
    portSecurity: !owner.startsWith('network:') && init.network.portSecurity,
    novaOwned: init.novaOwned ?? false,
  };
  api.state.ports.set(port.id, port);
  return port;
}

function pairsOf(port: Pick<NPort, 'mac'>, value: unknown[]): NAddressPair[] {
  return value.filter(isObject).map((p) => ({
    ip_address: stringAt(p, 'ip_address') ?? '',
    mac_address: stringAt(p, 'mac_address') ?? port.mac,
  }));
}

function groupsOf(api: NeutronApi, auth: AuthContext, value: unknown[]): string[] {
  return stringsOf(value).map((id) => groupFor(api, auth, id).id);
}

/** Releases a port and whatever points at it (a floating IP association). */
export function removePort(api: NeutronApi, port: NPort): void {
  api.state.ports.delete(port.id);
  for (const fip of api.state.floatingIps.values()) {
    if (fip.portId === port.id) {
      fip.portId = null;
      fip.fixedIp = null;
      fip.routerId = null;
    }
  }
}

export function registerPorts(api: NeutronApi): void {
  const { state } = api;
  api.route('GET', '/ports', (req, auth) =>
    listAnswer(
      api,
      req,
      'ports',
      [...state.ports.values()].filter((p) => isAdmin(auth) || p.projectId === auth.projectId),
      portView,
    ),
  );
  api.route('GET', '/ports/{port_id}', (req, auth) =>
    json({ port: portView(portFor(api, auth, req.params.port_id ?? '')) }),
  );
  api.route('POST', '/ports', (req, auth) => {
    const body = objectAt(req.body, 'port');
    if (!body) throw fault(400, 'BadRequest', 'Bad port request: no port in the body.');
    const network = networkFor(api, auth, stringAt(body, 'network_id') ?? '');
    const projectID = ownerOf(auth, body);
    if (!isAdmin(auth) && network.projectId !== projectID && !network.shared) throw policy('rule:create_port');
    quotaCheck(api, projectID, 'port', [...state.ports.values()].filter((p) => p.projectId === projectID).length);
    const groups = arrayAt(body, 'security_groups');
    const port = makePort(api, {
      projectId: projectID,
      network,
      name: stringAt(body, 'name'),
      fixedIps: arrayAt(body, 'fixed_ips'),
      deviceId: stringAt(body, 'device_id'),
      deviceOwner: stringAt(body, 'device_owner'),
      securityGroups: groups === undefined ? undefined : groupsOf(api, auth, groups),
    });
    port.description = stringAt(body, 'description') ?? '';
    port.adminStateUp = booleanAt(body, 'admin_state_up') ?? true;
    port.portSecurity = booleanAt(body, 'port_security_enabled') ?? port.portSecurity;
    port.allowedAddressPairs = pairsOf(port, arrayAt(body, 'allowed_address_pairs') ?? []);
    return json({ port: portView(port) }, 201);
  });
  api.route('PUT', '/ports/{port_id}', (req, auth) => {
    const port = portFor(api, auth, req.params.port_id ?? '');
    const body = objectAt(req.body, 'port') ?? {};
    const groups = arrayAt(body, 'security_groups');
    const pairs = arrayAt(body, 'allowed_address_pairs');
    const fixed = arrayAt(body, 'fixed_ips');
    // Validated before anything changes: Neutron applies an update whole or not at all.
    const nextGroups = groups === undefined ? undefined : groupsOf(api, auth, groups);
    const network = api.state.networks.get(port.networkId);
    const nextFixed = fixed === undefined || network === undefined ? undefined : allocate(api, network, fixed);
    port.name = stringAt(body, 'name') ?? port.name;
    port.description = stringAt(body, 'description') ?? port.description;
    port.adminStateUp = booleanAt(body, 'admin_state_up') ?? port.adminStateUp;
    port.deviceId = stringAt(body, 'device_id') ?? port.deviceId;
    port.deviceOwner = stringAt(body, 'device_owner') ?? port.deviceOwner;
    port.portSecurity = booleanAt(body, 'port_security_enabled') ?? port.portSecurity;
    if (nextGroups) port.securityGroups = nextGroups;
    if (nextFixed) port.fixedIps = nextFixed;
    if (pairs) port.allowedAddressPairs = pairsOf(port, pairs);
    touch(api, port);
    return json({ port: portView(port) });
  });
  api.route('DELETE', '/ports/{port_id}', (req, auth) => {
    const port = portFor(api, auth, req.params.port_id ?? '');
    if (port.deviceOwner === 'network:router_interface' || port.deviceOwner === 'network:router_gateway') {
      throw fault(
        409,
        'PortInUse',
        `Port ${port.id} cannot be deleted directly via the port API: has device owner ${port.deviceOwner}.`,
      );
    }
    removePort(api, port);
    return noContent();
  });
}

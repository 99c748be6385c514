/**
 * Routers (an external gateway on an external network, subnet interfaces on `network:router_interface` ports)
 * and floating IPs (allocated on an external network; associating needs a router with a gateway there and an
 * interface on the port's subnet, else 404 ExternalGatewayForFloatingIPNotFound). No L3 agent: all stay DOWN.
 */
import { isAdmin, type AuthContext } from '../auth.ts';
import { json, noContent } from '../http.ts';
import { booleanAt, objectAt, stringAt, type JsonObject } from '../json.ts';
import {
  badRequest,
  fault,
  listAnswer,
  newStandard,
  notFound,
  ownerOf,
  quotaCheck,
  standardView,
  touch,
  type NeutronApi,
} from './api.ts';
import { networkFor, subnetFor } from './networks.ts';
import { makePort, portFor, removePort } from './ports.ts';
import type { NFloatingIP, NPort, NRouter } from './state.ts';

const mine = (auth: AuthContext, x: { projectId: string }) => isAdmin(auth) || x.projectId === auth.projectId;

function routerFor(api: NeutronApi, auth: AuthContext, id: string): NRouter {
  const router = api.state.routers.get(id);
  if (!router || !mine(auth, router)) throw notFound('RouterNotFound', `Router ${id} could not be found`);
  return router;
}

function routerView(api: NeutronApi, r: NRouter): JsonObject {
  const gatewayPort = r.gateway ? api.state.ports.get(r.gateway.portId) : undefined;
  return {
    ...standardView(r),
    status: 'ACTIVE',
    admin_state_up: r.adminStateUp,
    external_gateway_info: r.gateway
      ? {
          network_id: r.gateway.networkId,
          external_fixed_ips: gatewayPort?.fixedIps.map((ip) => ({ ...ip })) ?? [],
          enable_snat: r.gateway.enableSnat,
        }
      : null,
    routes: r.routes.map((x) => ({ ...x })),
    distributed: false,
    ha: false,
    availability_zone_hints: [],
    availability_zones: [],
    flavor_id: null,
  };
}

const interfaces = (api: NeutronApi, router: NRouter): NPort[] =>
  [...api.state.ports.values()].filter((p) => p.deviceId === router.id && p.deviceOwner === 'network:router_interface');

function setGateway(api: NeutronApi, auth: AuthContext, router: NRouter, info: JsonObject | null): void {
  if (router.gateway) {
    const old = api.state.ports.get(router.gateway.portId);
    if (old) removePort(api, old);
    router.gateway = null;
  }
  if (info === null) return;
  const network = networkFor(api, auth, stringAt(info, 'network_id') ?? '');
  if (!network.external) throw badRequest(`Bad router request: Network ${network.id} is not an external network.`);
  // The gateway port belongs to no project, as Neutron makes it.
  const port = makePort(api, { projectId: '', network, deviceId: router.id, deviceOwner: 'network:router_gateway' });
  router.gateway = { networkId: network.id, enableSnat: booleanAt(info, 'enable_snat') ?? true, portId: port.id };
}

function interfaceAnswer(router: NRouter, port: NPort): JsonObject {
  const subnetIDs = port.fixedIps.map((ip) => ip.subnet_id);
  return {
    id: router.id,
    subnet_id: subnetIDs[0] ?? '',
    subnet_ids: subnetIDs,
    port_id: port.id,
    network_id: port.networkId,
    tenant_id: router.projectId,
    project_id: router.projectId,
  };
}

export function registerRouters(api: NeutronApi): void {
  const { state } = api;
  api.route('GET', '/routers', (req, auth) =>
    listAnswer(
      api,
      req,
      'routers',
      [...state.routers.values()].filter((r) => mine(auth, r)),
      (r) => routerView(api, r),
    ),
  );
  api.route('GET', '/routers/{router_id}', (req, auth) =>
    json({ router: routerView(api, routerFor(api, auth, req.params.router_id ?? '')) }),
  );
  api.route('POST', '/routers', (req, auth) => {
    const body = objectAt(req.body, 'router');
    if (!body) throw fault(400, 'BadRequest', 'Bad router request: no router in the body.');
    const projectID = ownerOf(auth, body);
    quotaCheck(api, projectID, 'router', [...state.routers.values()].filter((r) => r.projectId === projectID).length);
    const router: NRouter = {
      ...newStandard(api, projectID, body, 1),
      adminStateUp: booleanAt(body, 'admin_state_up') ?? true,
      gateway: null,
      routes: [],
    };
    const gateway = objectAt(body, 'external_gateway_info');
    if (gateway) setGateway(api, auth, router, gateway);
    state.routers.set(router.id, router);
    return json({ router: routerView(api, router) }, 201);
  });
  api.route('PUT', '/routers/{router_id}', (req, auth) => {
    const router = routerFor(api, auth, req.params.router_id ?? '');
    const body = objectAt(req.body, 'router') ?? {};
    router.name = stringAt(body, 'name') ?? router.name;
    router.description = stringAt(body, 'description') ?? router.description;
    router.adminStateUp = booleanAt(body, 'admin_state_up') ?? router.adminStateUp;
    if ('external_gateway_info' in body) {
      const info = objectAt(body, 'external_gateway_info');
      setGateway(api, auth, router, info && Object.keys(info).length > 0 ? info : null);
    }
    touch(api, router);
    return json({ router: routerView(api, router) });
  });
  api.route('DELETE', '/routers/{router_id}', (req, auth) => {
    const router = routerFor(api, auth, req.params.router_id ?? '');
    if (interfaces(api, router).length > 0) {
      throw fault(409, 'RouterInUse', `Router ${router.id} still has ports`);
    }
    setGateway(api, auth, router, null);
    state.routers.delete(router.id);
    return noContent();
  });
  api.route('PUT', '/routers/{router_id}/add_router_interface', (req, auth) => {
    const router = routerFor(api, auth, req.params.router_id ?? '');
    const subnetID = stringAt(req.body, 'subnet_id');
    const portID = stringAt(req.body, 'port_id');
    if ((subnetID === undefined) === (portID === undefined)) {
      throw badRequest('Bad router request: Either subnet_id or port_id must be specified.');
    }
    let port: NPort;
    if (portID !== undefined) {
      port = portFor(api, auth, portID);
      if (port.deviceId !== '') throw fault(409, 'PortInUse', `Port ${port.id} has owner ${port.deviceOwner}`);
      port.deviceId = router.id;
      port.deviceOwner = 'network:router_interface';
      port.securityGroups = [];
    } else {
      const subnet = subnetFor(api, auth, subnetID ?? '');
      if (interfaces(api, router).some((p) => p.fixedIps.some((ip) => ip.subnet_id === subnet.id))) {
        throw badRequest(`Bad router request: Router already has a port on subnet ${subnet.id}.`);
      }
      if (subnet.gatewayIp === null)
        throw badRequest(`Bad router request: Subnet for router interface must have a gateway IP.`);
      port = makePort(api, {
        projectId: router.projectId,
        network: networkFor(api, auth, subnet.networkId),
        fixedIps: [{ subnet_id: subnet.id, ip_address: subnet.gatewayIp }],
        deviceId: router.id,
        deviceOwner: 'network:router_interface',
      });
    }
    touch(api, router);
    return json(interfaceAnswer(router, port));
  });
  api.route('PUT', '/routers/{router_id}/remove_router_interface', (req, auth) => {
    const router = routerFor(api, auth, req.params.router_id ?? '');
    const subnetID = stringAt(req.body, 'subnet_id');
    const portID = stringAt(req.body, 'port_id');
    const port = interfaces(api, router).find(
      (p) => p.id === portID || (subnetID !== undefined && p.fixedIps.some((ip) => ip.subnet_id === subnetID)),
    );
    if (!port) {
      if (portID !== undefined) {
        throw notFound('RouterInterfaceNotFound', `Router ${router.id} does not have an interface with id ${portID}`);
      }
      throw notFound(
        'RouterInterfaceNotFoundForSubnet',
        `Router ${router.id} has no interface on subnet ${subnetID ?? ''}`,
      );
    }
    const subnets = new Set(port.fixedIps.map((ip) => ip.subnet_id));
    const inUse = [...state.floatingIps.values()].find((f) => {
      const target = f.portId === null ? undefined : state.ports.get(f.portId);
      return f.routerId === router.id && target?.fixedIps.some((ip) => subnets.has(ip.subnet_id)) === true;
    });
    if (inUse) {
      throw fault(
        409,
        'RouterInterfaceInUseByFloatingIP',
        `Router interface for subnet ${[...subnets].join(',')} on router ${router.id} cannot be deleted, as it is required by one or more floating IPs.`,
      );
    }
    const answer = interfaceAnswer(router, port);
    removePort(api, port);
    touch(api, router);
    return json(answer);
  });
  registerFloatingIPs(api);
}

function fipView(f: NFloatingIP): JsonObject {
  return {
    ...standardView(f),
    floating_ip_address: f.address,
    floating_network_id: f.networkId,
    router_id: f.routerId,
    port_id: f.portId,
    fixed_ip_address: f.fixedIp,
    status: 'DOWN',
    port_details: null,
    qos_policy_id: null,
    port_forwardings: [],
  };
}

/** Points a floating IP at a port: only through a router with a gateway on its network and a leg on the port's subnet. */
function associate(
  api: NeutronApi,
  auth: AuthContext,
  fip: NFloatingIP,
  portID: string,
  fixedIP: string | undefined,
): void {
  const port = portFor(api, auth, portID);
  const ip = port.fixedIps.find((x) => fixedIP === undefined || x.ip_address === fixedIP);
  if (!ip) throw badRequest(`Port ${port.id} does not have fixed ip ${fixedIP ?? ''}`);
  const taken = [...api.state.floatingIps.values()].find(
    (f) => f.id !== fip.id && f.portId === port.id && f.fixedIp === ip.ip_address,
  );
  if (taken) {
    throw fault(
      409,
      'FloatingIPPortAlreadyAssociated',
      `Cannot associate floating IP ${fip.address} (${fip.id}) with port ${port.id} using fixed IP ${ip.ip_address}, as that fixed IP already has a floating IP on external network ${fip.networkId}.`,
    );
  }
  const router = [...api.state.routers.values()].find(
    (r) =>
      r.gateway?.networkId === fip.networkId &&
      interfaces(api, r).some((p) => p.fixedIps.some((x) => x.subnet_id === ip.subnet_id)),
  );
  if (!router) {
    throw notFound(
      'ExternalGatewayForFloatingIPNotFound',
      `External network ${fip.networkId} is not reachable from subnet ${ip.subnet_id}.  Therefore, cannot associate Port ${port.id} with a Floating IP.`,
    );
  }
  fip.portId = port.id;
  fip.fixedIp = ip.ip_address;
  fip.routerId = router.id;
}

function registerFloatingIPs(api: NeutronApi): void {
  const { state } = api;
  const fipFor = (auth: AuthContext, id: string): NFloatingIP => {
    const fip = state.floatingIps.get(id);
    if (!fip || !mine(auth, fip)) throw notFound('FloatingIPNotFound', `Floating IP ${id} could not be found`);
    return fip;
  };
  api.route('GET', '/floatingips', (req, auth) =>
    listAnswer(
      api,
      req,
      'floatingips',
      [...state.floatingIps.values()].filter((f) => mine(auth, f)),
      fipView,
    ),
  );
  api.route('GET', '/floatingips/{floatingip_id}', (req, auth) =>
    json({ floatingip: fipView(fipFor(auth, req.params.floatingip_id ?? '')) }),
  );
  api.route('POST', '/floatingips', (req, auth) => {
    const body = objectAt(req.body, 'floatingip');
    if (!body) throw fault(400, 'BadRequest', 'Bad floatingip request: no floatingip in the body.');
    const network = networkFor(api, auth, stringAt(body, 'floating_network_id') ?? '');
    if (!network.external) {
      throw badRequest(`Bad floatingip request: Network ${network.id} is not a valid external network.`);
    }
    const projectID = ownerOf(auth, body);
    quotaCheck(
      api,
      projectID,
      'floatingip',
      [...state.floatingIps.values()].filter((f) => f.projectId === projectID).length,
    );
    const subnetID = stringAt(body, 'subnet_id');
    const address = stringAt(body, 'floating_ip_address');
    // The address is held by a floating-IP port, as Neutron holds it, so IPAM never hands it out twice.
    const holder = makePort(api, {
      projectId: '',
      network,
      deviceOwner: 'network:floatingip',
      fixedIps:
        subnetID === undefined && address === undefined ? undefined : [{ subnet_id: subnetID, ip_address: address }],
    });
    const now = api.ctx.clock.now();
    const fip: NFloatingIP = {
      id: api.ctx.newID(),
      projectId: projectID,
      name: '',
      description: stringAt(body, 'description') ?? '',
      tags: [],
      createdAt: now,
      updatedAt: now,
      revision: 0,
      networkId: network.id,
      address: holder.fixedIps[0]?.ip_address ?? '',
      portId: null,
      fixedIp: null,
      routerId: null,
    };
    holder.deviceId = fip.id;
    const portID = stringAt(body, 'port_id');
    try {
      if (portID !== undefined) associate(api, auth, fip, portID, stringAt(body, 'fixed_ip_address'));
    } catch (error) {
      state.ports.delete(holder.id);
      throw error;
    }
    state.floatingIps.set(fip.id, fip);
    return json({ floatingip: fipView(fip) }, 201);
  });
  api.route('PUT', '/floatingips/{floatingip_id}', (req, auth) => {
    const fip = fipFor(auth, req.params.floatingip_id ?? '');
    const body = objectAt(req.body, 'floatingip') ?? {};
    if ('port_id' in body) {
      const portID = stringAt(body, 'port_id');
      if (portID === undefined) {
        fip.portId = null;
        fip.fixedIp = null;
        fip.routerId = null;
      } else {
        associate(api, auth, fip, portID, stringAt(body, 'fixed_ip_address'));
      }
    }
    fip.description = stringAt(body, 'description') ?? fip.description;
    touch(api, fip);
    return json({ floatingip: fipView(fip) });
  });
  api.route('DELETE', '/floatingips/{floatingip_id}', (req, auth) => {
    const fip = fipFor(auth, req.params.floatingip_id ?? '');
    for (const p of [...state.ports.values()]) {
      if (p.deviceOwner === 'network:floatingip' && p.deviceId === fip.id) state.ports.delete(p.id);
    }
    state.floatingIps.delete(fip.id);
    return noContent();
  });
}

/**
 * Neutron v2.0 as the dev cloud runs it (Zed, ML2 vlan/flat/vxlan, API only: no L2 or L3 agents, so ports and
 * floating IPs stay DOWN): networks, subnets, routers, ports, security groups, floating IPs, quotas and tags. It
 * installs the network lookup, so Nova plugs servers into networks through ports it makes here.
 */
import type { AuthContext } from './auth.ts';
import type { EmulatedService, ServiceContext, ServiceModule } from './context.ts';
import { neutronFault } from './faults.ts';
import { EmuFault, json } from './http.ts';
import type { Lookups, NetworkLookup, PlugRequest, ServerNic, ServicePort, ServicePortRequest } from './lookups.ts';
import { fault, PREFIX, type NeutronApi } from './neutron/api.ts';
import { registerQuotas, registerTags } from './neutron/extras.ts';
import { networkFor, registerNetworks, subnetFor } from './neutron/networks.ts';
import { makePort, portFor, registerPorts, removePort } from './neutron/ports.ts';
import { registerRouters } from './neutron/routers.ts';
import { makeGroup, registerSecurityGroups } from './neutron/security-groups.ts';
import { NeutronState, type NNetwork, type NSubnet } from './neutron/state.ts';
import { recordsOf, refill } from './records.ts';

class Neutron implements EmulatedService, NetworkLookup {
  readonly name = 'neutron';
  readonly state = new NeutronState();
  readonly #api: NeutronApi;

  constructor(ctx: ServiceContext) {
    const defaultGroup = (projectID: string): string => {
      const found = [...this.state.groups.values()].find((g) => g.projectId === projectID && g.name === 'default');
      return (found ?? makeGroup(this.#api, projectID, 'default', 'Default security group')).id;
    };
    this.#api = {
      state: this.state,
      ctx,
      defaultGroup,
      route: (method, path, handler) => {
        ctx.router.add(method, `${PREFIX}${path}`, (req) => {
          const auth = ctx.authenticate(req, (m) => neutronFault(401, 'HTTPUnauthorized', m));
          if (auth.projectId !== undefined) defaultGroup(auth.projectId);
          return handler(req, auth);
        });
      },
    };
    const version = () => ({
      id: 'v2.0',
      status: 'CURRENT',
      links: [{ rel: 'self', href: `${ctx.origin()}${PREFIX}/` }],
    });
    ctx.router.add('GET', '/network', () => json({ versions: [version()] }));
    registerNetworks(this.#api);
    registerPorts(this.#api);
    registerSecurityGroups(this.#api);
    registerRouters(this.#api);
    registerTags(this.#api);
    registerQuotas(this.#api);
  }

  reset(): void {
    this.state.clear();
  }

  records(): unknown {
    return recordsOf(this.state, [
      'networks',
      'subnets',
      'ports',
      'routers',
      'groups',
      'rules',
      'floatingIps',
      'quotas',
    ]);
  }

  restore(records: unknown): void {
    refill(this.state, records);
  }

  dump(): unknown {
    const s = this.state;
    return {
      networks: [...s.networks.values()],
      subnets: [...s.subnets.values()],
      ports: [...s.ports.values()],
      routers: [...s.routers.values()],
      securityGroups: [...s.groups.values()],
      securityGroupRules: [...s.rules.values()],
      floatingIps: [...s.floatingIps.values()],
      quotas: Object.fromEntries(s.quotas),
    };
  }

  // ------------------------------------------------------------------------------------------ NetworkLookup (Nova)
  plug(auth: AuthContext, request: PlugRequest, notFound: (what: string) => Error): ServerNic {
    const api = this.#api;
    const rethrow = (what: string, run: () => ServerNic): ServerNic => {
      try {
        return run();
      } catch (error) {
        if (error instanceof EmuFault && error.status === 404) throw notFound(what);
        throw error;
      }
    };
    if (request.portId !== undefined) {
      const portID = request.portId;
      return rethrow(`Port ${portID}`, () => {
        const port = portFor(api, auth, portID);
        if (port.deviceId !== '') throw fault(409, 'PortInUse', `Port ${port.id} is still in use.`);
        port.deviceId = request.serverId;
        port.deviceOwner = 'compute:nova';
        return this.#nic(port.id);
      });
    }
    const networkID = request.networkId ?? '';
    return rethrow(`Network ${networkID}`, () => {
      const network = networkFor(api, auth, networkID);
      const port = makePort(api, {
        projectId: auth.projectId ?? network.projectId,
        network,
        deviceId: request.serverId,
        deviceOwner: 'compute:nova',
        novaOwned: true,
        fixedIps: request.fixedIp === undefined ? undefined : [{ ip_address: request.fixedIp }],
      });
      return this.#nic(port.id);
    });
  }

  unplug(serverID: string): void {
    for (const port of [...this.state.ports.values()]) {
      if (port.deviceId !== serverID || port.deviceOwner !== 'compute:nova') continue;
      if (port.novaOwned) {
        removePort(this.#api, port);
      } else {
        port.deviceId = '';
        port.deviceOwner = '';
      }
    }
  }

  servicePort(auth: AuthContext, request: ServicePortRequest, notFound: (what: string) => Error): ServicePort {
    const api = this.#api;
    const subnetID = request.subnetId;
    const what = subnetID === undefined ? `Network ${request.networkId ?? ''}` : `Subnet ${subnetID}`;
    let subnet: NSubnet | undefined;
    let network: NNetwork;
    try {
      subnet = subnetID === undefined ? undefined : subnetFor(api, auth, subnetID);
      network = networkFor(api, auth, subnet?.networkId ?? request.networkId ?? '');
    } catch (error) {
      if (error instanceof EmuFault && error.status === 404) throw notFound(what);
      throw error;
    }
    const port = makePort(api, {
      projectId: request.projectId,
      network,
      name: request.name,
      deviceOwner: request.deviceOwner,
      deviceId: request.deviceId,
      fixedIps: subnet === undefined ? undefined : [{ subnet_id: subnet.id }],
    });
    const ip = port.fixedIps[0];
    if (ip === undefined) {
      removePort(api, port);
      throw notFound(what);
    }
    return { portId: port.id, networkId: network.id, subnetId: ip.subnet_id, address: ip.ip_address };
  }

  removeServicePort(portID: string): void {
    const port = this.state.ports.get(portID);
    if (port) removePort(this.#api, port);
  }

  #nic(portID: string): ServerNic {
    const port = this.state.ports.get(portID);
    const network = port && this.state.networks.get(port.networkId);
    if (!port || !network) throw new Error(`port ${portID} vanished while plugging`);
    const ip = port.fixedIps[0];
    return {
      portId: port.id,
      networkId: network.id,
      networkName: network.name,
      addr: ip?.ip_address ?? '',
      version: 4,
      mac: port.mac,
    };
  }
}

export const neutronModule: ServiceModule<Neutron> = {
  name: 'neutron',
  prefix: '/network',
  catalog: [{ type: 'network', name: 'neutron', path: '/network' }],
  fault: (status, message) => neutronFault(status, status === 404 ? 'HTTPNotFound' : 'HTTPError', message),
  create: (ctx: ServiceContext, lookups: Lookups) => {
    const neutron = new Neutron(ctx);
    lookups.networks = neutron;
    return neutron;
  },
};

/** Neutron's records: every resource carries the standard attributes (project, tags, timestamps, revision). */

export interface Standard {
  readonly id: string;
  readonly projectId: string;
  name: string;
  description: string;
  tags: string[];
  readonly createdAt: number;
  updatedAt: number;
  revision: number;
}

export interface NNetwork extends Standard {
  adminStateUp: boolean;
  shared: boolean;
  external: boolean;
  mtu: number;
  portSecurity: boolean;
  readonly networkType: 'vlan' | 'flat' | 'vxlan';
  readonly physicalNetwork: string | null;
  readonly segmentationId: number | null;
}

export interface NHostRoute {
  readonly destination: string;
  readonly nexthop: string;
}

export interface NSubnet extends Standard {
  readonly networkId: string;
  readonly cidr: string;
  gatewayIp: string | null;
  enableDhcp: boolean;
  dnsNameservers: string[];
  allocationPools: { start: string; end: string }[];
  hostRoutes: NHostRoute[];
}

export interface NFixedIP {
  readonly subnet_id: string;
  readonly ip_address: string;
}

export interface NAddressPair {
  readonly ip_address: string;
  readonly mac_address: string;
}

export interface NPort extends Standard {
  readonly networkId: string;
  readonly mac: string;
  adminStateUp: boolean;
  deviceId: string;
  deviceOwner: string;
  fixedIps: NFixedIP[];
  securityGroups: string[];
  allowedAddressPairs: NAddressPair[];
  portSecurity: boolean;
  /** Made by Nova for a server (`networks: [{uuid}]`): deleted when the server goes. */
  readonly novaOwned: boolean;
}

interface NGateway {
  readonly networkId: string;
  readonly enableSnat: boolean;
  readonly portId: string;
}

export interface NRouter extends Standard {
  adminStateUp: boolean;
  gateway: NGateway | null;
  routes: NHostRoute[];
}

export interface NSecurityGroup extends Standard {
  readonly stateful: boolean;
}

export interface NRule extends Standard {
  readonly groupId: string;
  readonly direction: 'ingress' | 'egress';
  readonly ethertype: 'IPv4' | 'IPv6';
  readonly protocol: string | null;
  readonly portMin: number | null;
  readonly portMax: number | null;
  readonly remoteIpPrefix: string | null;
  readonly remoteGroupId: string | null;
}

export interface NFloatingIP extends Standard {
  readonly networkId: string;
  readonly address: string;
  portId: string | null;
  fixedIp: string | null;
  routerId: string | null;
}

/** Neutron's quota resources and their configured defaults (neutron.conf `[quotas]`). */
export const QUOTA_DEFAULTS = {
  network: 100,
  subnet: 100,
  subnetpool: -1,
  port: 500,
  router: 10,
  floatingip: 50,
  security_group: 10,
  security_group_rule: 100,
  rbac_policy: 10,
} as const;

export type QuotaResource = keyof typeof QUOTA_DEFAULTS;

export class NeutronState {
  readonly networks = new Map<string, NNetwork>();
  readonly subnets = new Map<string, NSubnet>();
  readonly ports = new Map<string, NPort>();
  readonly routers = new Map<string, NRouter>();
  readonly groups = new Map<string, NSecurityGroup>();
  readonly rules = new Map<string, NRule>();
  readonly floatingIps = new Map<string, NFloatingIP>();
  readonly quotas = new Map<string, Partial<Record<QuotaResource, number>>>();

  clear(): void {
    for (const map of [this.networks, this.subnets, this.ports, this.routers, this.groups, this.rules]) map.clear();
    this.floatingIps.clear();
    this.quotas.clear();
  }

  quota(projectID: string, resource: QuotaResource): number {
    return this.quotas.get(projectID)?.[resource] ?? QUOTA_DEFAULTS[resource];
  }

  /** Every address in use on a subnet: ports' fixed IPs (the gateway only once a router interface holds it). */
  usedAddresses(subnetID: string): Set<string> {
    const used = new Set<string>();
    for (const port of this.ports.values()) {
      for (const ip of port.fixedIps) if (ip.subnet_id === subnetID) used.add(ip.ip_address);
    }
    return used;
  }
}

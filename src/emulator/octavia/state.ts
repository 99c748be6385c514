/**
 * Octavia's records. Each keeps its wire attributes in `fields` (what create and update set, with Octavia's
 * defaults), and the emulator owns ids, ownership, provisioning status and timestamps beside them.
 */
import type { JsonObject } from '../json.ts';

export type Provisioning = 'ACTIVE' | 'PENDING_CREATE' | 'PENDING_UPDATE' | 'PENDING_DELETE' | 'ERROR';
export type Kind = 'listener' | 'pool' | 'member' | 'healthmonitor';

export interface ORecord {
  readonly id: string;
  readonly projectId: string;
  provisioning: Provisioning;
  readonly createdAt: number;
  updatedAt: number | null;
  fields: JsonObject;
}

export interface OLoadBalancer extends ORecord {
  /** Bumped by every change of course, so a transition scheduled for an older one does nothing. */
  op: number;
  /** Whether `vip_port_id` is a Neutron port Octavia made (allowed_address_pairs driver), deleted with the LB. */
  ownsVipPort: boolean;
}

export interface OChild extends ORecord {
  readonly kind: Kind;
  readonly lbId: string;
  /** The pool of a member or health monitor. */
  readonly poolId: string | null;
}

export class OctaviaState {
  readonly lbs = new Map<string, OLoadBalancer>();
  readonly children = new Map<string, OChild>();
  /** Load balancers per project an admin allowed (`PUT /lbaas/quotas/{project_id}`); absent: unlimited. */
  readonly loadBalancerQuotas = new Map<string, number>();
  /** VIPs come from 198.51.100.0/24, as a noop network driver's did on the dev cloud before ADR 0046. */
  nextVip = 1;

  clear(): void {
    this.lbs.clear();
    this.children.clear();
    this.loadBalancerQuotas.clear();
    this.nextVip = 1;
  }

  childrenOf(lbId: string, kind?: Kind): OChild[] {
    return [...this.children.values()].filter((c) => c.lbId === lbId && (kind === undefined || c.kind === kind));
  }

  /** A listener's default pool, a pool's members and health monitor: what hangs off one record. */
  dependants(id: string): OChild[] {
    return [...this.children.values()].filter((c) => c.poolId === id);
  }
}

/** What each kind's create accepts and defaults to, by wire name. */
export const DEFAULTS: Readonly<Record<Kind | 'loadbalancer', JsonObject>> = {
  loadbalancer: {
    name: '',
    description: '',
    admin_state_up: true,
    provider: 'amphora',
    flavor_id: null,
    tags: [],
    availability_zone: null,
    vip_qos_policy_id: null,
  },
  listener: {
    name: '',
    description: '',
    admin_state_up: true,
    protocol: null,
    protocol_port: null,
    connection_limit: -1,
    default_pool_id: null,
    default_tls_container_ref: null,
    sni_container_refs: [],
    insert_headers: {},
    allowed_cidrs: null,
    timeout_client_data: 50000,
    timeout_member_connect: 5000,
    timeout_member_data: 50000,
    timeout_tcp_inspect: 0,
    tags: [],
    tls_ciphers: null,
    tls_versions: null,
    alpn_protocols: null,
  },
  pool: {
    name: '',
    description: '',
    admin_state_up: true,
    protocol: null,
    lb_algorithm: null,
    session_persistence: null,
    tls_enabled: false,
    tls_ciphers: null,
    tls_versions: null,
    alpn_protocols: null,
    tags: [],
  },
  member: {
    name: '',
    admin_state_up: true,
    address: null,
    protocol_port: null,
    weight: 1,
    backup: false,
    subnet_id: null,
    monitor_address: null,
    monitor_port: null,
    tags: [],
  },
  healthmonitor: {
    name: '',
    admin_state_up: true,
    type: null,
    delay: null,
    timeout: null,
    max_retries: null,
    max_retries_down: 3,
    http_method: null,
    url_path: null,
    expected_codes: null,
    http_version: null,
    domain_name: null,
    tags: [],
  },
};

/** Attributes fixed at create: an update naming them is Octavia's 400. */
export const IMMUTABLE: Readonly<Record<Kind | 'loadbalancer', readonly string[]>> = {
  loadbalancer: ['provider', 'flavor_id', 'availability_zone'],
  listener: ['protocol', 'protocol_port'],
  pool: ['protocol'],
  member: ['address', 'protocol_port', 'subnet_id'],
  healthmonitor: ['type'],
};

/**
 * Octavia v2: load balancers, listeners, pools, members, health monitors, and API version discovery. The session
 * sends `OpenStack-API-Version: load-balancer 2.22` on every call; Octavia versions its API by release rather than
 * per request, so `requireApiVersion` is what actually proves PROXYV2 pools are available.
 */
import { ConfigError } from './errors.ts';
import type { Named } from './exact.ts';
import { compareVersions, parseVersion, type Version } from './microversion.ts';
import { listAll, pageStyleFor, type ListOptions } from './pagination.ts';
import type { ServiceClient } from './session.ts';
import { requestEnveloped, type QueryKeys } from './request.ts';
import { resource, type Resource } from './resource.ts';

export type LoadBalancerClient = ServiceClient<'load-balancer'>;

/**
 * docs/spec/openstack-provider.md §Octavia Load Balancers keys off this: ACTIVE continues, PENDING_* yields, anything
 * else is inconsistent.
 */
export type ProvisioningStatus =
  'ACTIVE' | 'PENDING_CREATE' | 'PENDING_UPDATE' | 'PENDING_DELETE' | 'DELETED' | 'ERROR';
type OperatingStatus = 'ONLINE' | 'DRAINING' | 'OFFLINE' | 'DEGRADED' | 'ERROR' | 'NO_MONITOR';

interface IDRef {
  readonly id: string;
}

/** Filters every Octavia list accepts; `name` is treated as fuzzy, so lookups post-filter. */
interface OctaviaFilter {
  readonly name?: string | undefined;
  readonly projectID?: string | undefined;
}

const octaviaKeys: QueryKeys<OctaviaFilter> = { name: 'name', projectID: 'project_id' };

/** An Octavia collection (see resource.ts): filtered by name and project, paged by links, updated with PUT. */
function octavia<T extends Named, Create, Update = never>(
  path: string,
  envelope: string,
  kind?: string,
): Resource<LoadBalancerClient, T, OctaviaFilter, Create, Update> {
  return resource({ path, envelope, kind, keys: octaviaKeys, style: pageStyleFor('load-balancer', `${envelope}s`) });
}

interface CascadeOptions {
  /** Delete the load balancer's listeners, pools, members and monitors with it. */
  readonly cascade?: boolean | undefined;
}

// Load balancers

export interface LoadBalancer {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly project_id: string;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
  readonly vip_address: string | null;
  readonly vip_port_id: string | null;
  readonly vip_subnet_id: string | null;
  readonly vip_network_id: string | null;
  readonly provider: string;
  readonly flavor_id: string | null;
  readonly listeners: readonly IDRef[];
  readonly pools: readonly IDRef[];
  readonly created_at: string;
  readonly updated_at: string | null;
}

/** One of `vip_subnet_id`, `vip_network_id` or `vip_port_id` places the VIP. */
interface LoadBalancerCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly vip_subnet_id?: string | undefined;
  readonly vip_network_id?: string | undefined;
  readonly vip_port_id?: string | undefined;
  /** The requested VIP; Octavia allocates one when absent. */
  readonly vip_address?: string | undefined;
  readonly project_id?: string | undefined;
  readonly provider?: string | undefined;
  readonly flavor_id?: string | undefined;
}

/** Load balancers are found by their name, `lb-{id}`; deleteLoadBalancer (below) can cascade. */
const loadBalancers = octavia<LoadBalancer, LoadBalancerCreate>(
  '/lbaas/loadbalancers',
  'loadbalancer',
  'load balancer',
);
export const { create: createLoadBalancer, get: getLoadBalancer, list: listLoadBalancers } = loadBalancers;
export const { findByName: findLoadBalancerByName } = loadBalancers;

/**
 * Accepted asynchronously: the load balancer goes PENDING_DELETE, then 404s. docs/spec/openstack-provider.md §Octavia
 * Load Balancers cascades, after removing the floating IP that the VIP port anchors.
 */
export async function deleteLoadBalancer(
  octavia: LoadBalancerClient,
  loadbalancerID: string,
  options: CascadeOptions = {},
): Promise<void> {
  await octavia.request({
    method: 'DELETE',
    path: '/lbaas/loadbalancers/{loadbalancer_id}',
    params: { loadbalancer_id: loadbalancerID },
    query: { cascade: options.cascade === true ? true : undefined },
  });
}

// Listeners

export type ListenerProtocol = 'HTTP' | 'HTTPS' | 'TCP' | 'UDP' | 'SCTP' | 'TERMINATED_HTTPS' | 'PROMETHEUS';

/** Timeouts in milliseconds; client and member data are set to the idle timeout for TCP listeners. */
interface ListenerTimeouts {
  readonly timeout_client_data?: number | undefined;
  readonly timeout_member_connect?: number | undefined;
  readonly timeout_member_data?: number | undefined;
  readonly timeout_tcp_inspect?: number | undefined;
}

export interface Listener {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly project_id: string;
  readonly protocol: ListenerProtocol;
  readonly protocol_port: number;
  readonly loadbalancers: readonly IDRef[];
  readonly default_pool_id: string | null;
  /** Null (or empty) means any source. */
  readonly allowed_cidrs: readonly string[] | null;
  readonly timeout_client_data: number | null;
  readonly timeout_member_connect: number | null;
  readonly timeout_member_data: number | null;
  readonly timeout_tcp_inspect: number | null;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
}

interface ListenerCreate extends ListenerTimeouts {
  readonly name: string;
  readonly description?: string | undefined;
  readonly loadbalancer_id: string;
  readonly protocol: ListenerProtocol;
  readonly protocol_port: number;
  readonly default_pool_id?: string | undefined;
  readonly allowed_cidrs?: readonly string[] | undefined;
}

/**
 * What docs/spec/openstack-provider.md §Octavia Load Balancers converges in place; protocol and port are immutable in
 * Octavia.
 */
export interface ListenerUpdate extends ListenerTimeouts {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  /** Null unlinks the default pool. */
  readonly default_pool_id?: string | null | undefined;
  /** Null or empty allows any source. */
  readonly allowed_cidrs?: readonly string[] | null | undefined;
}

/** Listeners are found by their name, `lb-{id}-{listener}-listener`. */
const listeners = octavia<Listener, ListenerCreate, ListenerUpdate>('/lbaas/listeners', 'listener');
export const { create: createListener, get: getListener, list: listListeners } = listeners;
export const { findByName: findListenerByName, update: updateListener, delete: deleteListener } = listeners;

// Pools

/** PROXYV2 needs API 2.22 (see requireApiVersion). */
export type PoolProtocol = 'HTTP' | 'HTTPS' | 'TCP' | 'UDP' | 'PROXY' | 'PROXYV2' | 'SCTP';
type LbAlgorithm = 'ROUND_ROBIN' | 'LEAST_CONNECTIONS' | 'SOURCE_IP' | 'SOURCE_IP_PORT';

interface SessionPersistence {
  readonly type: 'SOURCE_IP' | 'HTTP_COOKIE' | 'APP_COOKIE';
  readonly cookie_name?: string | null | undefined;
  readonly persistence_timeout?: number | null | undefined;
  readonly persistence_granularity?: string | null | undefined;
}

export interface Pool {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly project_id: string;
  readonly protocol: PoolProtocol;
  readonly lb_algorithm: LbAlgorithm;
  readonly session_persistence: SessionPersistence | null;
  readonly listeners: readonly IDRef[];
  readonly loadbalancers: readonly IDRef[];
  readonly members: readonly IDRef[];
  readonly healthmonitor_id: string | null;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
}

/** One of `listener_id` (the pool becomes its default pool) or `loadbalancer_id` attaches the pool. */
interface PoolCreate {
  readonly name: string;
  readonly description?: string | undefined;
  readonly listener_id?: string | undefined;
  readonly loadbalancer_id?: string | undefined;
  readonly protocol: PoolProtocol;
  readonly lb_algorithm: LbAlgorithm;
  readonly session_persistence?: SessionPersistence | undefined;
}

/** Protocol is immutable in Octavia (why the REST API blocks proxyProtocolV2 drift before it gets here). */
interface PoolUpdate {
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly lb_algorithm?: LbAlgorithm | undefined;
  /** Null removes session persistence. */
  readonly session_persistence?: SessionPersistence | null | undefined;
}

/** Pools are found by their name, `lb-{id}-{listener}-pool`. */
const pools = octavia<Pool, PoolCreate, PoolUpdate>('/lbaas/pools', 'pool');
export const { create: createPool, get: getPool, list: listPools, findByName: findPoolByName } = pools;
export const { update: updatePool, delete: deletePool } = pools;

// Members

interface Member {
  readonly id: string;
  readonly name: string;
  readonly address: string;
  readonly protocol_port: number;
  readonly weight: number;
  readonly backup: boolean;
  readonly subnet_id: string | null;
  readonly monitor_address: string | null;
  readonly monitor_port: number | null;
  readonly admin_state_up: boolean;
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
}

/** A member of the desired set; (address, protocol_port) identifies it, as in the provider's member diff. */
interface MemberSpec {
  readonly address: string;
  readonly protocol_port: number;
  readonly name?: string | undefined;
  readonly subnet_id?: string | undefined;
  readonly weight?: number | undefined;
  readonly backup?: boolean | undefined;
  readonly monitor_address?: string | undefined;
  readonly monitor_port?: number | undefined;
  readonly admin_state_up?: boolean | undefined;
}

export function listMembers(octavia: LoadBalancerClient, poolID: string, options?: ListOptions): Promise<Member[]> {
  return listAll<Member>(
    octavia,
    { method: 'GET', path: '/lbaas/pools/{pool_id}/members', params: { pool_id: poolID } },
    pageStyleFor('load-balancer', 'members'),
    options,
  );
}

/**
 * Replaces the pool's whole member set: members not listed are deleted, new ones created, matching ones updated.
 * Accepted asynchronously (202, no body); the pool goes PENDING_UPDATE.
 */
export async function replaceMembers(
  octavia: LoadBalancerClient,
  poolID: string,
  members: readonly MemberSpec[],
): Promise<void> {
  await octavia.request({
    method: 'PUT',
    path: '/lbaas/pools/{pool_id}/members',
    params: { pool_id: poolID },
    body: { members },
  });
}

export function getMember(octavia: LoadBalancerClient, poolID: string, memberID: string): Promise<Member> {
  return requestEnveloped<Member>(octavia, 'member', {
    method: 'GET',
    path: '/lbaas/pools/{pool_id}/members/{member_id}',
    params: { pool_id: poolID, member_id: memberID },
  });
}

export async function deleteMember(octavia: LoadBalancerClient, poolID: string, memberID: string): Promise<void> {
  await octavia.request({
    method: 'DELETE',
    path: '/lbaas/pools/{pool_id}/members/{member_id}',
    params: { pool_id: poolID, member_id: memberID },
  });
}

// Health monitors

/** UDP listeners are checked with UDP-CONNECT, TCP ones with TCP. */
export type HealthMonitorType = 'HTTP' | 'HTTPS' | 'PING' | 'TCP' | 'TLS-HELLO' | 'UDP-CONNECT' | 'SCTP';
type HealthMonitorHttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'OPTIONS' | 'CONNECT' | 'TRACE';

export interface HealthMonitor {
  readonly id: string;
  readonly name: string;
  readonly project_id: string;
  readonly type: HealthMonitorType;
  /** Seconds between checks. */
  readonly delay: number;
  /** Seconds a check may take; less than `delay`. */
  readonly timeout: number;
  readonly max_retries: number;
  readonly max_retries_down: number;
  readonly http_method?: HealthMonitorHttpMethod | null;
  readonly url_path?: string | null;
  readonly expected_codes?: string | null;
  readonly pools: readonly IDRef[];
  readonly provisioning_status: ProvisioningStatus;
  readonly operating_status: OperatingStatus;
}

/** The health-monitor thresholds converged in place. */
export interface HealthMonitorUpdate {
  readonly name?: string | undefined;
  readonly delay?: number | undefined;
  readonly timeout?: number | undefined;
  readonly max_retries?: number | undefined;
  readonly max_retries_down?: number | undefined;
  readonly http_method?: HealthMonitorHttpMethod | undefined;
  readonly url_path?: string | undefined;
  readonly expected_codes?: string | undefined;
}

interface HealthMonitorCreate extends HealthMonitorUpdate {
  readonly name: string;
  readonly pool_id: string;
  readonly type: HealthMonitorType;
  readonly delay: number;
  readonly timeout: number;
  readonly max_retries: number;
}

/** Health monitors are found by their name, `lb-{id}-{listener}-monitor`. */
const healthMonitors = octavia<HealthMonitor, HealthMonitorCreate, HealthMonitorUpdate>(
  '/lbaas/healthmonitors',
  'healthmonitor',
  'health monitor',
);
export const { create: createHealthMonitor, get: getHealthMonitor, list: listHealthMonitors } = healthMonitors;
export const { findByName: findHealthMonitorByName, update: updateHealthMonitor } = healthMonitors;
export const { delete: deleteHealthMonitor } = healthMonitors;

// API version discovery

interface VersionDocument {
  readonly versions?: readonly { readonly id?: unknown; readonly status?: unknown }[];
}

/**
 * The cloud's current Octavia API version, from the version document at the endpoint's root. The base URL ends
 * in the `/v2` segment, so the document is fetched from its parent by absolute URL.
 */
export async function getApiVersion(octavia: LoadBalancerClient, signal?: AbortSignal): Promise<Version> {
  const url = versionRootUrl(await octavia.baseUrl(signal));
  const { body } = await octavia.request<VersionDocument | undefined>({ method: 'GET', path: '/', url, signal });
  const current = body?.versions?.find((v) => v.status === 'CURRENT');
  const version = typeof current?.id === 'string' ? parseVersion(current.id) : undefined;
  if (!version) throw new ConfigError('load-balancer', `the version document at ${url} names no CURRENT version`);
  return version;
}

/**
 * Fails when the cloud's Octavia API is older than `minimum` (`2.22` for PROXYV2 pools); the pinned
 * microversion header alone does not make Octavia refuse an old request, so this is checked at start-up.
 */
export async function requireApiVersion(
  octavia: LoadBalancerClient,
  minimum: string,
  signal?: AbortSignal,
): Promise<Version> {
  const required = parseVersion(minimum);
  if (!required) throw new Error(`requireApiVersion: ${JSON.stringify(minimum)} is not a version like 2.22`);
  const actual = await getApiVersion(octavia, signal);
  if (compareVersions(actual, required) < 0) {
    throw new ConfigError(
      'load-balancer',
      `the cloud's Octavia API is ${String(actual.major)}.${String(actual.minor)}; openregion needs ${minimum} or later`,
    );
  }
  return actual;
}

/** The base URL without its trailing version segment: `https://lb.example/load-balancer/v2` → `…/load-balancer`. */
export function versionRootUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const segments = url.pathname.replace(/\/+$/, '').split('/');
  const at = segments.findLastIndex((s) => /^v\d+(\.\d+)?$/.test(s));
  if (at >= 0) segments.length = at;
  const path = segments.join('/');
  return `${url.origin}${path || '/'}`;
}

/**
 * What the spec implies in Octavia terms (docs/spec/upstream-region.md §Octavia LB), as pure functions: the pool
 * protocol, the listener settings converged in place, the health monitor and the member set. The plan (decide.ts)
 * compares these with what Octavia reports; nothing here does I/O.
 */
import type * as octavia from '../../../openstack/loadbalancer.ts';
import { DEFAULT_TCP_IDLE_TIMEOUT_SECONDS } from '../../apis/load-balancer.ts';
import type { HealthCheck, Listener } from '../../provider/inputs.ts';

/** One listener's Octavia settings that can change in place (protocol and port cannot). */
interface ListenerSettings {
  readonly allowedCIDRs: readonly string[];
  /** Milliseconds for client and member data; TCP only (UDP listeners keep Octavia's defaults). */
  readonly idleTimeoutMs?: number;
}

/**
 * The constraints of docs/spec/openstack-provider.md §Octavia Load Balancers: UDP listeners take neither an idle
 * timeout nor Proxy Protocol v2.
 */
export function listenerViolation(listener: Listener): string | undefined {
  if (listener.protocol !== 'udp') return undefined;
  if (listener.idleTimeoutSeconds !== undefined) return `listener ${listener.name}: udp listeners have no idle timeout`;
  if (listener.pool.proxyProtocolV2) return `listener ${listener.name}: udp listeners have no proxy protocol v2`;
  return undefined;
}

export const listenerProtocol = (listener: Listener): octavia.ListenerProtocol =>
  listener.protocol === 'udp' ? 'UDP' : 'TCP';

/** UDP pools are UDP; TCP pools are PROXYV2 only with proxyProtocolV2 (load-balancer microversion 2.22). */
export function poolProtocol(listener: Listener): octavia.PoolProtocol {
  if (listener.protocol === 'udp') return 'UDP';
  return listener.pool.proxyProtocolV2 ? 'PROXYV2' : 'TCP';
}

/** UDP listeners are checked with Octavia's UDP connect monitor, TCP ones with a TCP connect. */
export const monitorType = (listener: Listener): octavia.HealthMonitorType =>
  listener.protocol === 'udp' ? 'UDP-CONNECT' : 'TCP';

export function listenerSettings(listener: Listener): ListenerSettings {
  const allowedCIDRs = [...listener.allowedCIDRs].sort();
  if (listener.protocol === 'udp') return { allowedCIDRs };
  return { allowedCIDRs, idleTimeoutMs: (listener.idleTimeoutSeconds ?? DEFAULT_TCP_IDLE_TIMEOUT_SECONDS) * 1000 };
}

/** The listener update that converges `observed` on the spec, or undefined when it already matches. */
export function listenerUpdate(
  observed: Pick<octavia.Listener, 'allowed_cidrs' | 'default_pool_id' | 'timeout_client_data' | 'timeout_member_data'>,
  listener: Listener,
  poolID: string,
): octavia.ListenerUpdate | undefined {
  const wanted = listenerSettings(listener);
  const cidrs = [...(observed.allowed_cidrs ?? [])].sort();
  const update: Record<string, unknown> = {};
  if (cidrs.join(',') !== wanted.allowedCIDRs.join(',')) update.allowed_cidrs = wanted.allowedCIDRs;
  if (observed.default_pool_id !== poolID) update.default_pool_id = poolID;
  if (wanted.idleTimeoutMs !== undefined) {
    if (observed.timeout_client_data !== wanted.idleTimeoutMs) update.timeout_client_data = wanted.idleTimeoutMs;
    if (observed.timeout_member_data !== wanted.idleTimeoutMs) update.timeout_member_data = wanted.idleTimeoutMs;
  }
  return Object.keys(update).length === 0 ? undefined : update;
}

/** A health check as Octavia's monitor thresholds. */
export function monitorThresholds(check: HealthCheck): {
  readonly delay: number;
  readonly timeout: number;
  readonly max_retries: number;
  readonly max_retries_down: number;
} {
  return {
    delay: check.intervalSeconds,
    timeout: check.timeoutSeconds,
    max_retries: check.healthyThreshold,
    max_retries_down: check.unhealthyThreshold,
  };
}

/** The threshold update that converges `observed`, or undefined when the thresholds already match. */
export function monitorUpdate(
  observed: Pick<octavia.HealthMonitor, 'delay' | 'timeout' | 'max_retries' | 'max_retries_down'>,
  check: HealthCheck,
): octavia.HealthMonitorUpdate | undefined {
  const wanted = monitorThresholds(check);
  const changed = Object.entries(wanted).filter(([key, value]) => observed[key as keyof typeof wanted] !== value);
  return changed.length === 0 ? undefined : Object.fromEntries(changed);
}

export interface MemberKey {
  readonly address: string;
  readonly port: number;
}

const memberKey = (m: MemberKey): string => `${m.address}:${String(m.port)}`;

/** Whether the pool's members, as (address, port) pairs, are the spec's. */
export function sameMembers(observed: readonly MemberKey[], wanted: readonly MemberKey[]): boolean {
  const a = new Set(observed.map(memberKey));
  const b = new Set(wanted.map(memberKey));
  return a.size === b.size && [...a].every((k) => b.has(k));
}

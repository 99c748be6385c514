/**
 * The load balancer pass as a pure decision (docs/architecture.md §Decide, then act): given the spec and what Octavia
 * and Neutron report, the one thing to do next, each row with a stable id. The order is upstream's
 * (docs/spec/upstream-region.md §Octavia LB): the load balancer, its VIP, its provisioning status, the floating IP, one
 * orphaned listener, then per listener pool → listener → members → monitor, then one orphaned pool or monitor. Every
 * Octavia write puts the load balancer in PENDING_UPDATE, so the pass after a write yields and the next pass observes
 * the settled state.
 */
import type * as octavia from '../../../openstack/loadbalancer.ts';
import type { Listener, LoadBalancerInput } from '../../provider/inputs.ts';
import {
  listenerProtocol,
  listenerUpdate,
  listenerViolation,
  monitorType,
  monitorUpdate,
  poolProtocol,
  sameMembers,
  type MemberKey,
} from './desired.ts';
import { listenerName, monitorName, parseLoadBalancerChildName, poolName } from '../names.ts';

/** Octavia's provisioning status; a string, since a newer Octavia may report one this code has never seen. */
type Status = { readonly provisioning_status: string };

interface ObservedLoadBalancer extends Status {
  readonly id: string;
  readonly vip_address: string | null;
  readonly vip_port_id: string | null;
}
type ObservedListener = Status &
  Pick<
    octavia.Listener,
    | 'id'
    | 'name'
    | 'protocol'
    | 'protocol_port'
    | 'allowed_cidrs'
    | 'default_pool_id'
    | 'timeout_client_data'
    | 'timeout_member_data'
  >;
type ObservedPool = Status & Pick<octavia.Pool, 'id' | 'name' | 'protocol'>;
type ObservedMonitor = Status &
  Pick<octavia.HealthMonitor, 'id' | 'name' | 'type' | 'delay' | 'timeout' | 'max_retries' | 'max_retries_down'>;

export interface Observed {
  /** The load balancer named `lb-{id}`, when there is one. */
  readonly loadBalancer: ObservedLoadBalancer | undefined;
  /** Every listener, pool and monitor in the project (those of other load balancers are ignored by name). */
  readonly listeners: readonly ObservedListener[];
  readonly pools: readonly ObservedPool[];
  readonly monitors: readonly ObservedMonitor[];
  /** The members of each pool the spec names, by pool id. */
  readonly members: ReadonlyMap<string, readonly MemberKey[]>;
  /** The floating IPs on the VIP port. */
  readonly floatingIPs: readonly { readonly id: string; readonly floating_ip_address: string }[];
}

/**
 * The status table of docs/spec/openstack-provider.md §Octavia Load Balancers: ACTIVE continues, PENDING_* yields,
 * anything else has no safe next action.
 */
type StatusRow = 'active' | 'pending' | 'unexpected';

export function statusRow(status: string): StatusRow {
  if (status === 'ACTIVE') return 'active';
  if (status === 'PENDING_CREATE' || status === 'PENDING_UPDATE' || status === 'PENDING_DELETE') return 'pending';
  return 'unexpected';
}

/** What a create-or-converge pass does next. Writes are followed by a yield; `done` reports the realisation. */
export type CreateStep =
  | { readonly row: 'rejected'; readonly why: string }
  | { readonly row: 'create-load-balancer' }
  | { readonly row: 'vip-mismatch' | 'vip-missing' | 'duplicate'; readonly why: string }
  | { readonly row: 'pending' | 'unexpected-status'; readonly what: string; readonly status: string }
  | { readonly row: 'create-floating-ip'; readonly portID: string }
  | { readonly row: 'delete-floating-ip'; readonly floatingIPID: string }
  | { readonly row: 'delete-listener' | 'delete-pool' | 'delete-monitor'; readonly id: string; readonly name: string }
  | { readonly row: 'immutable-drift'; readonly why: string }
  | {
      readonly row: 'create-pool';
      readonly loadBalancerID: string;
      readonly listener: Listener;
      readonly protocol: octavia.PoolProtocol;
    }
  | {
      readonly row: 'create-listener';
      readonly loadBalancerID: string;
      readonly listener: Listener;
      readonly poolID: string;
    }
  | { readonly row: 'update-listener'; readonly id: string; readonly update: octavia.ListenerUpdate }
  | { readonly row: 'replace-members'; readonly poolID: string; readonly members: readonly MemberKey[] }
  | { readonly row: 'create-monitor'; readonly listener: Listener; readonly poolID: string }
  | { readonly row: 'update-monitor'; readonly id: string; readonly update: octavia.HealthMonitorUpdate }
  | { readonly row: 'done'; readonly vipAddress: string; readonly publicIP: string | undefined };

/** Ends the plan early with `step` (a pending or inconsistent child found deep in the walk). */
class Stop extends Error {
  constructor(readonly step: CreateStep) {
    super(step.row);
  }
}

/** The one item named exactly `name`; two are a consistency error (names are the linkage contract). */
function named<T extends { readonly id: string; readonly name: string }>(items: readonly T[], name: string) {
  const found = items.filter((i) => i.name === name);
  if (found.length > 1) throw new Stop({ row: 'duplicate', why: `${String(found.length)} resources named ${name}` });
  return found[0];
}

/** A child that is not ACTIVE stops the pass the way the load balancer's own status does. */
function settled(what: string, item: Status): void {
  const row = statusRow(item.provisioning_status);
  if (row === 'pending') throw new Stop({ row: 'pending', what, status: item.provisioning_status });
  if (row === 'unexpected') throw new Stop({ row: 'unexpected-status', what, status: item.provisioning_status });
}

export function planCreate(spec: LoadBalancerInput, observed: Observed): CreateStep {
  for (const listener of spec.listeners) {
    const why = listenerViolation(listener);
    if (why !== undefined) return { row: 'rejected', why };
  }
  const lb = observed.loadBalancer;
  if (lb === undefined) return { row: 'create-load-balancer' };
  try {
    return converge(spec, observed, lb);
  } catch (error) {
    if (error instanceof Stop) return error.step;
    throw error;
  }
}

function converge(spec: LoadBalancerInput, observed: Observed, lb: ObservedLoadBalancer): CreateStep {
  const requested = spec.requestedVIPAddress;
  if (requested !== undefined && lb.vip_address !== null && lb.vip_address !== requested) {
    return { row: 'vip-mismatch', why: `requested VIP ${requested}, realised ${lb.vip_address}` };
  }
  settled('load balancer', lb);
  if (lb.vip_address === null || lb.vip_port_id === null) return { row: 'vip-missing', why: 'no VIP or VIP port' };

  if (observed.floatingIPs.length > 1) return { row: 'duplicate', why: 'several floating IPs on the VIP port' };
  const [floating] = observed.floatingIPs;
  if (spec.publicIP && floating === undefined) return { row: 'create-floating-ip', portID: lb.vip_port_id };
  if (!spec.publicIP && floating !== undefined) return { row: 'delete-floating-ip', floatingIPID: floating.id };

  const wanted = new Set(spec.listeners.map((l) => l.name));
  const orphanListener = ours(spec.id, observed.listeners, 'listener').find((o) => !wanted.has(o.listener));
  if (orphanListener !== undefined) return { row: 'delete-listener', ...orphanListener.item };

  for (const listener of spec.listeners) {
    const step = convergeListener(spec, observed, lb.id, listener);
    if (step !== undefined) return step;
  }

  const orphanPool = ours(spec.id, observed.pools, 'pool').find((o) => !wanted.has(o.listener));
  if (orphanPool !== undefined) return { row: 'delete-pool', ...orphanPool.item };
  const checked = new Set(spec.listeners.filter((l) => l.pool.healthCheck !== undefined).map((l) => l.name));
  const orphanMonitor = ours(spec.id, observed.monitors, 'monitor').find((o) => !checked.has(o.listener));
  if (orphanMonitor !== undefined) return { row: 'delete-monitor', ...orphanMonitor.item };

  return { row: 'done', vipAddress: lb.vip_address, publicIP: floating?.floating_ip_address };
}

function convergeListener(
  spec: LoadBalancerInput,
  observed: Observed,
  loadBalancerID: string,
  listener: Listener,
): CreateStep | undefined {
  const pool = named(observed.pools, poolName(spec.id, listener.name));
  if (pool === undefined) return { row: 'create-pool', loadBalancerID, listener, protocol: poolProtocol(listener) };
  settled(`pool ${pool.name}`, pool);
  if (pool.protocol !== poolProtocol(listener)) {
    // Octavia cannot change a pool's protocol; the API and the CRD refuse the proxyProtocolV2 drift that would.
    return { row: 'immutable-drift', why: `pool ${pool.name} is ${pool.protocol}, the spec implies another` };
  }

  const found = named(observed.listeners, listenerName(spec.id, listener.name));
  if (found === undefined) return { row: 'create-listener', loadBalancerID, listener, poolID: pool.id };
  settled(`listener ${found.name}`, found);
  if (found.protocol !== listenerProtocol(listener) || found.protocol_port !== listener.port) {
    return { row: 'immutable-drift', why: `listener ${found.name} has another protocol or port` };
  }
  const update = listenerUpdate(found, listener, pool.id);
  if (update !== undefined) return { row: 'update-listener', id: found.id, update };

  const members = listener.pool.members.map((m) => ({ address: m.address, port: m.port }));
  if (!sameMembers(observed.members.get(pool.id) ?? [], members)) {
    return { row: 'replace-members', poolID: pool.id, members };
  }

  const check = listener.pool.healthCheck;
  const monitor = named(observed.monitors, monitorName(spec.id, listener.name));
  if (check === undefined) {
    // A monitor the spec no longer implies goes with the orphans, after every listener has converged.
    return undefined;
  }
  if (monitor === undefined) return { row: 'create-monitor', listener, poolID: pool.id };
  settled(`monitor ${monitor.name}`, monitor);
  if (monitor.type !== monitorType(listener)) {
    return { row: 'immutable-drift', why: `monitor ${monitor.name} is ${monitor.type}, the spec implies another` };
  }
  const thresholds = monitorUpdate(monitor, check);
  return thresholds === undefined ? undefined : { row: 'update-monitor', id: monitor.id, update: thresholds };
}

/** The children of this load balancer (by name), with the listener each belongs to. */
function ours(
  loadBalancerID: string,
  items: readonly { readonly id: string; readonly name: string }[],
  child: 'listener' | 'pool' | 'monitor',
): { readonly listener: string; readonly item: { readonly id: string; readonly name: string } }[] {
  return items.flatMap((item) => {
    const parsed = parseLoadBalancerChildName(loadBalancerID, item.name);
    return parsed?.child === child ? [{ listener: parsed.listener, item: { id: item.id, name: item.name } }] : [];
  });
}

/** What a delete pass does next: the floating IP first (the cascade removes the VIP port it hangs on). */
type DeleteStep =
  | { readonly row: 'gone' }
  | { readonly row: 'pending' | 'unexpected-status'; readonly status: string }
  | { readonly row: 'duplicate'; readonly why: string }
  | { readonly row: 'delete-floating-ip'; readonly floatingIPID: string }
  | { readonly row: 'cascade-delete'; readonly id: string };

export function planDelete(observed: Pick<Observed, 'loadBalancer' | 'floatingIPs'>): DeleteStep {
  const lb = observed.loadBalancer;
  if (lb === undefined) return { row: 'gone' };
  const status = lb.provisioning_status;
  // DELETED is the last thing Octavia shows before the 404: wait for it like any pending state.
  if (statusRow(status) === 'pending' || status === 'DELETED') return { row: 'pending', status };
  if (status !== 'ACTIVE' && status !== 'ERROR') return { row: 'unexpected-status', status };
  if (observed.floatingIPs.length > 1) return { row: 'duplicate', why: 'several floating IPs on the VIP port' };
  const [floating] = observed.floatingIPs;
  if (floating !== undefined) return { row: 'delete-floating-ip', floatingIPID: floating.id };
  return { row: 'cascade-delete', id: lb.id };
}

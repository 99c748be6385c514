/**
 * A region LoadBalancer in Octavia (docs/spec/openstack-provider.md §Octavia Load Balancers,
 * docs/spec/upstream-region.md §Octavia LB): the load balancer `lb-{id}` with its VIP on the region Network's subnet,
 * listeners, pools, members and health monitors named `lb-{id}-{listener}-listener|-pool|-monitor`, and the optional
 * floating IP on the Octavia-owned VIP port.
 *
 * Principal: the IDENTITY's own user, scoped to its project, for Octavia and for the floating IP. Upstream reaches load
 * balancers through the per-identity service principal (docs/spec/upstream-region.md §Trust / scoping: load balancers
 * are not among the privileged calls), and Octavia's default policy grants writes to `load-balancer_member`, the role
 * the identity's user holds; the region credential holds only `manager` there, which Octavia's policy does not know.
 *
 * Each pass observes (decide.ts's Observed), decides one step with planCreate/planDelete, and performs it. Every
 * Octavia write leaves the load balancer PENDING_UPDATE, so a write is followed by a yield and the next pass sees
 * the settled result; every lookup re-finds by exact name, so an interrupted pass converges on the next.
 */
import * as octavia from '../../../openstack/loadbalancer.ts';
import * as neutron from '../../../openstack/network.ts';
import type { RegionOpenstack } from '../../apis/region.ts';
import { REJECTED_REASON } from '../../provider/classify.ts';
import { ResourceConsistencyError, ResourceKind, TransientError } from '../../provider/errors.ts';
import type { LoadBalancerInput, LoadBalancerRealisation } from '../../provider/inputs.ts';
import { Outcome } from '../../provider/outcome.ts';
import { allocateFloatingIP } from '../floating-ips.ts';
import { listExternalNetworks } from '../network/lifecycle.ts';
import {
  listenerName,
  loadBalancerChildPrefix,
  loadBalancerName,
  monitorName,
  poolName,
  subnetName,
} from '../names.ts';
import type { IdentityClient, RegionClientSet } from '../principals.ts';
import type { UserIdentity } from '../realised.ts';
import { gone, Steps } from '../steps.ts';
import { monitorThresholds, listenerProtocol, listenerSettings, monitorType } from './desired.ts';
import { planCreate, planDelete, type CreateStep, type Observed } from './decide.ts';
import { defined } from '../../../util/defined.ts';

export interface LoadBalancerDeps {
  readonly clients: RegionClientSet;
  /** `Region.spec.openstack`: the external network selector floating IPs are allocated from. */
  readonly config: RegionOpenstack;
  readonly signal: AbortSignal;
}

/** The tenant's message when the spec breaks a UDP rule the API and the CRD already refuse. */
export const UDP_RULES_MESSAGE = 'udp listeners support neither an idle timeout nor proxy protocol v2';

type Octavia = IdentityClient<'load-balancer'>;
type Neutron = IdentityClient<'network'>;

export async function createLoadBalancer(
  deps: LoadBalancerDeps,
  identity: UserIdentity,
  loadBalancer: LoadBalancerInput,
): Promise<Outcome<LoadBalancerRealisation>> {
  const clients = deps.clients.identity(identity.credentials);
  const lb = clients.client('load-balancer');
  const net = clients.client('network');
  const step = new Steps(deps.signal, 'create load balancer', ResourceKind.LoadBalancer);
  try {
    const observed = await step.run('observe', () => observe(lb, net, identity, loadBalancer, 'all'));
    const next = planCreate(loadBalancer, observed);
    if (next.row === 'done') {
      return Outcome.done({
        vipAddress: next.vipAddress,
        ...defined({ publicIP: next.publicIP }),
      });
    }
    if (next.row === 'rejected') {
      return Outcome.terminal(REJECTED_REASON, UDP_RULES_MESSAGE, new Error(next.why));
    }
    if (next.row === 'pending') return Outcome.yield(`${next.what} ${next.status}`);
    const wrong = inconsistency(next);
    if (wrong !== undefined) throw new ResourceConsistencyError(`create load balancer: ${wrong}`, consistencyOptions);
    await step.run(next.row, () => act(deps, lb, net, identity, loadBalancer, next));
    return Outcome.yield(next.row);
  } catch (error) {
    return step.fail(error);
  }
}

/** Floating IP first, then a cascade delete; yields until Octavia answers 404 for the name. */
export async function deleteLoadBalancer(
  deps: LoadBalancerDeps,
  identity: UserIdentity | undefined,
  loadBalancer: LoadBalancerInput,
): Promise<Outcome<undefined>> {
  // Never realised: no project (or no user in it), so nothing of this load balancer can exist.
  if (identity === undefined) return Outcome.ok();
  const clients = deps.clients.identity(identity.credentials);
  const lb = clients.client('load-balancer');
  const net = clients.client('network');
  const step = new Steps(deps.signal, 'delete load balancer', ResourceKind.LoadBalancer);
  try {
    const observed = await step.run('observe', () => observe(lb, net, identity, loadBalancer, 'load balancer'));
    const next = planDelete(observed);
    switch (next.row) {
      case 'gone':
        return Outcome.ok();
      case 'pending':
        return Outcome.yield(`load balancer ${next.status}`);
      case 'unexpected-status':
      case 'duplicate':
        throw new ResourceConsistencyError(
          `delete load balancer: ${next.row === 'duplicate' ? next.why : `status ${next.status}`}`,
          consistencyOptions,
        );
      case 'delete-floating-ip':
        await step.run('delete floating IP', () => gone(neutron.deleteFloatingIP(net, next.floatingIPID)));
        return Outcome.yield('floating IP deleted');
      case 'cascade-delete':
        await step.run('cascade delete', () => gone(octavia.deleteLoadBalancer(lb, next.id, { cascade: true })));
        return Outcome.yield('cascade delete accepted');
    }
  } catch (error) {
    return step.fail(error);
  }
}

const consistencyOptions = { resource: ResourceKind.LoadBalancer } as const;

/** The operator text of a step that stops the pass as a consistency error, or undefined for any other step. */
function inconsistency(step: CreateStep): string | undefined {
  switch (step.row) {
    case 'vip-mismatch':
    case 'vip-missing':
    case 'duplicate':
    case 'immutable-drift':
      return step.why;
    case 'unexpected-status':
      return `${step.what} is ${step.status}`;
    default:
      return undefined;
  }
}

/** What Octavia and Neutron hold for the load balancer; `load balancer` reads only what a delete needs. */
async function observe(
  lb: Octavia,
  net: Neutron,
  identity: UserIdentity,
  spec: LoadBalancerInput,
  scope: 'all' | 'load balancer',
): Promise<Observed> {
  const mine = { projectID: identity.projectID };
  const found = await octavia.findLoadBalancerByName(lb, loadBalancerName(spec.id));
  const floatingIPs =
    found?.vip_port_id == null ? [] : await neutron.listFloatingIPs(net, { portID: found.vip_port_id, ...mine });
  const none = { listeners: [], pools: [], monitors: [], members: new Map() };
  if (found === undefined || scope === 'load balancer') return { loadBalancer: found, floatingIPs, ...none };
  // One list per kind, narrowed to this load balancer's names: lookups and orphan pruning read the same lists.
  const prefix = loadBalancerChildPrefix(spec.id);
  const ofThis = <T extends { name: string }>(items: T[]) => items.filter((i) => i.name.startsWith(prefix));
  const listeners = ofThis(await octavia.listListeners(lb, mine));
  const pools = ofThis(await octavia.listPools(lb, mine));
  const monitors = ofThis(await octavia.listHealthMonitors(lb, mine));
  const members = new Map<string, { address: string; port: number }[]>();
  const implied = new Set(spec.listeners.map((l) => poolName(spec.id, l.name)));
  for (const pool of pools.filter((p) => implied.has(p.name))) {
    const listed = await octavia.listMembers(lb, pool.id);
    members.set(
      pool.id,
      listed.map((m) => ({ address: m.address, port: m.protocol_port })),
    );
  }
  return { loadBalancer: found, floatingIPs, listeners, pools, monitors, members };
}

/** Performs one write step of planCreate. */
async function act(
  deps: LoadBalancerDeps,
  lb: Octavia,
  net: Neutron,
  identity: UserIdentity,
  spec: LoadBalancerInput,
  step: CreateStep,
): Promise<void> {
  switch (step.row) {
    case 'create-load-balancer': {
      const subnet = await neutron.findSubnetByName(net, subnetName(spec.networkID), {
        projectID: identity.projectID,
      });
      if (subnet === undefined) {
        // The controller gates on the Network being Available; a missing subnet means it is being replaced.
        throw new TransientError('create load balancer: the network has no subnet', consistencyOptions);
      }
      await octavia.createLoadBalancer(lb, {
        name: loadBalancerName(spec.id),
        vip_subnet_id: subnet.id,
        ...defined({ vip_address: spec.requestedVIPAddress }),
      });
      return;
    }
    case 'create-floating-ip': {
      const [external] = await listExternalNetworks(deps);
      if (external === undefined) {
        throw new TransientError('create floating IP: no external network matches the region selector', {
          resource: ResourceKind.LoadBalancer,
        });
      }
      await allocateFloatingIP(net, identity.projectID, external.id, step.portID);
      return;
    }
    case 'delete-floating-ip':
      return gone(neutron.deleteFloatingIP(net, step.floatingIPID));
    case 'delete-listener':
      return gone(octavia.deleteListener(lb, step.id));
    case 'delete-pool':
      return gone(octavia.deletePool(lb, step.id));
    case 'delete-monitor':
      return gone(octavia.deleteHealthMonitor(lb, step.id));
    case 'create-pool':
      await octavia.createPool(lb, {
        name: poolName(spec.id, step.listener.name),
        loadbalancer_id: step.loadBalancerID,
        protocol: step.protocol,
        lb_algorithm: 'ROUND_ROBIN',
      });
      return;
    case 'create-listener': {
      const { allowedCIDRs, idleTimeoutMs } = listenerSettings(step.listener);
      await octavia.createListener(lb, {
        name: listenerName(spec.id, step.listener.name),
        loadbalancer_id: step.loadBalancerID,
        protocol: listenerProtocol(step.listener),
        protocol_port: step.listener.port,
        default_pool_id: step.poolID,
        ...(allowedCIDRs.length === 0 ? {} : { allowed_cidrs: allowedCIDRs }),
        ...(idleTimeoutMs === undefined
          ? {}
          : { timeout_client_data: idleTimeoutMs, timeout_member_data: idleTimeoutMs }),
      });
      return;
    }
    case 'update-listener':
      await octavia.updateListener(lb, step.id, step.update);
      return;
    case 'replace-members':
      return octavia.replaceMembers(
        lb,
        step.poolID,
        step.members.map((m) => ({ address: m.address, protocol_port: m.port })),
      );
    case 'create-monitor': {
      const check = step.listener.pool.healthCheck;
      if (check === undefined) throw new Error('create-monitor without a health check');
      await octavia.createHealthMonitor(lb, {
        name: monitorName(spec.id, step.listener.name),
        pool_id: step.poolID,
        type: monitorType(step.listener),
        ...monitorThresholds(check),
      });
      return;
    }
    case 'update-monitor':
      await octavia.updateHealthMonitor(lb, step.id, step.update);
      return;
    default:
      throw new Error(`load balancer step ${step.row} is not a write`);
  }
}

/**
 * The LoadBalancer controller: realises a load balancer through the provider's LoadBalancerProvider, in the project
 * of the Identity it names by label, on the Network it names by label (`regions.unikorn-cloud.org/network-id`), and
 * records the VIP and the floating IP in `status.vipAddress` / `status.publicIP` (this reconciler is their one
 * writer). It provisions only once both the Identity and the Network are Available; its delete always goes to the
 * provider, which treats a never-realised identity as proof that nothing exists.
 */
import { getOptional, type Client } from '../../kube/client.ts';
import { findCondition, isConditionTrue } from '../../kube/conditions.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { IndexFunc } from '../../runtime/cache.ts';
import type { Controller, Mapper } from '../../runtime/controller.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Request } from '../../runtime/types.ts';
import {
  DEFAULT_TCP_IDLE_TIMEOUT_SECONDS,
  loadBalancerType,
  vipProblem,
  type LoadBalancer,
  type Listener as ListenerSpec,
} from '../apis/load-balancer.ts';
import { networkType, type Network } from '../apis/network.ts';
import { conditionReasons, conditionTypes, labels } from '../apis/shared.ts';
import type { LoadBalancerProvider, ProviderLookup } from '../provider/contract.ts';
import type { HealthCheck, Listener, LoadBalancerInput, LoadBalancerRealisation } from '../provider/inputs.ts';
import { RECHECK_MS, type Verdict } from './decide.ts';
import { ownershipOf } from './ownership.ts';
import type { RegistrationOptions } from './metrics.ts';
import { provisionerReconciler, type Provisioner } from './provisioner.ts';
import { becameAvailable, byIdentity, IDENTITY_INDEX } from './watches.ts';
import { workloadController, workloadProvisioner } from './workload.ts';
import { defined } from '../../util/defined.ts';

export const LOAD_BALANCER_CONTROLLER = 'region-load-balancer';

/** The cache index of load balancers by the network they name: what the network watch fans out through. */
const NETWORK_INDEX = labels.networkID;

export const loadBalancerMessages = {
  networkNotFound: 'the network this load balancer uses does not exist',
  networkNotReady: 'waiting for the network this load balancer uses to become available',
  networkFailed: 'the network this load balancer uses failed to provision',
} as const;

/** Applied when a health check leaves a field unset (the CRD makes every field optional). */
export const DEFAULT_HEALTH_CHECK: HealthCheck = {
  intervalSeconds: 10,
  timeoutSeconds: 5,
  healthyThreshold: 3,
  unhealthyThreshold: 3,
};

const label = (object: KubeObject, key: string): string | undefined => {
  const value = object.metadata.labels?.[key];
  return value === undefined || value === '' ? undefined : value;
};

/** The provider's input from the CRD (pure); undefined when an ownership or network label is missing. */
function loadBalancerInputOf(lb: LoadBalancer): LoadBalancerInput | undefined {
  const ownership = ownershipOf(lb);
  const networkID = label(lb, labels.networkID);
  if (ownership === undefined || networkID === undefined) return undefined;
  const { spec } = lb;
  return {
    ...ownership,
    id: lb.metadata.name,
    networkID,
    ...defined({ requestedVIPAddress: spec.requestedVIPAddress }),
    publicIP: spec.publicIP ?? false,
    listeners: spec.listeners.map(listenerOf),
  };
}

function listenerOf(listener: ListenerSpec): Listener {
  const check = listener.pool.healthCheck;
  // TCP listeners default their idle timeout in code; a UDP listener's stays absent (Octavia takes none).
  const idle =
    listener.idleTimeoutSeconds ?? (listener.protocol === 'tcp' ? DEFAULT_TCP_IDLE_TIMEOUT_SECONDS : undefined);
  return {
    name: listener.name,
    protocol: listener.protocol,
    port: listener.port,
    allowedCIDRs: listener.allowedCIDRs ?? [],
    ...defined({ idleTimeoutSeconds: idle }),
    pool: {
      proxyProtocolV2: listener.pool.proxyProtocolV2 ?? false,
      members: listener.pool.members.map((m) => ({ address: m.address, port: m.port })),
      ...(check === undefined ? {} : { healthCheck: { ...DEFAULT_HEALTH_CHECK, ...check } }),
    },
  };
}

/** The status fields this reconciler owns; an absent floating IP clears `publicIP`. */
const loadBalancerStatusOf = (realisation: LoadBalancerRealisation): Record<string, unknown> => ({
  vipAddress: realisation.vipAddress,
  publicIP: realisation.publicIP,
});

/**
 * The network gate, judged on the Network the load balancer names; undefined when it is Available and a requested
 * VIP is one of its usable hosts (the CRD cannot see the network's prefix: the REST API refuses such a VIP itself).
 */
function networkGate(network: Network | undefined, requestedVIP: string | undefined): Verdict | undefined {
  const report = (reason: string, message: string, requeueAfterMs?: number): Verdict => ({
    action: 'report',
    row: `gate:network:${reason}`,
    available: { status: 'False', reason, message },
    ...defined({ requeueAfterMs }),
  });
  const { networkFailed, networkNotFound, networkNotReady } = loadBalancerMessages;
  if (network === undefined) return report(conditionReasons.dependencyNotFound, networkNotFound, RECHECK_MS);
  if (network.metadata.deletionTimestamp !== undefined) {
    return report(conditionReasons.dependencyNotReady, networkNotReady, RECHECK_MS);
  }
  const conditions = network.status?.conditions;
  if (isConditionTrue(conditions, conditionTypes.available)) {
    const vip = requestedVIP === undefined ? undefined : vipProblem(requestedVIP, network.spec.prefix);
    // No timer: a corrected spec is a new generation, which wakes the load balancer.
    return vip === undefined ? undefined : report(conditionReasons.errored, vip.message);
  }
  if (findCondition(conditions, conditionTypes.available)?.reason === conditionReasons.errored) {
    // No timer: the network watch wakes this load balancer when its network becomes Available.
    return report(conditionReasons.dependencyFailed, networkFailed);
  }
  return report(conditionReasons.dependencyNotReady, networkNotReady, RECHECK_MS);
}

export function loadBalancerProvisioner(
  client: Client,
  lookup: ProviderLookup<LoadBalancerProvider>,
): Provisioner<LoadBalancer, LoadBalancerProvider, LoadBalancerRealisation> {
  return workloadProvisioner(client, lookup, {
    type: loadBalancerType,
    inputOf: loadBalancerInputOf,
    create: (provider, ctx, identity, input) => provider.createLoadBalancer(ctx, identity, input),
    delete: (provider, ctx, identity, input) => provider.deleteLoadBalancer(ctx, identity, input),
    gate: async (lb, input) =>
      networkGate(
        await getOptional(client, networkType, lb.metadata.namespace ?? '', input.networkID),
        input.requestedVIPAddress,
      ),
    realised: loadBalancerStatusOf,
  });
}

const byNetwork: IndexFunc = (object) => {
  const id = label(object, labels.networkID);
  return id === undefined ? [] : [id];
};

/** The load balancers on a network, from the cache index (an update maps its new object only, as usersOf does). */
function loadBalancersOn(manager: Manager): Mapper {
  return (network, event) => {
    if (event.type === 'update' && network !== event.object) return [];
    return manager
      .list(loadBalancerType, {
        cluster: event.cluster,
        ...defined({ namespace: network.metadata.namespace }),
        index: NETWORK_INDEX,
        value: network.metadata.name,
      })
      .map((o): Request => ({ cluster: event.cluster, namespace: o.metadata.namespace ?? '', name: o.metadata.name }));
  };
}

/**
 * Registers the controller and the two indexes its watches read (by identity and by network); call before
 * `manager.start()`. `observe` counts the decision rows (registerRegionControllers' rowCounter).
 */
export function registerLoadBalancerController(
  manager: Manager,
  lookup: ProviderLookup<LoadBalancerProvider>,
  { controller: options = {}, observe }: RegistrationOptions = {},
): Controller {
  manager.index(loadBalancerType, IDENTITY_INDEX, byIdentity);
  manager.index(loadBalancerType, NETWORK_INDEX, byNetwork);
  return workloadController(manager, LOAD_BALANCER_CONTROLLER, loadBalancerType)
    .watches(networkType, loadBalancersOn(manager), { clusters: 'management', predicates: [becameAvailable] })
    .withOptions(options)
    .complete(provisionerReconciler(manager, (client) => loadBalancerProvisioner(client, lookup), observe));
}

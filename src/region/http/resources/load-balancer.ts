/**
 * v2 load balancers, pure. Beyond the schema: listener names unique, protocol and port unique, idle timeouts on TCP
 * only, health-check timeout below its interval, members unique, a requested VIP a usable host of the network. On update
 * (docs/spec/openstack-provider.md §Octavia Load Balancers): an existing listener keeps its protocol and port, and its
 * proxyProtocolV2 (that changes the Octavia pool protocol, which Octavia cannot update in place).
 */
import { memberProblem, vipProblem, type Listener, type LoadBalancer, type Network } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import type { LoadBalancerListenerV2, LoadBalancerV2Read, LoadBalancerV2Spec } from '../schemas/load-balancer.ts';
import { readMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { defined } from '../../../util/defined.ts';

function listenerViolations(listeners: readonly LoadBalancerListenerV2[]): FieldViolation[] {
  const errors: FieldViolation[] = [];
  const names = new Set<string>();
  const endpoints = new Set<string>();
  listeners.forEach((l, i) => {
    const at = `/spec/listeners/${String(i)}`;
    if (names.has(l.name)) errors.push(violation(`${at}/name`, 'unique', 'listener names must be unique'));
    names.add(l.name);
    const endpoint = `${l.protocol}/${String(l.port)}`;
    if (endpoints.has(endpoint))
      errors.push(violation(`${at}/port`, 'unique', 'listener protocol and port must be unique'));
    endpoints.add(endpoint);
    if (l.idleTimeoutSeconds !== undefined && l.protocol !== 'tcp') {
      errors.push(violation(`${at}/idleTimeoutSeconds`, 'tcpOnly', 'idleTimeoutSeconds applies to tcp listeners only'));
    }
    const check = l.pool.healthCheck;
    if (
      check?.timeoutSeconds !== undefined &&
      check.intervalSeconds !== undefined &&
      check.timeoutSeconds >= check.intervalSeconds
    ) {
      errors.push(
        violation(
          `${at}/pool/healthCheck/timeoutSeconds`,
          'lessThanInterval',
          'timeoutSeconds must be less than intervalSeconds',
        ),
      );
    }
    const members = new Set<string>();
    l.pool.members.forEach((m, j) => {
      const key = `${m.address}:${String(m.port)}`;
      if (members.has(key)) {
        errors.push(
          violation(`${at}/pool/members/${String(j)}`, 'unique', 'members must be unique by address and port'),
        );
      }
      members.add(key);
    });
  });
  return errors;
}

export function loadBalancerCreateViolations(
  spec: LoadBalancerV2Spec & { vipAddress?: string },
  network: Network,
): FieldViolation[] {
  const errors = [...listenerViolations(spec.listeners), ...memberViolations(spec.listeners)];
  const vip = spec.vipAddress === undefined ? undefined : vipProblem(spec.vipAddress, network.spec.prefix);
  if (vip !== undefined) errors.push(violation('/spec/vipAddress', vip.rule, vip.message));
  return errors;
}

/** Each pool member outside usable unicast space (on create and on update). */
function memberViolations(listeners: readonly LoadBalancerV2Spec['listeners'][number][]): FieldViolation[] {
  return listeners.flatMap((l, i) =>
    l.pool.members.flatMap((m, j) => {
      const problem = memberProblem(m.address);
      const at = `/spec/listeners/${String(i)}/pool/members/${String(j)}/address`;
      return problem === undefined ? [] : [violation(at, problem.rule, problem.message)];
    }),
  );
}

export function loadBalancerUpdateViolations(spec: LoadBalancerV2Spec, current: LoadBalancer): FieldViolation[] {
  const errors = [...listenerViolations(spec.listeners), ...memberViolations(spec.listeners)];
  const existing = new Map(current.spec.listeners.map((l) => [l.name, l]));
  spec.listeners.forEach((l, i) => {
    const before = existing.get(l.name);
    if (before === undefined) return;
    const at = `/spec/listeners/${String(i)}`;
    if (before.protocol !== l.protocol)
      errors.push(violation(`${at}/protocol`, 'immutable', "an existing listener's protocol cannot change"));
    if (before.port !== l.port)
      errors.push(violation(`${at}/port`, 'immutable', "an existing listener's port cannot change"));
    if ((before.pool.proxyProtocolV2 ?? false) !== (l.pool.proxyProtocolV2 ?? false)) {
      errors.push(
        violation(`${at}/pool/proxyProtocolV2`, 'immutable', "an existing listener's proxyProtocolV2 cannot change"),
      );
    }
  });
  return errors;
}

function listenersOf(listeners: readonly LoadBalancerListenerV2[]): Listener[] {
  return listeners.map((l) => ({
    name: l.name,
    protocol: l.protocol,
    port: l.port,
    ...(l.allowedCidrs === undefined ? {} : { allowedCIDRs: [...l.allowedCidrs] }),
    ...defined({ idleTimeoutSeconds: l.idleTimeoutSeconds }),
    pool: {
      ...defined({ proxyProtocolV2: l.pool.proxyProtocolV2 }),
      members: l.pool.members.map((m) => ({ address: m.address, port: m.port })),
      ...(l.pool.healthCheck === undefined ? {} : { healthCheck: { ...l.pool.healthCheck } }),
    },
  }));
}

export function loadBalancerFor(
  id: string,
  metadata: ResourceWriteMetadata,
  spec: LoadBalancerV2Spec & { vipAddress?: string },
  network: Network,
  principal: Principal,
): LoadBalancer {
  const tenancy = { ...tenancyOf(network), networkID: network.metadata.name };
  return resource('LoadBalancer', newMetadata(id, metadata, tenancy, principal, network), {
    ...defined({ requestedVIPAddress: spec.vipAddress, publicIP: spec.publicIP }),
    listeners: listenersOf(spec.listeners),
    ...defined({ tags: metadata.tags }),
  }) as LoadBalancer;
}

export function updatedLoadBalancerSpec(
  spec: LoadBalancerV2Spec,
  current: LoadBalancer,
  tags: ResourceWriteMetadata['tags'],
): LoadBalancer['spec'] {
  const { listeners: _l, publicIP: _p, tags: _t, ...kept } = current.spec;
  return {
    ...kept,
    ...defined({ publicIP: spec.publicIP }),
    listeners: listenersOf(spec.listeners),
    ...defined({ tags }),
  };
}

export function loadBalancerRead(lb: LoadBalancer): LoadBalancerV2Read {
  const tenancy = tenancyOf(lb);
  return {
    metadata: readMetadataOf(lb),
    spec: {
      ...defined({ publicIP: lb.spec.publicIP }),
      listeners: lb.spec.listeners.map((l) => ({
        name: l.name,
        protocol: l.protocol,
        port: l.port,
        ...(l.allowedCIDRs === undefined ? {} : { allowedCidrs: [...l.allowedCIDRs] }),
        ...defined({ idleTimeoutSeconds: l.idleTimeoutSeconds }),
        pool: {
          ...defined({ proxyProtocolV2: l.pool.proxyProtocolV2 }),
          members: l.pool.members.map((m) => ({ ...m })),
          ...(l.pool.healthCheck === undefined ? {} : { healthCheck: { ...l.pool.healthCheck } }),
        },
      })),
    },
    status: {
      regionId: tenancy.regionID,
      networkId: tenancy.networkID,
      ...defined({ vipAddress: lb.status?.vipAddress, publicIP: lb.status?.publicIP }),
    },
  };
}

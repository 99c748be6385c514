/**
 * LoadBalancer: an Octavia load balancer on the network named by the `regions.unikorn-cloud.org/network-id`
 * label. Listener rules mirror the REST contract so the CRD refuses what the API would: the rules are CEL here,
 * with one set of messages (`loadBalancerRules`); load-balancer.test.ts holds them to a model written as code.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import {
  Conditions,
  DNS_LABEL_PATTERN,
  IPv4Address,
  IPv4Prefix,
  Port,
  commonSpec,
  envelope,
  regionResourceType,
  type FieldRule,
} from './shared.ts';
import { gatewayAddress } from './network.ts';
import { contains, parseIPv4, parsePrefix, prefixSize, unusableRangeOf } from '../../util/ipv4.ts';

export const loadBalancerType = regionResourceType<LoadBalancer>('LoadBalancer', 'loadbalancers');

/** Applied in code, not as a schema default: UDP listeners must not carry an idle timeout. */
export const DEFAULT_TCP_IDLE_TIMEOUT_SECONDS = 60;

/**
 * The listener rules of docs/spec/openstack-provider.md §Octavia Load Balancers, each with the message the CRD and the
 * REST API give. Octavia cannot change a listener's protocol or port, nor a pool's protocol, which proxyProtocolV2
 * decides (PROXYV2 or TCP); UDP listeners take neither an idle timeout nor Proxy Protocol v2.
 */
export const loadBalancerRules = {
  udpIdleTimeout: { rule: 'udp-idle-timeout', message: 'idleTimeoutSeconds applies to tcp listeners only' },
  udpProxyProtocol: { rule: 'udp-proxy-protocol', message: 'proxyProtocolV2 applies to tcp listeners only' },
  listenerImmutable: {
    rule: 'listener-protocol-port-immutable',
    message: "an existing listener's protocol and port cannot change; add a listener with a new name instead",
  },
  proxyProtocolDrift: {
    rule: 'listener-proxy-protocol-immutable',
    message:
      "an existing listener's proxyProtocolV2 cannot change (its pool's protocol is fixed); add a listener with a new name instead",
  },
} as const;

const vipRules = {
  inNetwork: { rule: 'inNetwork', message: 'the VIP must fall within the network prefix' },
  usable: {
    rule: 'usableAddress',
    message: 'the VIP must be a host address of the network, not its network, gateway or broadcast address',
  },
} as const satisfies Record<string, FieldRule>;

const memberRule = {
  rule: 'usableAddressSpace',
  message:
    'a member must be a unicast host address: not in 0.0.0.0/8, 127.0.0.0/8, 169.254.0.0/16, 224.0.0.0/4 or 240.0.0.0/4',
} as const satisfies FieldRule;

/**
 * The rule a pool member's address breaks, if any. A member may sit off the load balancer's network (upstream hands
 * Octavia the address alone, reached by routing; its own example has one), but never where the amphora would reach
 * itself, the metadata service or no host at all.
 */
export function memberProblem(address: string): FieldRule | undefined {
  const parsed = parseIPv4(address);
  if (parsed === undefined) return undefined; // the schema's to refuse
  return unusableRangeOf({ base: parsed, length: 32 }) === undefined ? undefined : memberRule;
}

/**
 * The rule a requested VIP breaks on a network of `prefix`, if any: Octavia takes the VIP port on the network's
 * subnet, where the network, gateway and broadcast addresses are never free.
 */
export function vipProblem(vip: string, prefix: string): FieldRule | undefined {
  const network = parsePrefix(prefix);
  const address = parseIPv4(vip);
  if (network === undefined || address === undefined || !contains(network, address)) return vipRules.inNetwork;
  const reserved = [network.base, gatewayAddress(network), network.base + prefixSize(network) - 1];
  return reserved.includes(address) ? vipRules.usable : undefined;
}

/**
 * Bounds that keep the CEL rules within kube-apiserver's cost budget (the listener rules compare every pair):
 * generous for one load balancer; Octavia sets no limit of its own.
 */
const MAX_LISTENERS = 32;
const MAX_MEMBERS = 256;
const MAX_ALLOWED_CIDRS = 64;

// CEL for "the old listener of the same name", used by the transition rules below.
const SAME_NAME_EXISTS = 'oldSelf.listeners.exists(o, o.name == l.name)';
const PROXY = (v: string) => `(has(${v}.pool.proxyProtocolV2) && ${v}.pool.proxyProtocolV2)`;

const HealthCheck = Type.Object(
  {
    intervalSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    timeoutSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300 })),
    healthyThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    unhealthyThreshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.timeoutSeconds) || !has(self.intervalSeconds) || self.timeoutSeconds < self.intervalSeconds',
        message: 'timeoutSeconds must be less than intervalSeconds',
        fieldPath: '.timeoutSeconds',
      },
    ],
  },
);

const Member = Type.Object({ address: IPv4Address('The member address.'), port: Port('The member port.') });

const Pool = Type.Object({
  proxyProtocolV2: Type.Optional(Type.Boolean({ description: 'Send PROXY protocol v2 headers.' })),
  // Unique as a list-map keyed by address and port (as upstream declares it), which Kubernetes checks itself.
  members: Type.Array(Member, {
    maxItems: MAX_MEMBERS,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['address', 'port'],
    description: 'The pool members, unique by address and port.',
  }),
  healthCheck: Type.Optional(HealthCheck),
});

export const Listener = Type.Object(
  {
    name: Type.String({ maxLength: 63, pattern: DNS_LABEL_PATTERN, description: 'The listener name.' }),
    protocol: Type.Enum(['tcp', 'udp'], { description: 'The listener protocol.' }),
    port: Port('The listener port.'),
    allowedCIDRs: Type.Optional(Type.Array(IPv4Prefix('An allowed source prefix.'), { maxItems: MAX_ALLOWED_CIDRS })),
    idleTimeoutSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 86400, description: 'TCP only; 60 when unset.' }),
    ),
    pool: Pool,
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.idleTimeoutSeconds) || self.protocol == 'tcp'",
        message: loadBalancerRules.udpIdleTimeout.message,
        fieldPath: '.idleTimeoutSeconds',
      },
      {
        rule: "!(has(self.pool.proxyProtocolV2) && self.pool.proxyProtocolV2) || self.protocol == 'tcp'",
        message: loadBalancerRules.udpProxyProtocol.message,
        fieldPath: '.pool.proxyProtocolV2',
      },
    ],
  },
);
export type Listener = Type.Static<typeof Listener>;

export const LoadBalancerSpec = Type.Object(
  {
    ...commonSpec,
    requestedVIPAddress: Type.Optional(IPv4Address('A VIP to ask for.')),
    publicIP: Type.Optional(Type.Boolean({ description: 'Allocate a floating IP for the VIP.' })),
    listeners: Type.Array(Listener, {
      minItems: 1,
      maxItems: MAX_LISTENERS,
      description: 'The listeners, unique by name and by protocol and port.',
      'x-kubernetes-validations': [
        { rule: 'self.all(l, self.exists_one(m, m.name == l.name))', message: 'listener names must be unique' },
        {
          rule: 'self.all(l, self.exists_one(m, m.protocol == l.protocol && m.port == l.port))',
          message: 'listener protocol and port must be unique',
        },
      ],
    }),
  },
  {
    // Transition rules (oldSelf): a listener is "existing" when the old spec has one of the same name.
    'x-kubernetes-validations': [
      {
        rule: `self.listeners.all(l, !${SAME_NAME_EXISTS} || oldSelf.listeners.exists(o, o.name == l.name && o.protocol == l.protocol && o.port == l.port))`,
        message: loadBalancerRules.listenerImmutable.message,
        fieldPath: '.listeners',
      },
      {
        rule: `self.listeners.all(l, !${SAME_NAME_EXISTS} || oldSelf.listeners.exists(o, o.name == l.name && ${PROXY('o')} == ${PROXY('l')}))`,
        message: loadBalancerRules.proxyProtocolDrift.message,
        fieldPath: '.listeners',
      },
    ],
  },
);
export type LoadBalancerSpec = Type.Static<typeof LoadBalancerSpec>;

const LoadBalancerStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  vipAddress: Type.Optional(IPv4Address('The VIP.')),
  publicIP: Type.Optional(IPv4Address('The floating IP.')),
});
type LoadBalancerStatus = Type.Static<typeof LoadBalancerStatus>;

export const LoadBalancerSchema = envelope('An Octavia load balancer.', {
  spec: LoadBalancerSpec,
  status: Type.Optional(LoadBalancerStatus),
});

export type LoadBalancer = Resource<LoadBalancerSpec, LoadBalancerStatus>;

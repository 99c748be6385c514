/**
 * LoadBalancer: an Octavia load balancer on the network named by the `regions.unikorn-cloud.org/network-id`
 * label. Listener rules mirror the REST contract so the CRD refuses what the API would.
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
} from './shared.ts';

export const loadBalancerType = regionResourceType('LoadBalancer', 'loadbalancers');

/** Applied in code, not as a schema default: UDP listeners must not carry an idle timeout. */
export const DEFAULT_TCP_IDLE_TIMEOUT_SECONDS = 60;

export const HealthCheck = Type.Object(
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

export const Member = Type.Object({ address: IPv4Address('The member address.'), port: Port('The member port.') });

export const Pool = Type.Object({
  proxyProtocolV2: Type.Optional(Type.Boolean({ description: 'Send PROXY protocol v2 headers.' })),
  members: Type.Array(Member, {
    description: 'The pool members, unique by address and port.',
    'x-kubernetes-validations': [
      {
        rule: 'self.all(m, self.exists_one(n, n.address == m.address && n.port == m.port))',
        message: 'members must be unique by address and port',
      },
    ],
  }),
  healthCheck: Type.Optional(HealthCheck),
});

export const Listener = Type.Object(
  {
    name: Type.String({ maxLength: 63, pattern: DNS_LABEL_PATTERN, description: 'The listener name.' }),
    protocol: Type.Enum(['tcp', 'udp'], { description: 'The listener protocol.' }),
    port: Port('The listener port.'),
    allowedCIDRs: Type.Optional(Type.Array(IPv4Prefix('An allowed source prefix.'))),
    idleTimeoutSeconds: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 86400, description: 'TCP only; 60 when unset.' }),
    ),
    pool: Pool,
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "!has(self.idleTimeoutSeconds) || self.protocol == 'tcp'",
        message: 'idleTimeoutSeconds applies to tcp listeners only',
        fieldPath: '.idleTimeoutSeconds',
      },
    ],
  },
);
export type Listener = Type.Static<typeof Listener>;

export const LoadBalancerSpec = Type.Object({
  ...commonSpec,
  requestedVIPAddress: Type.Optional(IPv4Address('A VIP to ask for.')),
  publicIP: Type.Optional(Type.Boolean({ description: 'Allocate a floating IP for the VIP.' })),
  listeners: Type.Array(Listener, {
    minItems: 1,
    description: 'The listeners, unique by name and by protocol and port.',
    'x-kubernetes-validations': [
      { rule: 'self.all(l, self.exists_one(m, m.name == l.name))', message: 'listener names must be unique' },
      {
        rule: 'self.all(l, self.exists_one(m, m.protocol == l.protocol && m.port == l.port))',
        message: 'listener protocol and port must be unique',
      },
    ],
  }),
});
export type LoadBalancerSpec = Type.Static<typeof LoadBalancerSpec>;

export const LoadBalancerStatus = Type.Object({
  conditions: Type.Optional(Conditions),
  vipAddress: Type.Optional(IPv4Address('The VIP.')),
  publicIP: Type.Optional(IPv4Address('The floating IP.')),
});
export type LoadBalancerStatus = Type.Static<typeof LoadBalancerStatus>;

export const LoadBalancerSchema = envelope('An Octavia load balancer.', {
  spec: LoadBalancerSpec,
  status: Type.Optional(LoadBalancerStatus),
});

export type LoadBalancer = Resource<LoadBalancerSpec, LoadBalancerStatus>;

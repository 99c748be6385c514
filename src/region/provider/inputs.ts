/**
 * The narrow views of region resources a provider call needs, and what it reports back. Controllers build these
 * from the CRDs; keeping them structural and small keeps the contract free of CRD types (only `region()` returns one) and lets a test call a
 * provider with a literal. Ids are the resources' Kubernetes names (UUIDs upstream).
 */

/** Who owns a resource: the tenancy labels every region resource carries. */
export interface Ownership {
  readonly organizationID: string;
  readonly projectID: string;
  readonly regionID: string;
}

/** A user tag (`spec.tags[]`). */
export interface Tag {
  readonly name: string;
  readonly value: string;
}

/** The service principal whose provider project holds every workload resource of its network. */
export interface IdentityInput extends Ownership {
  readonly id: string;
}

export interface NetworkInput extends Ownership {
  readonly id: string;
  /** IPv4 CIDR. */
  readonly prefix: string;
  readonly reservations: { readonly prefixLength: number; readonly providerReservedPrefixLength?: number };
  readonly dnsNameservers: readonly string[];
  readonly routes: readonly { readonly prefix: string; readonly nextHop: string }[];
}

/** The provider's ids for a realised network (`Network.status.openstack`). */
export interface NetworkRealisation {
  readonly networkID: string;
  readonly subnetID: string;
  readonly vlanID?: number;
  readonly storageRange?: { readonly startIP: string; readonly endIP: string };
}

export type Protocol = 'any' | 'icmp' | 'tcp' | 'udp' | 'vrrp';

export interface SecurityGroupRule {
  readonly direction: 'ingress' | 'egress';
  readonly protocol: Protocol;
  /** A single port or an inclusive range; absent means every port. */
  readonly port?: { readonly number: number } | { readonly start: number; readonly end: number };
  readonly cidr: string;
}

export interface SecurityGroupInput extends Ownership {
  readonly id: string;
  readonly rules: readonly SecurityGroupRule[];
}

export interface HealthCheck {
  readonly intervalSeconds: number;
  readonly timeoutSeconds: number;
  readonly healthyThreshold: number;
  readonly unhealthyThreshold: number;
}

export interface Listener {
  readonly name: string;
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
  readonly allowedCIDRs: readonly string[];
  /** TCP only. */
  readonly idleTimeoutSeconds?: number;
  readonly pool: {
    readonly proxyProtocolV2: boolean;
    readonly members: readonly { readonly address: string; readonly port: number }[];
    readonly healthCheck?: HealthCheck;
  };
}

export interface LoadBalancerInput extends Ownership {
  readonly id: string;
  readonly networkID: string;
  readonly requestedVIPAddress?: string;
  readonly publicIP: boolean;
  readonly listeners: readonly Listener[];
}

export interface LoadBalancerRealisation {
  readonly vipAddress: string;
  readonly publicIP?: string;
}

export type SSHInjection = 'ca' | 'identityKeypair' | 'none';

export interface ServerInput extends Ownership {
  readonly id: string;
  /** The user's display name (`unikorn-cloud.org/name` label); the Nova server name. */
  readonly name: string;
  readonly flavorID: string;
  readonly imageID?: string;
  readonly networkID: string;
  readonly allowedAddressPairs: readonly { readonly cidr: string; readonly macAddress?: string }[];
  readonly securityGroupIDs: readonly string[];
  readonly publicIP: boolean;
  readonly sshInjection: SSHInjection;
  readonly userData?: Uint8Array;
  /** A pinned host (Nova `hypervisor_hostname`). */
  readonly infrastructureRef?: string;
  readonly tags: readonly Tag[];
}

export interface ServerAddresses {
  readonly privateIP?: string;
  readonly publicIP?: string;
}

export type ServerPhase = 'Pending' | 'Queued' | 'Building' | 'Rebuilding' | 'Running' | 'Stopping' | 'Stopped';
export type ServerHealth = 'Healthy' | 'Degraded' | 'Errored' | 'Provisioning' | 'Unknown';

/** What the monitor observes in one poll; which fields it may write is the monitor's contract, not this type's. */
export interface ServerObservation {
  readonly phase?: ServerPhase;
  readonly health: ServerHealth;
  /** Tenant-safe health detail, e.g. "server is in state SHELVED". */
  readonly healthMessage?: string;
  readonly imageID?: string;
  readonly errored: boolean;
  readonly macAddress?: string;
  readonly scheduledAt?: string;
  readonly launchedAt?: string;
}

export interface VolumeInput extends Ownership {
  readonly id: string;
  readonly networkID: string;
  readonly volumeClassID: string;
  readonly sizeGiB: number;
  readonly tags: readonly Tag[];
}

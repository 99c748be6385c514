/**
 * The narrow views of region resources a provider call needs, and what it reports back. Controllers build these
 * from the CRDs; keeping them structural and small keeps the contract free of CRD types (only `region()` returns one) and lets a test call a
 * provider with a literal. Ids are the resources' Kubernetes names (UUIDs upstream).
 */
import type { ServerStatus } from '../apis/server.ts';

/** Who owns a resource: the tenancy labels every region resource carries. */
export interface Ownership {
  readonly organizationID: string;
  readonly projectID: string;
  readonly regionID: string;
}

/** A user tag (`spec.tags[]`). */
interface Tag {
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
  readonly reservations: { readonly prefixLength: number; readonly providerReservedPrefixLength?: number | undefined };
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
  readonly port?: { readonly number: number } | { readonly start: number; readonly end: number } | undefined;
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
  readonly idleTimeoutSeconds?: number | undefined;
  readonly pool: {
    readonly proxyProtocolV2: boolean;
    readonly members: readonly { readonly address: string; readonly port: number }[];
    readonly healthCheck?: HealthCheck | undefined;
  };
}

export interface LoadBalancerInput extends Ownership {
  readonly id: string;
  readonly networkID: string;
  readonly requestedVIPAddress?: string | undefined;
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
  readonly imageID?: string | undefined;
  readonly networkID: string;
  /**
   * The Neutron network and subnet the Network's reconciler recorded in its status, when it has: the port is made
   * on them rather than on a network and subnet re-found by name.
   */
  readonly neutronNetwork?: { readonly networkID: string; readonly subnetID?: string | undefined } | undefined;
  readonly allowedAddressPairs: readonly { readonly cidr: string; readonly macAddress?: string | undefined }[];
  readonly securityGroupIDs: readonly string[];
  readonly publicIP: boolean;
  readonly sshInjection: SSHInjection;
  readonly userData?: Uint8Array | undefined;
  /** A pinned host (Nova `hypervisor_hostname`). */
  readonly infrastructureRef?: string | undefined;
  readonly tags: readonly Tag[];
  /** The public key of the SSHCertificateAuthority the server names: create merges its cloud-init part. */
  readonly sshCertificateAuthorityPublicKey?: string | undefined;
  /**
   * No provider call was ever made for this server (the pass asking put the provisioner's finalizer on): no port or
   * Nova server named for it can exist yet, so the create makes them without re-finding them by name (ADR 0030).
   */
  readonly neverProvisioned?: true | undefined;
}

export interface ServerAddresses {
  readonly privateIP?: string;
  readonly publicIP?: string;
}

/** One server of a monitor poll: what it is and the status the monitor last persisted for it. */
export interface ServerPoll {
  readonly server: ServerInput;
  /** metadata.generation of the Server being observed. */
  readonly generation: number;
  readonly status: ServerStatus | undefined;
}

/**
 * What one poll concluded for one server: the whole status to write, once. `found: false` is the not-found
 * surfacing: the status records the absent observation and is persisted anyway (the create-retry gate and the
 * reconciler's out-of-band-delete path both key off it).
 */
export interface ServerPollResult {
  readonly id: string;
  readonly status: ServerStatus;
  readonly found: boolean;
}

/** One attachment: the Volume, and the guest device to ask for (a hint the cloud may not honour). */
export interface AttachmentInput {
  readonly id: string;
  readonly device?: string | undefined;
}

export interface VolumeInput extends Ownership {
  readonly id: string;
  readonly networkID: string;
  readonly volumeClassID: string;
  readonly sizeGiB: number;
  readonly tags: readonly Tag[];
}

/**
 * The one catalogue of errors a provider throws (docs/architecture.md §Dispositions, not exceptions, after Fastify's
 * `lib/errors.js`). Each class has a stable `code` and a fixed, cause-neutral `userMessage`; `message` and the `cause`
 * chain are for operators and may hold raw OpenStack detail. Controllers branch on the class, never on a message.
 */

export const ProviderErrorCode = {
  NotFound: 'PROVIDER_NOT_FOUND',
  Conflict: 'PROVIDER_CONFLICT',
  Consistency: 'PROVIDER_CONSISTENCY',
  Transient: 'PROVIDER_TRANSIENT',
  Exhausted: 'PROVIDER_EXHAUSTED',
  Quota: 'PROVIDER_QUOTA',
  Credentials: 'PROVIDER_CREDENTIALS',
  Refused: 'PROVIDER_REFUSED',
} as const;
export type ProviderErrorCode = (typeof ProviderErrorCode)[keyof typeof ProviderErrorCode];

/** The provider-side things an error can be about; each has a fixed label safe to show a tenant. */
export const ResourceKind = {
  Identity: 'identity',
  Network: 'network',
  SecurityGroup: 'security group',
  Server: 'server',
  LoadBalancer: 'load balancer',
  Volume: 'volume',
  VolumeAttachment: 'volume attachment',
  Image: 'image',
  Flavor: 'flavor',
  VolumeClass: 'volume class',
} as const;
export type ResourceKind = (typeof ResourceKind)[keyof typeof ResourceKind];

interface ProviderErrorOptions {
  readonly resource?: ResourceKind;
  readonly cause?: unknown;
}

export abstract class ProviderError extends Error {
  abstract readonly code: ProviderErrorCode;
  /** Shown to tenants: fixed text per class (and resource kind), never derived from the cause. */
  abstract readonly userMessage: string;
  readonly resource: ResourceKind | undefined;

  /** `message` is operator text: say what the provider was doing; the cause says what OpenStack answered. */
  constructor(message: string, options: ProviderErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.resource = options.resource;
  }
}

/** The provider resource (or one it depends on) does not exist. */
export class ResourceNotFoundError extends ProviderError {
  readonly code = ProviderErrorCode.NotFound;
  get userMessage(): string {
    return `${this.resource ?? 'provider resource'} not found`;
  }
}

/** The resource is held elsewhere or mid-change (a 409, a volume attached to another server). */
export class ResourceConflictError extends ProviderError {
  readonly code = ProviderErrorCode.Conflict;
  get userMessage(): string {
    return `${this.resource ?? 'provider resource'} is in use or being changed`;
  }
}

/**
 * OpenStack's state breaks an invariant the provider relies on: two resources under a name that must be unique,
 * a provisioning status with no safe next action. An operator must look; the controller retries with backoff.
 */
export class ResourceConsistencyError extends ProviderError {
  readonly code = ProviderErrorCode.Consistency;
  get userMessage(): string {
    return `${this.resource ?? 'provider resource'} is in an inconsistent state; an operator has been notified`;
  }
}

/**
 * Retry with backoff: OpenStack failed (5xx, transport) or refused in a way only an operator can fix (credentials,
 * policy, catalog), after which a retry recovers with no spec edit, which is why none of these park.
 */
export class TransientError extends ProviderError {
  readonly code = ProviderErrorCode.Transient;
  get userMessage(): string {
    return 'the cloud provider is temporarily unavailable; retrying';
  }
}

/**
 * OpenStack refused a change as requested (a 400), in a way that may heal with no spec edit: a rebuild toward an image
 * an operator deactivated succeeds once it is reactivated, one too big for the flavor once the image is fixed. The
 * tenant reads that the change was refused (not that the cloud is unavailable); the pass retries on its own interval.
 */
export class RequestRefusedError extends ProviderError {
  readonly code = ProviderErrorCode.Refused;
  get userMessage(): string {
    return `the cloud provider refused the requested change to this ${this.resource ?? 'resource'}; retrying`;
  }
}

/**
 * A region-wide pool the provider allocates from (provider-network VLAN IDs) has nothing free. Retried with backoff,
 * never parked: the remedy (another network deleted, a wider segment configured) moves nothing the waiting resource
 * is woken by, so a park would strand it, as docs/spec/openstack-provider.md §Rebuild to a missing image reasons for a deactivated image (ADR 0008).
 */
export class CapacityExhaustedError extends ProviderError {
  readonly code = ProviderErrorCode.Exhausted;
  get userMessage(): string {
    return `the region has no capacity left for another ${this.resource ?? 'resource'}; retrying until some is freed`;
  }
}

/**
 * The cloud refuses the credentials of the identity a resource runs in while the identity's project still exists
 * (a user or password changed out of band). Only an operator can repair that; retried with backoff meanwhile.
 */
export class CredentialsRejectedError extends ProviderError {
  readonly code = ProviderErrorCode.Credentials;
  get userMessage(): string {
    return "the cloud rejects the credentials of this resource's identity; an operator has been notified; retrying";
  }
}

/** What a tenant reads for each quota OpenStack names; a quota not listed reads as "a project quota". */
const QUOTA_LABELS: Readonly<Record<string, string>> = {
  instances: 'servers',
  cores: 'CPU cores',
  ram: 'memory',
  key_pairs: 'key pairs',
  server_groups: 'server groups',
  server_group_members: 'server group members',
  metadata_items: 'server metadata items',
  injected_files: 'injected files',
  network: 'networks',
  subnet: 'subnets',
  port: 'ports',
  router: 'routers',
  floatingip: 'floating IPs',
  security_group: 'security groups',
  security_group_rule: 'security group rules',
  rbac_policy: 'network RBAC policies',
  volumes: 'volumes',
  gigabytes: 'volume gigabytes',
  per_volume_gigabytes: 'gigabytes per volume',
  snapshots: 'volume snapshots',
  load_balancer: 'load balancers',
  listener: 'load balancer listeners',
  pool: 'load balancer pools',
  member: 'load balancer pool members',
  health_monitor: 'load balancer health monitors',
};

/**
 * The project's quota in OpenStack refuses the request (user action: free some, or have an operator raise it).
 * Retried with backoff, never parked, for the reason CapacityExhaustedError gives: the remedy (another resource
 * deleted, a quota raised) moves nothing that would wake a parked resource (ADR 0019). The quota is named from a
 * fixed table; OpenStack's own text stays in the cause, for operators.
 */
export class QuotaExceededError extends ProviderError {
  readonly code = ProviderErrorCode.Quota;
  /** OpenStack's key for the quota (`security_group`, `instances`, …); `''` when the refusal names none. */
  readonly quota: string;

  constructor(message: string, quota: string, options: ProviderErrorOptions = {}) {
    super(message, options);
    this.quota = quota;
  }

  get userMessage(): string {
    const label = QUOTA_LABELS[this.quota];
    const which = label === undefined ? 'a quota of the project' : `the project's quota for ${label}`;
    return `${which} is exhausted: delete unused resources or ask an operator to raise it; retrying`;
  }
}

/**
 * The provider-neutral contract (upstream `pkg/providers/types/interfaces.go`) that `region/openstack/` implements
 * and `region/controllers/` and `region/http/` drive.
 *
 * Lifecycle calls are create-or-converge and delete-until-gone: each pass returns an Outcome (done, yield, park,
 * terminal) and throws only errors from `errors.ts`. Reads return their value or throw. Every workload call names
 * the identity whose provider project it runs in; a delete whose identity was never realised is `done`, because no
 * provider resource can exist without it.
 */
import type { Region } from '../apis/region.ts';
import type { ServerStatus } from '../apis/server.ts';
import { ResourceNotFoundError } from './errors.ts';
import type {
  AttachmentInput,
  IdentityInput,
  LoadBalancerInput,
  LoadBalancerRealisation,
  NetworkInput,
  NetworkRealisation,
  SecurityGroupInput,
  ServerAddresses,
  ServerInput,
  ServerPoll,
  ServerPollResult,
  VolumeInput,
} from './inputs.ts';
import type { Done, Outcome, Park, Terminal, Yield } from './outcome.ts';
import type {
  ExternalNetwork,
  Flavor,
  Image,
  ImageList,
  ImageStatus,
  ServerCreateOptions,
  ServerVolumeAttachment,
  VolumeClass,
} from './types.ts';

/**
 * How a region id resolves to that region's provider (or one capability of it); an unknown region is a
 * ResourceNotFoundError. Taking a capability rather than the whole provider lets a test fake only what it drives.
 */
export type ProviderLookup<P> = (regionID: string, signal: AbortSignal) => Promise<P>;

/** Per call: cancellation. Clock and logger are the implementation's, injected at construction. */
export interface CallContext {
  readonly signal: AbortSignal;
}

export interface CommonProvider {
  /** The latest Region resource this provider serves. */
  region(ctx: CallContext): Promise<Region>;
  flavors(ctx: CallContext): Promise<readonly Flavor[]>;
  volumeClasses(ctx: CallContext): Promise<readonly VolumeClass[]>;
}

/** An immutable query: each narrowing returns a new query; `list` runs it. */
export interface ImageQuery {
  /** Public images, or images owned by one of the organizations. */
  availableToOrganization(...organizationIDs: string[]): ImageQuery;
  ownedByOrganization(...organizationIDs: string[]): ImageQuery;
  statusIn(...statuses: ImageStatus[]): ImageQuery;
  list(ctx: CallContext): Promise<ImageList>;
}

export interface ImageRead {
  queryImages(): ImageQuery;
  /** The image if the organization may see it; ResourceNotFoundError otherwise. */
  getImage(ctx: CallContext, organizationID: string, imageID: string): Promise<Image>;
}

export interface ImageWrite {
  /** Registers the image and has the provider import it from `uri`; the result starts pending. */
  createImage(ctx: CallContext, image: Image, uri: string): Promise<Image>;
  deleteImage(ctx: CallContext, imageID: string): Promise<void>;
  /** A snapshot the server side took joins the image inventory at once, before the next refresh lists it. */
  recordSnapshot(image: Image): void;
}

/** The region's inventory: flavors, volume classes and images. */
export interface InventoryProvider extends CommonProvider, ImageRead, ImageWrite {}

export interface IdentityProvider {
  createIdentity(ctx: CallContext, identity: IdentityInput): Promise<Outcome<undefined>>;
  deleteIdentity(ctx: CallContext, identity: IdentityInput): Promise<Outcome<undefined>>;
}

export interface NetworkProvider {
  createNetwork(ctx: CallContext, identity: IdentityInput, network: NetworkInput): Promise<Outcome<NetworkRealisation>>;
  deleteNetwork(ctx: CallContext, identity: IdentityInput, network: NetworkInput): Promise<Outcome<undefined>>;
  listExternalNetworks(ctx: CallContext): Promise<readonly ExternalNetwork[]>;
}

export interface SecurityGroupProvider {
  createSecurityGroup(
    ctx: CallContext,
    identity: IdentityInput,
    securityGroup: SecurityGroupInput,
  ): Promise<Outcome<undefined>>;
  deleteSecurityGroup(
    ctx: CallContext,
    identity: IdentityInput,
    securityGroup: SecurityGroupInput,
  ): Promise<Outcome<undefined>>;
}

export interface LoadBalancerProvider {
  createLoadBalancer(
    ctx: CallContext,
    identity: IdentityInput,
    loadBalancer: LoadBalancerInput,
  ): Promise<Outcome<LoadBalancerRealisation>>;
  deleteLoadBalancer(
    ctx: CallContext,
    identity: IdentityInput,
    loadBalancer: LoadBalancerInput,
  ): Promise<Outcome<undefined>>;
}

/** A server pass that yields. */
export interface ServerYield extends Yield {
  /**
   * Set when the pass waits on a rebuild to the desired image: Nova accepted ours (R4″) or one is in flight (R3).
   * The reconciler then writes the fixed accepted stamp (Active Rebuilding, Healthy Unknown), the view the monitor
   * derives for a rebuild, so the Server reads rebuilding before the monitor's next poll.
   */
  readonly rebuilding?: true;
}

/** What a server's create-or-converge pass ends with. */
export type ServerOutcome = Done<ServerAddresses> | ServerYield | Park | Terminal;

export interface ServerProvider {
  /** Create or converge, including the image rebuild rows R1–R4″. */
  createServer(
    ctx: CallContext,
    identity: IdentityInput,
    server: ServerInput,
    options?: ServerCreateOptions,
  ): Promise<ServerOutcome>;
  rebootServer(
    ctx: CallContext,
    identity: IdentityInput,
    server: ServerInput,
    hard: boolean,
  ): Promise<Outcome<undefined>>;
  startServer(ctx: CallContext, identity: IdentityInput, server: ServerInput): Promise<Outcome<undefined>>;
  stopServer(ctx: CallContext, identity: IdentityInput, server: ServerInput): Promise<Outcome<undefined>>;
  deleteServer(ctx: CallContext, identity: IdentityInput, server: ServerInput): Promise<Outcome<undefined>>;
  /**
   * One server's poll: the next status (the monitor's fields from one Nova read). Throws ServerGoneError, a
   * ResourceNotFoundError carrying the absent observation to persist, when the server is gone (the create-retry
   * gate needs the not-found).
   */
  updateServerState(ctx: CallContext, identity: IdentityInput, poll: ServerPoll): Promise<ServerStatus>;
  /** The monitor's poll of every server of one identity: one paginated server list, whatever their number. */
  pollServers(ctx: CallContext, identity: IdentityInput, polls: readonly ServerPoll[]): Promise<ServerPollResult[]>;
}

/** Nova has no such server; `status` is the absent observation, persisted anyway. */
export class ServerGoneError extends ResourceNotFoundError {
  readonly status: ServerStatus;

  constructor(message: string, status: ServerStatus) {
    super(message, { resource: 'server' });
    this.status = status;
  }
}

export interface ServerConsole {
  /** A console URL for the tenant. */
  createConsoleSession(ctx: CallContext, identity: IdentityInput, server: ServerInput): Promise<string>;
  /** The console log, the last `lines` lines if given. */
  getConsoleOutput(ctx: CallContext, identity: IdentityInput, server: ServerInput, lines?: number): Promise<string>;
}

export interface ServerSnapshot {
  createSnapshot(ctx: CallContext, identity: IdentityInput, server: ServerInput, image: Image): Promise<Image>;
}

export interface VolumeProvider {
  createVolume(ctx: CallContext, identity: IdentityInput, volume: VolumeInput): Promise<Outcome<undefined>>;
  deleteVolume(ctx: CallContext, identity: IdentityInput, volume: VolumeInput): Promise<Outcome<undefined>>;
  /** ResourceNotFoundError if either is missing; ResourceConflictError if the volume is attached elsewhere. */
  attachVolume(
    ctx: CallContext,
    identity: IdentityInput,
    server: ServerInput,
    volume: AttachmentInput,
  ): Promise<Outcome<ServerVolumeAttachment>>;
  /** Anything already absent counts as detached. */
  detachVolume(
    ctx: CallContext,
    identity: IdentityInput,
    server: ServerInput,
    volume: Pick<AttachmentInput, 'id'>,
  ): Promise<Outcome<undefined>>;
}

/** One region's provider: every capability of the contract. */
export interface RegionProvider
  extends
    InventoryProvider,
    IdentityProvider,
    NetworkProvider,
    SecurityGroupProvider,
    LoadBalancerProvider,
    ServerProvider,
    ServerConsole,
    ServerSnapshot,
    VolumeProvider {}

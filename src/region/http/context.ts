/**
 * What the REST API is built from: the store it reads and writes region resources in, the authenticator, and the
 * capabilities of this deployment. A capability that is absent (a controller not running, no inventory provider)
 * makes its routes answer 501: the API never pretends to do what nothing behind it does.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Client } from '../../kube/client.ts';
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { Clock } from '../../util/clock.ts';
import type { Server } from '../apis/server.ts';
import type { CommonProvider, ImageRead, ImageWrite } from '../provider/contract.ts';
import type { ExternalNetwork, Image } from '../provider/types.ts';
import type { Authenticator } from './auth.ts';
import type { OrganizationLimits } from './decide-limit.ts';
import type { RateLimits } from './rate-limit.ts';

/** One region's inventory: flavors, volume classes and images (read, and an organization's own written). */
export type RegionInventory = Pick<CommonProvider, 'flavors' | 'volumeClasses'> &
  ImageRead &
  Pick<ImageWrite, 'createImage' | 'deleteImage'>;

/**
 * Whether a URL serves what a region can import (upstream peeks at the first 512 bytes for a master boot record):
 * undefined when it does, else why not, in words safe to show.
 */
export type ImageSourceCheck = (uri: string, signal: AbortSignal) => Promise<string | undefined>;

/** What the server actions run against one server (bound to its identity and provider input by the wiring). */
export interface ServerActions {
  start(signal: AbortSignal): Promise<void>;
  stop(signal: AbortSignal): Promise<void>;
  reboot(hard: boolean, signal: AbortSignal): Promise<void>;
  consoleSession?(signal: AbortSignal): Promise<string>;
  consoleOutput?(lines: number | undefined, signal: AbortSignal): Promise<string>;
  snapshot?(name: string, signal: AbortSignal): Promise<Image>;
}

export interface Capabilities {
  /** Which workload controllers run: creating what none reconciles is refused (501), not stored. */
  readonly controllers: {
    readonly servers: boolean;
    readonly loadBalancers: boolean;
    readonly volumes: boolean;
  };
  readonly inventory?: (regionID: string, signal: AbortSignal) => Promise<RegionInventory>;
  readonly externalNetworks?: (regionID: string, signal: AbortSignal) => Promise<readonly ExternalNetwork[]>;
  readonly serverActions?: (server: Server, signal: AbortSignal) => Promise<ServerActions>;
}

export interface ApiDeps {
  /** The store holding Regions and every region resource. */
  readonly client: Client;
  /** The region service's namespace. */
  readonly namespace: string;
  readonly clock: Clock;
  /** Resource ids (UUIDs), injected so tests name what they create. */
  readonly newID: () => string;
  readonly authenticate: Authenticator;
  readonly capabilities: Capabilities;
  /** Largest request body, bytes (default 1 MiB). */
  readonly bodyLimit?: number;
  /** Longest a client may take to send a whole request, headers and body (default 30 s); then 408 and close. */
  readonly requestTimeoutMs?: number;
  /** Per-token and per-address request rates (default DEFAULT_RATE_LIMITS; an absent limit is off). */
  readonly rateLimits?: RateLimits;
  /** How many objects of each kind an organization may hold (default DEFAULT_ORGANIZATION_LIMITS). */
  readonly organizationLimits?: OrganizationLimits;
  /**
   * The names an informer holds of a kind for one organization, for the limits to count without listing the store
   * on every create; undefined for a kind no synced informer holds (the store is listed then).
   */
  readonly organizationObjects?: OrganizationObjects;
  /** The same informers' counts per organization, for the usage gauges; the store is listed at each scrape without. */
  readonly organizationCounts?: OrganizationCounts;
  /**
   * The informers' objects, for the reads a lagging answer cannot make wrong (Repository.findCached; ADR 0051); every
   * read goes to the store without it.
   */
  readonly cachedObject?: CachedObject;
  /** The build `/api/version` reports; a build with no release version reports 0.0.0. */
  readonly service?: { readonly version: string };
  /** RFC 9728 metadata: the token issuer, and this API's public URL (default: what a request was sent to). */
  readonly protectedResource?: { readonly issuer?: string | undefined; readonly resource?: string | undefined };
  /** Checks an image URL before an organization's image is registered (default: fetch its first 512 bytes). */
  readonly imageSource?: ImageSourceCheck;
  readonly log?: Logger;
  /** Where the request metrics go (access-log.ts); none without one. */
  readonly metrics?: Registry;
}

/**
 * An object of a kind in the service namespace as an informer holds it: undefined when no synced informer holds the
 * kind (ask the store), null when one does and does not hold the object.
 */
export type CachedObject = <T extends KubeObject>(type: ResourceType<T>, name: string) => T | null | undefined;

/**
 * How many objects of a kind each organization holds (its label) as an informer's index counts them, or undefined
 * when no synced informer holds the kind.
 */
export type OrganizationCounts = (type: ResourceType) => ReadonlyMap<string, number> | undefined;

/**
 * The names of an organization's cached objects of a kind (its label), or undefined when no synced informer holds
 * the kind. A set kept as the informer's events arrive (organization-names.ts), so a create's count is its size and
 * a lookup per create the informer has not shown yet, never a pass over the organization's objects.
 */
export type OrganizationObjects = (type: ResourceType, organization: string) => ReadonlySet<string> | undefined;

export const DEFAULT_BODY_LIMIT = 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The longest path segment a route takes (ids are UUIDs); a longer one is refused before anything else runs. */
export const MAX_PARAM_LENGTH = 100;

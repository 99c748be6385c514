/**
 * The registry of OpenStack regions (upstream `pkg/providers/providers.go` and `serviceclients.go`), with the
 * bootstrap/runtime split of docs/spec/openstack-provider.md §Bootstrap and runtime:
 *
 * - bootstrap reads every Region and its credentials Secret with the uncached client it is given, before any
 *   informer cache exists, and builds each OpenStack region's client set; a broken region fails start-up;
 * - at runtime a lookup reads the Region and Secret through the runtime reader (under `serve` and `up`, informers:
 *   runtime/cached-reads.ts) and rebuilds the client set only when `spec.openstack` or the Secret's data changed (a
 *   fingerprint compare); otherwise the set in hand, with its authenticated sessions, is reused. A region created
 *   after start-up is built on its first lookup.
 *
 * Building a client set does no I/O (sessions authenticate on first use), so a lookup is two cached reads: no API
 * server request per provider call, and no digest either while neither object's resourceVersion moved.
 */
import type { Client } from '../../kube/client.ts';
import type { Reader } from '../../runtime/cached-reads.ts';
import { KubeNotFoundError } from '../../kube/errors.ts';
import type { KubeObject } from '../../kube/object.ts';
import { builtin } from '../../kube/resource-type.ts';
import { regionType, type Region, type RegionOpenstack } from '../apis/region.ts';
import { ResourceNotFoundError } from '../provider/errors.ts';
import { createRegionClientSet, type ClientSetOptions, type ManagedRegionClientSet } from './client-set.ts';
import type { RegionCredentials } from './principals.ts';
import {
  RegionConfigError,
  configFingerprint,
  credentialsSecretRef,
  openstackConfigOf,
  parseCredentials,
} from './region-config.ts';

/** Everything a provider call for one region needs: the Region as last read, its parsed config, its clients. */
export interface RegionContext {
  readonly region: Region;
  readonly config: RegionOpenstack;
  readonly clients: ManagedRegionClientSet;
  /** The region service's namespace: Regions, Identities and OpenstackIdentity records live here. */
  readonly namespace: string;
}

export type ClientSetFactory = (credentials: RegionCredentials, config: RegionOpenstack) => ManagedRegionClientSet;

/** The production factory: every region's sessions share one transport and clock. */
export const clientSetFactory =
  (options: ClientSetOptions): ClientSetFactory =>
  (credentials) =>
    createRegionClientSet(credentials, options);

interface RegionRegistryOptions {
  readonly namespace: string;
  /** Uncached reads, used only during bootstrap. */
  readonly bootstrapClient: Client;
  /** What lookups read through once the manager runs: an informer-backed reader in production. */
  readonly runtimeClient: Reader;
  readonly clientSets: ClientSetFactory;
}

interface Held {
  readonly fingerprint: string;
  readonly context: RegionContext;
  /** The resourceVersions of the Region and Secret `context` was made from: while both hold, it is still right. */
  readonly versions: string | undefined;
}

/** Both objects' resourceVersions, or undefined when either has none (an object a test made by hand). */
function versionsOf(region: Region, secret: KubeObject): string | undefined {
  const [a, b] = [region.metadata.resourceVersion, secret.metadata.resourceVersion];
  return a === undefined || b === undefined ? undefined : `${a}/${b}`;
}

export class RegionRegistry {
  readonly #options: RegionRegistryOptions;
  readonly #held = new Map<string, Held>();

  private constructor(options: RegionRegistryOptions) {
    this.#options = options;
  }

  /** Builds the client set of every OpenStack Region in the namespace; any broken one fails the whole start. */
  static async bootstrap(options: RegionRegistryOptions, signal?: AbortSignal): Promise<RegionRegistry> {
    const registry = new RegionRegistry(options);
    const { items } = await options.bootstrapClient.list(regionType, { namespace: options.namespace });
    for (const region of items) {
      signal?.throwIfAborted();
      if (region.spec.provider !== 'openstack') continue;
      await registry.#refresh(options.bootstrapClient, region);
    }
    return registry;
  }

  /**
   * The context of `regionID`: ResourceNotFoundError for an unknown region, RegionProviderKindError for a region
   * another provider serves, RegionConfigError for a missing or incomplete credentials Secret.
   */
  async lookup(regionID: string, signal?: AbortSignal): Promise<RegionContext> {
    signal?.throwIfAborted();
    const client = this.#options.runtimeClient;
    let region: Region;
    try {
      region = await client.get(regionType, this.#options.namespace, regionID);
    } catch (error) {
      if (error instanceof KubeNotFoundError) throw new ResourceNotFoundError(`region ${regionID} not found`);
      throw error;
    }
    signal?.throwIfAborted();
    return this.#refresh(client, region);
  }

  /** The regions whose client sets are held (for tests and diagnostics). */
  heldRegions(): string[] {
    return [...this.#held.keys()];
  }

  /** Every held region's context, as bootstrap built it (the start-up version check reads them). */
  heldContexts(): RegionContext[] {
    return [...this.#held.values()].map((h) => h.context);
  }

  async #refresh(client: Reader, region: Region): Promise<RegionContext> {
    const regionID = region.metadata.name;
    const config = openstackConfigOf(region);
    const secret = await readSecret(client, regionID, config);
    // Every provider call looks its region up: while neither object changed, the same context (and so the same
    // provider, provider.ts) serves, without a digest of the configuration per call.
    const versions = versionsOf(region, secret);
    const held = this.#held.get(regionID);
    if (held !== undefined && versions !== undefined && held.versions === versions) return held.context;
    const fingerprint = configFingerprint(config, secret);
    const context: RegionContext =
      held?.fingerprint === fingerprint
        ? { ...held.context, region }
        : {
            region,
            config,
            clients: this.#options.clientSets(parseCredentials(config, secret), config),
            namespace: this.#options.namespace,
          };
    this.#held.set(regionID, { fingerprint, context, versions });
    return context;
  }
}

async function readSecret(client: Reader, regionID: string, config: RegionOpenstack): Promise<KubeObject> {
  const ref = credentialsSecretRef(config);
  try {
    return await client.get(builtin.secret, ref.namespace, ref.name);
  } catch (error) {
    if (error instanceof KubeNotFoundError) {
      throw new RegionConfigError(`region ${regionID}: credentials secret ${ref.namespace}/${ref.name} not found`);
    }
    throw error;
  }
}

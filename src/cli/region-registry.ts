/**
 * The region registry as `serve` and `up` run it, with the bootstrap/runtime split of
 * docs/spec/openstack-provider.md §Bootstrap and runtime made real: bootstrap reads every Region and its Secret with
 * the uncached client, before any cache exists; runtime lookups read them from informers on the region namespace
 * (runtime/cached-reads.ts), so a provider lookup, made for every reconcile of every resource, costs no API server
 * request; the same informers also hold the OpenstackIdentity records workload passes read. Then each region's API versions are checked once, and a cloud below what openregion needs refuses start-up.
 */
import type { Logger } from 'pino';
import type { Client } from '../kube/client.ts';
import { builtin } from '../kube/resource-type.ts';
import { openstackIdentityType } from '../region/apis/openstack-identity.ts';
import { regionType } from '../region/apis/region.ts';
import { RegionRegistry, type ClientSetFactory } from '../region/openstack/registry.ts';
import { checkRegionApiVersions } from '../region/openstack/versions.ts';
import { CachedReads } from '../runtime/cached-reads.ts';
import type { Scheduler } from '../runtime/scheduler.ts';
import { defined } from '../util/defined.ts';

interface RegionRegistryOptions {
  readonly client: Client;
  readonly namespace: string;
  readonly clientSets: ClientSetFactory;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  /** Whether to check each region's API versions at start-up (default true). */
  readonly checkVersions?: boolean;
  /** The compute microversion the sessions pin, when not the default. */
  readonly computeMicroversion?: string;
  readonly signal?: AbortSignal;
}

interface StartedRegionRegistry {
  readonly registry: RegionRegistry;
  /**
   * The informers behind runtime lookups, for the reconcile passes' cached client too (`Manager.readsFrom`): the
   * Regions and Secrets, and the OpenstackIdentity records a workload pass reads and no controller watches.
   */
  readonly reads: CachedReads;
  /** Stops the informers behind runtime lookups. */
  close(): Promise<void>;
}

export async function startRegionRegistry(options: RegionRegistryOptions): Promise<StartedRegionRegistry> {
  const { client, namespace, scheduler, log } = options;
  const reads = new CachedReads({
    client,
    namespace,
    types: [regionType, builtin.secret, openstackIdentityType],
    scheduler,
    log,
  });
  const registry = await RegionRegistry.bootstrap(
    { namespace, bootstrapClient: client, runtimeClient: reads, clientSets: options.clientSets },
    options.signal,
  );
  try {
    if (options.checkVersions !== false) {
      for (const context of registry.heldContexts()) {
        await checkRegionApiVersions(context, {
          log,
          ...defined({ computeMicroversion: options.computeMicroversion, signal: options.signal }),
        });
      }
    }
    await reads.start();
  } catch (error) {
    await reads.stop();
    throw error;
  }
  return { registry, reads, close: () => reads.stop() };
}

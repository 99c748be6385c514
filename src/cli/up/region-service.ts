/**
 * The region service on one Manager: every controller whose provider exists, the server monitor, and the REST
 * API's capabilities to match. THE place a new capability plugs in: add its provider lookup and controller below,
 * and flip its capability, so `up` and `serve` both get it and the API stops answering 501 for it.
 *
 * Wired now: identities, networks, security groups (one composed provider), servers (controller, monitor and
 * actions), load balancers, volumes, and the region inventory (flavors, images with the refresh-ahead image cache
 * the API server runs, volume classes).
 */
import type { Logger } from 'pino';
import type { Client } from '../../kube/client.ts';
import { CachedListClient } from '../../runtime/cached-lists.ts';
import type { Manager } from '../../runtime/manager.ts';
import type { Scheduler } from '../../runtime/scheduler.ts';
import { MANAGEMENT_CLUSTER } from '../../runtime/types.ts';
import type { Clock } from '../../util/clock.ts';
import { registerRegionControllers, REGION_CONTROLLER_GROUPS } from '../../region/controllers/index.ts';
import { serverInputOf } from '../../region/controllers/server/controller.ts';
import { registerRegionController } from '../../region/controllers/region.ts';
import { INVENTORY_REFRESH_MS, InventoryCaches } from '../../region/openstack/inventory/caches.ts';
import { inventoryProviderFor } from '../../region/openstack/inventory/provider.ts';
import { leftBehindCounter } from '../../region/openstack/identity/default-group.ts';
import type {
  CachedObject,
  Capabilities,
  OrganizationCounts,
  OrganizationObjects,
  ServerActions,
} from '../../region/http/context.ts';
import {
  identityType,
  labels,
  loadBalancerType,
  networkType,
  securityGroupType,
  serverType,
  volumeType,
  type Server,
} from '../../region/apis/index.ts';
import type { IndexFunc } from '../../runtime/cache.ts';
import { startServerMonitor, type ServerMonitor } from '../../region/monitor/server.ts';
import { OrganizationNames } from '../../region/http/organization-names.ts';
import { openstackLookup } from '../../region/openstack/provider.ts';
import type { RegionRegistry } from '../../region/openstack/registry.ts';
import { serverProviderFor } from '../../region/openstack/server/provider.ts';
import { workloadIdentityOf } from '../../region/controllers/ownership.ts';
import { ResourceConflictError, ResourceKind, ResourceNotFoundError } from '../../region/provider/errors.ts';
import type { InventoryProvider } from '../../region/provider/contract.ts';
import type { Outcome } from '../../region/provider/outcome.ts';
import { defined } from '../../util/defined.ts';

/** The controller groups `serve --controllers` selects from. */
export const CONTROLLER_GROUPS = [...REGION_CONTROLLER_GROUPS, 'monitor'] as const;
export type ControllerGroup = (typeof CONTROLLER_GROUPS)[number];

interface RegionServiceOptions {
  readonly manager: Manager;
  /** The store region resources live in (the management cluster's client). */
  readonly client: Client;
  readonly namespace: string;
  readonly registry: RegionRegistry;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  /** Which groups run here (default: all). `identities` and `networks` come together (one registration). */
  readonly groups?: readonly ControllerGroup[];
  /** The server monitor's poll period (default one minute). */
  readonly monitorPeriodMs?: number;
  /** How often the image list is refreshed from the cloud (default one minute, as upstream). */
  readonly imageRefreshMs?: number;
  /** Creates a never-booted server gets before it reads terminal (the create-retry's default otherwise). */
  readonly maxServerCreateAttempts?: number;
  /** Whether this process serves the REST API (it then warms the image cache); default true. */
  readonly api?: boolean;
  /** How often flavors, volume types and external networks are re-listed (default five minutes). */
  readonly inventoryRefreshMs?: number;
  /** Passes each region controller runs at once (different resources; one resource never twice at once). */
  readonly concurrency?: number;
}

/**
 * A pass spends most of its time waiting: on OpenStack round trips (a POST opens a connection of its own, ADR 0002)
 * and on its store writes reaching the disk. One worker per controller left the process idle (a 1,000-server
 * convergence profile: 30 % idle), and four still left the server controller seconds behind the API's creates;
 * eight overlap them, and writes waiting together share a commit (docs/adr/0053-cpu-per-server.md). Eight creates
 * at once is well within what one region's Nova and Neutron take from one client.
 */
export const DEFAULT_REGION_CONCURRENCY = 8;

interface RegionService {
  readonly capabilities: Capabilities;
  /** The API's limits count from these (`ApiDeps.organizationObjects`). */
  readonly organizationObjects: OrganizationObjects;
  /** The API's informer-served reads (`ApiDeps.cachedObject`). */
  readonly cachedObject: CachedObject;
  /** The usage gauges count from these (`ApiDeps.organizationCounts`). */
  readonly organizationCounts: OrganizationCounts;
  /** What runs, for the banner. */
  readonly running: readonly string[];
  /** Starts what runs beside the manager (the monitor); call after `manager.start()`, again after a stop. */
  start(): void;
  /** Stops the monitor (leadership lost); `start` runs it again. */
  stop(): Promise<void>;
  /** Stops the monitor and the image refresh (shutdown). */
  close(): Promise<void>;
}

export function wireRegionService(options: RegionServiceOptions): RegionService {
  const { manager, registry, clock, log } = options;
  // Reconcile passes and provider lookups read through the informers (runtime/cached-client.ts); one instance, so a
  // write's answer seeds the next read whichever part of the pass makes it.
  const client = manager.cachedClient(MANAGEMENT_CLUSTER) ?? options.client;
  const groups = new Set(options.groups ?? CONTROLLER_GROUPS);
  const context = (regionID: string, signal: AbortSignal) => registry.lookup(regionID, signal);
  const running: string[] = [];

  // One set of inventory caches for the controllers and the API. Only the API server warms the image cache
  // (upstream's WarmImageCache).
  const caches = new InventoryCaches({
    clock,
    imageCache: options.api ?? true,
    scheduler: everyOn(options.scheduler),
    log,
    ...defined({ inventoryRefreshMs: options.inventoryRefreshMs, imageRefreshMs: options.imageRefreshMs }),
  });
  const core = openstackLookup(context, {
    kube: client,
    log,
    clock,
    inventory: caches,
    onDefaultGroupLeftBehind: leftBehindCounter(manager.metrics.registry),
  });
  const servers = async (regionID: string, signal: AbortSignal) =>
    serverProviderFor(await context(regionID, signal), { kube: client, clock, log });
  // The API's per-organization limits count from the caches (region/http/limits.ts), by this index.
  for (const type of LIMITED_TYPES) manager.index(type, ORGANIZATION_INDEX, byOrganization, { clusters: 'management' });
  // A create counts from names kept as the informer's events arrive, so its count looks at no object: docs/adr/0048-reconcile-reads-from-informer-caches.md.
  const organizationNames = new Map<string, OrganizationNames>();
  const organizationObjects: OrganizationObjects = (type, organization) => {
    // A synced cache that covers the namespace answers a peek with null or an object; otherwise the store counts.
    if (manager.peek(type, options.namespace, '') === undefined) return undefined;
    const key = `${type.group}/${type.plural}`;
    let names = organizationNames.get(key);
    if (names === undefined) {
      names = new OrganizationNames(options.namespace);
      // What the cache holds comes first, as adds, in this call: the set is whole from here on.
      if (manager.onCached(type, names.handlers) === undefined) return undefined;
      organizationNames.set(key, names);
    }
    return names.of(organization);
  };
  const organizationCounts: OrganizationCounts = (type) =>
    manager.cachedIndexCounts(type, options.namespace, ORGANIZATION_INDEX);
  const cachedObject: CachedObject = (type, name) => manager.peek(type, options.namespace, name);
  const controllerGroups = REGION_CONTROLLER_GROUPS.filter((group) => groups.has(group));
  registerRegionControllers(manager, core, {
    groups: controllerGroups,
    controller: { maxConcurrentReconciles: options.concurrency ?? DEFAULT_REGION_CONCURRENCY },
    ...(options.maxServerCreateAttempts === undefined
      ? {}
      : { maxServerCreateAttempts: options.maxServerCreateAttempts }),
  });
  if (controllerGroups.length > 0) {
    registerRegionController(manager, client, core, {
      periodMs: options.inventoryRefreshMs ?? INVENTORY_REFRESH_MS,
    });
    running.push('region status');
  }
  if (groups.has('identities') || groups.has('networks')) running.push('identities', 'networks', 'security groups');
  if (groups.has('servers')) running.push('servers');
  if (groups.has('loadbalancers')) running.push('load balancers');
  if (groups.has('volumes')) running.push('volumes');
  if (groups.has('monitor')) running.push('server monitor');

  const inventory = async (regionID: string, signal: AbortSignal) =>
    inventoryProviderFor(await context(regionID, signal), { caches, log });

  let monitor: ServerMonitor | undefined;
  const capabilities: Capabilities = {
    controllers: {
      servers: groups.has('servers'),
      loadBalancers: groups.has('loadbalancers'),
      volumes: groups.has('volumes'),
    },
    inventory,
    externalNetworks: async (regionID, signal) => (await core(regionID, signal)).listExternalNetworks({ signal }),
    serverActions: async (server, signal) => {
      const regionID = tenancyRegion(server);
      return serverActionsFor(server, await servers(regionID, signal), await inventory(regionID, signal));
    },
  };
  return {
    capabilities,
    organizationObjects,
    cachedObject,
    organizationCounts,
    running,
    start: () => {
      if (!groups.has('monitor') || monitor !== undefined) return;
      monitor = startServerMonitor({
        // Its list of every Server comes from the controllers' cache, as upstream's monitor reads through the
        // manager's cached client: at 10,000 servers a store read parsed every object in one turn of the loop each
        // poll. A stale entry costs nothing: the write carries the resourceVersion read, so it conflicts and the
        // next poll observes again.
        client: new CachedListClient(options.client, manager),
        namespace: options.namespace,
        lookup: servers,
        // A fresh server's first poll comes once its create pass has run, not up to a period later (ADR 0052).
        changes: (onServer) =>
          manager.onCached(serverType, {
            add: onServer,
            update: (_old, server) => {
              onServer(server);
            },
            delete: () => undefined,
          }) ?? (() => undefined),
        scheduler: options.scheduler,
        log: log.child({ component: 'server-monitor' }),
        // As many projects listed at once as the controllers run passes: both wait on the same cloud.
        concurrency: options.concurrency ?? DEFAULT_REGION_CONCURRENCY,
        ...defined({ periodMs: options.monitorPeriodMs }),
      });
    },
    stop: async () => {
      const running = monitor;
      monitor = undefined;
      await running?.stop();
    },
    close: async () => {
      caches.stop();
      const running = monitor;
      monitor = undefined;
      await running?.stop();
    },
  };
}

/** The kinds the API limits per organization. */
const LIMITED_TYPES = [identityType, networkType, serverType, volumeType, loadBalancerType, securityGroupType];
const ORGANIZATION_INDEX = 'regions.unikorn-cloud.org/organization';
const byOrganization: IndexFunc = (object) => {
  const organization = object.metadata.labels?.[labels.organization];
  return organization === undefined || organization === '' ? [] : [organization];
};

const tenancyRegion = (server: Server): string => server.metadata.labels?.['regions.unikorn-cloud.org/region-id'] ?? '';

type ServerProviderOf = Awaited<ReturnType<typeof serverProviderFor>>;

/** The inventory's `every` over the runtime scheduler, so a ManualScheduler drives the image refresh too. */
function everyOn(scheduler: Scheduler): { every(ms: number, task: () => void): { cancel(): void } } {
  return {
    every: (ms, task) => {
      let cancel: () => void = () => undefined;
      const arm = () => {
        cancel = scheduler.schedule(ms, () => {
          task();
          arm();
        });
      };
      arm();
      return {
        cancel: () => {
          cancel();
        },
      };
    },
  };
}

/** The server actions over the provider, bound to the server's identity and input. */
function serverActionsFor(server: Server, provider: ServerProviderOf, inventory: InventoryProvider): ServerActions {
  const identity = workloadIdentityOf(server);
  const input = serverInputOf(server);
  if (identity === undefined || input === undefined) throw new ResourceNotFoundError('the server is not realisable');
  const done = async (outcome: Promise<Outcome<undefined>>): Promise<void> => {
    const result = await outcome;
    if (result.kind === 'done') return;
    // A yield is a server mid-change (busy); a park or terminal is a state the action cannot act on now.
    throw new ResourceConflictError(`server action ended ${result.kind}`, { resource: ResourceKind.Server });
  };
  return {
    start: (signal) => done(provider.startServer({ signal }, identity, input)),
    stop: (signal) => done(provider.stopServer({ signal }, identity, input)),
    reboot: (hard, signal) => done(provider.rebootServer({ signal }, identity, input, hard)),
    consoleSession: (signal) => provider.createConsoleSession({ signal }, identity, input),
    consoleOutput: (lines, signal) => provider.getConsoleOutput({ signal }, identity, input, lines),
    snapshot: async (name, signal) => {
      // The snapshot takes its specification from the server's image (upstream: overrides may come later).
      const source = await inventory.getImage({ signal }, identity.organizationID, server.spec.image?.id ?? '');
      const template = { ...source, name, organizationID: identity.organizationID, identityID: identity.id };
      const image = await provider.createSnapshot({ signal }, identity, input, template);
      inventory.recordSnapshot(image);
      return image;
    },
  };
}

/**
 * The manager: it hosts controllers, keeps an informer-backed cache per (cluster, kind) for their watches, engages
 * target clusters as they register, elects a leader when asked to, and reports health. Caches run on every replica;
 * only the leader's controllers take work, as with controller-runtime.
 */
import type { Logger } from 'pino';
import type { Client } from '../kube/client.ts';
import { ignoreNotFound } from '../kube/errors.ts';
import { EventRecorder } from '../kube/events.ts';
import type { KubeObject } from '../kube/object.ts';
import type { ResourceType } from '../kube/resource-type.ts';
import type { Clock, Random } from '../util/clock.ts';
import { TypeCache, type CacheListOptions, type IndexFunc } from './cache.ts';
import { CachedClient, type CacheSource } from './cached-client.ts';
import {
  Controller,
  controllerOwner,
  eventObjects,
  type ControllerOptions,
  type Mapper,
  type Watch,
  type WatchOptions,
} from './controller.ts';
import { healthHandlers, type HealthHandlers } from './health.ts';
import type { InformerHandlers } from './informer.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader.ts';
import { silentLogger } from './logger.ts';
import { RuntimeMetrics, type CountedObject } from './metrics.ts';
import { ClusterRegistry, KubeconfigSecretProvider, type Cluster, type ClientFactory } from './multicluster.ts';
import type { ObjectEvent, Predicate } from './predicates.ts';
import { systemScheduler, type Scheduler } from './scheduler.ts';
import { MANAGEMENT_CLUSTER, type Reconciler, type Request } from './types.ts';

/** Whether a cluster serves a kind: a list that matches nothing, which an unserved kind answers with NotFound. */
type ServesKind = (client: Client, type: ResourceType, namespaces?: readonly string[]) => Promise<boolean>;

const probeServesKind: ServesKind = async (client, type, namespaces) => {
  const probe = client.list(type, {
    namespace: type.namespaced ? namespaces?.[0] : undefined,
    fieldSelector: 'metadata.name=openregion-serves-kind-probe',
  });
  return (await ignoreNotFound(probe)) !== undefined;
};

interface ManagerOptions {
  /** The management cluster's client. */
  readonly client: Client;
  readonly clock: Clock;
  readonly scheduler?: Scheduler;
  readonly log?: Logger;
  readonly metrics?: RuntimeMetrics;
  readonly random?: Random;
  /** Informers' full relist period. */
  readonly resyncMs?: number;
  readonly servesKind?: ServesKind;
  /** Target clusters from registration Secrets; omit (or empty namespace) for the management cluster alone. */
  readonly targetClusters?: { readonly namespace: string; readonly clientFor: ClientFactory };
  /**
   * The namespaces the management cluster's caches of a kind watch (undefined: every namespace), e.g. the region
   * service's kinds in its own namespace only: less to cache, and RBAC on that namespace alone.
   */
  readonly namespacesOf?: (type: ResourceType) => readonly string[] | undefined;
  /** Elect a leader through a Lease before reconciling; omit to reconcile at once. */
  readonly leaderElection?: Omit<
    LeaderElectionOptions,
    'client' | 'scheduler' | 'log' | 'onStartedLeading' | 'onStoppedLeading'
  >;
  /** Called when leadership is lost (controllers are already stopped); the process usually exits. */
  readonly onLostLeadership?: () => void;
}

interface Binding {
  readonly controller: Controller;
  readonly watch: Watch;
  readonly cache: TypeCache;
  detach?: () => void;
}

interface EngagedCluster {
  readonly cluster: Cluster;
  readonly caches: Map<string, TypeCache>;
  readonly bindings: Binding[];
}

/** client-go's HealthzAdaptor timeout: past a lease plus this with no election progress, liveness fails. */
const LEADER_LIVENESS_TOLERANCE_MS = 20_000;

const typeKey = (t: ResourceType) => `${t.group}/${t.version}/${t.plural}`;

export class Manager implements CacheSource {
  readonly clusters: ClusterRegistry;
  readonly metrics: RuntimeMetrics;
  readonly health: HealthHandlers;
  readonly #options: ManagerOptions;
  readonly #scheduler: Scheduler;
  readonly #log: Logger;
  readonly #random: Random;
  readonly #controllers: Controller[] = [];
  readonly #indexers = new Map<string, Map<string, IndexFunc>>();
  readonly #managementOnlyIndexes = new Set<string>();
  readonly #engaged = new Map<string, EngagedCluster>();
  /** One Event recorder per cluster client, so repeats correlate across passes (and a new client starts afresh). */
  readonly #recorders = new Map<string, { readonly client: Client; readonly recorder: EventRecorder }>();
  readonly #provider: KubeconfigSecretProvider | undefined;
  readonly #elector: LeaderElector | undefined;
  /** What the cached client reads: the manager's caches, then other informers (`readsFrom`; the region registry's). */
  readonly #readSources: CacheSource[] = [this];
  #cachedClient: CachedClient | undefined;
  #unsubscribe: (() => void) | undefined;
  #started = false;
  #stopping = false;
  #reconciling = false;

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.#scheduler = options.scheduler ?? systemScheduler(options.clock);
    this.#log = options.log ?? silentLogger();
    this.#random = options.random ?? Math.random;
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.metrics.countObjects(() => this.#reconciledObjects(), options.clock);
    this.clusters = new ClusterRegistry(options.client);
    const targets = options.targetClusters;
    if (targets !== undefined && targets.namespace !== '') {
      this.#provider = new KubeconfigSecretProvider({
        management: options.client,
        registry: this.clusters,
        clientFor: targets.clientFor,
        scheduler: this.#scheduler,
        log: this.#log.child({ component: 'cluster-provider' }),
        namespace: targets.namespace,
        ...(options.resyncMs === undefined ? {} : { resyncMs: options.resyncMs }),
      });
    }
    if (options.leaderElection !== undefined) {
      this.#elector = new LeaderElector({
        ...options.leaderElection,
        client: options.client,
        scheduler: this.#scheduler,
        log: this.#log.child({ component: 'leader-election' }),
        onStartedLeading: () => {
          this.metrics.leaderStatus.set({ name: options.leaderElection?.name ?? '' }, 1);
          this.#startReconciling();
        },
        onStoppedLeading: () => {
          this.metrics.leaderStatus.set({ name: options.leaderElection?.name ?? '' }, 0);
          // A release during our own stop is not a loss worth telling anyone about.
          if (!this.#stopping) void this.#stopReconciling().then(() => options.onLostLeadership?.());
        },
      });
    }
    if (options.leaderElection !== undefined) this.metrics.leaderStatus.set({ name: options.leaderElection.name }, 0);
    // Readiness never asks for leadership: a standby's caches and API serve, so a standby pod is Ready (leadership
    // is in leader_election_master_status).
    const elector = this.#elector;
    this.health = healthHandlers({
      live: [
        { name: 'ping', check: () => true },
        ...(elector === undefined
          ? []
          : [{ name: 'leader-election', check: () => elector.check(LEADER_LIVENESS_TOLERANCE_MS) }]),
      ],
      ready: [{ name: 'caches', check: () => this.#managementSynced() }],
    });
  }

  /**
   * Registers a field index on the caches of `type`; call before `start`. `clusters: 'management'` keeps it off
   * target clusters' caches, for an index only the local manager reads (controller-runtime's local field indexer).
   */
  index(type: ResourceType, name: string, fn: IndexFunc, options: { clusters?: 'all' | 'management' } = {}): void {
    if (this.#started) throw new Error(`index "${name}" must be registered before the manager starts`);
    const key = typeKey(type);
    const indexers = this.#indexers.get(key) ?? new Map<string, IndexFunc>();
    if (indexers.has(name)) throw new Error(`index "${name}" on ${type.kind} is already registered`);
    indexers.set(name, fn);
    this.#indexers.set(key, indexers);
    if (options.clusters === 'management') this.#managementOnlyIndexes.add(`${key}/${name}`);
  }

  #indexersFor(key: string, isTarget: boolean): Map<string, IndexFunc> {
    const all = this.#indexers.get(key) ?? new Map<string, IndexFunc>();
    if (!isTarget) return all;
    return new Map([...all].filter(([name]) => !this.#managementOnlyIndexes.has(`${key}/${name}`)));
  }

  controller(name: string): ControllerBuilder {
    if (this.#started) throw new Error(`controller "${name}" must be added before the manager starts`);
    if (this.#controllers.some((c) => c.name === name)) throw new Error(`controller "${name}" already exists`);
    return new ControllerBuilder(name, (watches, reconciler, options) => {
      const controller = new Controller(name, watches, reconciler, options, {
        scheduler: this.#scheduler,
        clock: this.#options.clock,
        log: this.#log,
        metrics: this.metrics,
        random: this.#random,
        isEngaged: (cluster) => this.clusters.resolve(cluster) !== undefined,
        events: (cluster) => this.events(cluster),
        cached: (type, req) =>
          this.#engaged
            .get(req.cluster)
            ?.caches.get(typeKey(type))
            ?.get(type.namespaced ? req.namespace : undefined, req.name),
      });
      this.#controllers.push(controller);
      return controller;
    });
  }

  /** Every registered watch, by controller: what the caches list and watch (RBAC is generated from it). */
  watches(): readonly { readonly controller: string; readonly watch: Watch }[] {
    return this.#controllers.flatMap((controller) =>
      controller.watches.map((watch) => ({ controller: controller.name, watch })),
    );
  }

  /** The Event recorder of an engaged cluster ('' = management), or undefined for one that is not engaged. */
  events(cluster: string): EventRecorder | undefined {
    const client = this.client(cluster);
    if (client === undefined) return undefined;
    const known = this.#recorders.get(cluster);
    if (known?.client === client) return known.recorder;
    const recorder = new EventRecorder({
      client,
      clock: this.#options.clock,
      component: 'openregion',
      onError: (error) => {
        this.#log.warn({ cluster, err: error }, 'an Event could not be recorded');
      },
    });
    this.#recorders.set(cluster, { client, recorder });
    return recorder;
  }

  /** Every cached object of a kind a controller reconciles (its `for` kind), on every engaged cluster. */
  *#reconciledObjects(): Generator<CountedObject> {
    const types = new Map<string, ResourceType>();
    for (const controller of this.#controllers) {
      for (const watch of controller.watches) if (watch.source === 'for') types.set(typeKey(watch.type), watch.type);
    }
    for (const engaged of this.#engaged.values()) {
      for (const [key, type] of types) {
        const cache = engaged.caches.get(key);
        if (cache === undefined || !cache.hasSynced) continue;
        for (const object of cache.list()) yield { kind: type.kind, object };
      }
    }
  }

  /** The client of an engaged cluster ('' = management), or undefined for one that is not (or no longer) engaged. */
  client(cluster: string): Client | undefined {
    return this.clusters.resolve(cluster);
  }

  /** Cached objects of a watched kind on a cluster (default: management), optionally by a field index. */
  list<T extends KubeObject>(type: ResourceType<T>, options: CacheListOptions & { cluster?: string } = {}): T[] {
    return this.#cache(type, options.cluster ?? MANAGEMENT_CLUSTER).list(options);
  }

  get<T extends KubeObject>(type: ResourceType<T>, req: Request): T | undefined {
    return this.#cache(type, req.cluster).get(type.namespaced ? req.namespace : undefined, req.name);
  }

  /**
   * The management cluster's cached objects of `type` (in `namespace`, if given) once its cache has synced;
   * undefined when no watch of the kind is engaged or it has not synced, so the caller asks the store instead.
   */
  cachedList<T extends KubeObject>(type: ResourceType<T>, namespace?: string): T[] | undefined {
    const cache = this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.get(typeKey(type));
    if (cache === undefined || !cache.hasSynced || !cache.covers(namespace)) return undefined;
    return (cache as TypeCache<T>).list(namespace === undefined ? {} : { namespace });
  }

  /**
   * The management cluster's cached object of `type`: undefined when no synced cache covers the kind in that
   * namespace (ask the API server), null when one does and does not hold it.
   */
  peek<T extends KubeObject>(type: ResourceType<T>, namespace: string | undefined, name: string): T | null | undefined {
    const ns = type.namespaced ? namespace : undefined;
    const cache = this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.get(typeKey(type));
    if (cache === undefined || !cache.hasSynced || !cache.covers(ns)) return undefined;
    return (cache as TypeCache<T>).get(ns, name) ?? null;
  }

  /**
   * The management cluster's cached objects of `type` in `namespace` under a field index's `value`, or undefined
   * when no synced cache of the kind covers the namespace or the index is not registered on it.
   */
  cachedIndexed<T extends KubeObject>(
    type: ResourceType<T>,
    namespace: string,
    index: string,
    value: string,
  ): T[] | undefined {
    const cache = this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.get(typeKey(type));
    if (cache === undefined || !cache.hasSynced || !cache.covers(namespace)) return undefined;
    if (this.#indexers.get(typeKey(type))?.has(index) !== true) return undefined;
    return (cache as TypeCache<T>).list({ namespace, index, value });
  }

  /**
   * How many cached objects of `type` in `namespace` each value of a field index holds (runtime/cache.ts
   * indexCounts), or undefined when no synced cache of the kind covers the namespace or the index is not registered.
   */
  cachedIndexCounts(type: ResourceType, namespace: string, index: string): Map<string, number> | undefined {
    const cache = this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.get(typeKey(type));
    if (cache === undefined || !cache.hasSynced || !cache.covers(namespace)) return undefined;
    if (this.#indexers.get(typeKey(type))?.has(index) !== true) return undefined;
    return cache.indexCounts(index, namespace);
  }

  /**
   * Subscribes to the management cluster's cache of `type` (what it holds already comes first, as adds); undefined
   * when no watch of the kind is engaged there. Answers the unsubscribe.
   */
  onCached<T extends KubeObject>(type: ResourceType<T>, handlers: InformerHandlers<T>): (() => void) | undefined {
    const cache = this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.get(typeKey(type));
    return (cache as TypeCache<T> | undefined)?.addHandlers(handlers);
  }

  /** Another set of informers the cached client reads (kinds no controller watches); call before `start`. */
  readsFrom(source: CacheSource): void {
    this.#readSources.push(source);
  }

  /**
   * The client reconcile passes read through (runtime/cached-client.ts): on the management cluster, reads served by
   * its caches and the sources given to `readsFrom`, writes to the API server; on a target cluster, its client.
   */
  cachedClient(cluster: string): Client | undefined {
    const client = this.client(cluster);
    if (client === undefined || cluster !== MANAGEMENT_CLUSTER) return client;
    // The array itself, so a source added after this call is read too.
    this.#cachedClient ??= new CachedClient(client, this.#readSources);
    return this.#cachedClient;
  }

  /** Starts caches on every engaged cluster, waits for the management caches, then elects or reconciles. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#unsubscribe = await this.clusters.subscribe({
      engaged: (cluster) => this.#engage(cluster),
      disengaged: (name) => this.#disengage(name),
    });
    this.#provider?.start();
    await Promise.all([...(this.#engaged.get(MANAGEMENT_CLUSTER)?.caches.values() ?? [])].map((c) => c.synced()));
    if (this.#elector === undefined) this.#startReconciling();
    else this.#elector.start();
  }

  /** Stops reconciling (draining passes in flight), releases the lease, and stops every cache. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#stopReconciling();
    await this.#elector?.stop();
    await this.#provider?.stop();
    this.#unsubscribe?.();
    await Promise.all([...this.#engaged.keys()].map((name) => this.#disengage(name)));
  }

  get isLeader(): boolean {
    return this.#elector === undefined ? this.#started : this.#elector.isLeader;
  }

  #cache<T extends KubeObject>(type: ResourceType<T>, cluster: string): TypeCache<T> {
    const cache = this.#engaged.get(cluster)?.caches.get(typeKey(type));
    if (cache === undefined)
      throw new Error(`no cache of ${type.kind} on cluster "${cluster}": no watch of it is engaged there`);
    // Caches are keyed by the type's group/version/plural, so the one found holds objects of `type`.
    return cache as TypeCache<T>;
  }

  #managementSynced(): boolean {
    const management = this.#engaged.get(MANAGEMENT_CLUSTER);
    const registrations = this.#provider?.hasSynced ?? true;
    return registrations && management !== undefined && [...management.caches.values()].every((c) => c.hasSynced);
  }

  async #engage(cluster: Cluster): Promise<void> {
    const state: EngagedCluster = { cluster, caches: new Map(), bindings: [] };
    const served = new Map<string, boolean>();
    const isTarget = cluster.name !== MANAGEMENT_CLUSTER;
    for (const controller of this.#controllers) {
      for (const watch of controller.watches) {
        if (isTarget && watch.clusters === 'management') continue;
        const key = typeKey(watch.type);
        if (isTarget && watch.clusterServesKind) {
          if (!served.has(key)) served.set(key, await this.#serves(cluster, watch.type));
          if (served.get(key) !== true) {
            this.#log.info(
              { cluster: cluster.name, kind: watch.type.kind, controller: controller.name },
              'cluster does not serve the kind; watch skipped',
            );
            continue;
          }
        }
        let cache = state.caches.get(key);
        if (cache === undefined) {
          cache = new TypeCache({
            client: cluster.client,
            type: watch.type,
            scheduler: this.#scheduler,
            log: this.#log.child({ cluster: cluster.name, kind: watch.type.kind }),
            indexers: this.#indexersFor(key, isTarget),
            namespaces: isTarget
              ? cluster.namespaces
              : (this.#options.namespacesOf?.(watch.type) ?? cluster.namespaces),
            random: this.#random,
            ...(this.#options.resyncMs === undefined ? {} : { resyncMs: this.#options.resyncMs }),
          });
          state.caches.set(key, cache);
        }
        state.bindings.push({ controller, watch, cache });
      }
    }
    this.#engaged.set(cluster.name, state);
    for (const cache of state.caches.values()) cache.start();
    if (this.#reconciling) for (const binding of state.bindings) this.#attach(cluster.name, binding);
  }

  async #serves(cluster: Cluster, type: ResourceType): Promise<boolean> {
    try {
      return await (this.#options.servesKind ?? probeServesKind)(cluster.client, type, cluster.namespaces);
    } catch (error) {
      // Unreachable now: watch anyway, and let the informer retry with backoff.
      this.#log.warn(
        { err: error, cluster: cluster.name, kind: type.kind },
        'could not tell whether the cluster serves the kind',
      );
      return true;
    }
  }

  async #disengage(name: string): Promise<void> {
    const state = this.#engaged.get(name);
    if (state === undefined) return;
    this.#engaged.delete(name);
    for (const binding of state.bindings) binding.detach?.();
    for (const controller of this.#controllers) controller.dropCluster(name);
    await Promise.all([...state.caches.values()].map((c) => c.stop()));
  }

  #attach(cluster: string, binding: Binding): void {
    const { controller, watch } = binding;
    const deliver = (event: ObjectEvent) => {
      controller.handle(watch, event);
    };
    binding.detach = binding.cache.addHandlers({
      add: (object) => {
        deliver({ type: 'create', object, cluster });
      },
      update: (oldObject, object) => {
        deliver({ type: 'update', object, oldObject, cluster });
      },
      delete: (object) => {
        deliver({ type: 'delete', object, cluster });
      },
    });
  }

  #startReconciling(): void {
    if (this.#reconciling) return;
    this.#reconciling = true;
    for (const controller of this.#controllers) controller.start();
    // Attaching replays every cached object as a create, so a new leader reconciles everything once.
    for (const [name, state] of this.#engaged) for (const binding of state.bindings) this.#attach(name, binding);
  }

  async #stopReconciling(): Promise<void> {
    if (!this.#reconciling) return;
    this.#reconciling = false;
    for (const state of this.#engaged.values()) {
      for (const binding of state.bindings) {
        binding.detach?.();
        delete binding.detach;
      }
    }
    await Promise.all(this.#controllers.map((c) => c.stop()));
  }
}

interface ForOptions {
  readonly predicates?: readonly Predicate[];
  readonly clusters?: 'all' | 'management';
  readonly clusterServesKind?: boolean;
}

/** controller-runtime's builder: `.for(type).owns(type).watches(type, mapper).withOptions({...}).complete(fn)`. */
export class ControllerBuilder {
  readonly #name: string;
  readonly #build: (watches: Watch[], reconciler: Reconciler, options: ControllerOptions) => Controller;
  #forType: ResourceType | undefined;
  #options: ControllerOptions = {};
  readonly #watches: Watch[] = [];
  readonly #pendingOwns: { type: ResourceType; options: WatchOptions }[] = [];

  constructor(
    name: string,
    build: (watches: Watch[], reconciler: Reconciler, options: ControllerOptions) => Controller,
  ) {
    this.#name = name;
    this.#build = build;
  }

  /** The reconciled kind: each event wakes the object's own request, on the event's cluster. */
  for(type: ResourceType, options: ForOptions = {}): this {
    if (this.#forType !== undefined) throw new Error(`controller "${this.#name}": for() may be called once`);
    this.#forType = type;
    this.#watches.push(
      watchOf(type, 'for', options, (event) => [
        { cluster: event.cluster, namespace: event.object.metadata.namespace ?? '', name: event.object.metadata.name },
      ]),
    );
    return this;
  }

  /** Objects this controller creates: an event wakes the controller owner's request, on the event's cluster. */
  owns(type: ResourceType, options: WatchOptions = {}): this {
    this.#pendingOwns.push({ type, options });
    return this;
  }

  /** Any kind, mapped to requests by `mapper`; each request names its own cluster. */
  watches<T extends KubeObject>(type: ResourceType<T>, mapper: Mapper<T>, options: WatchOptions = {}): this {
    this.#watches.push(
      watchOf(type, 'watches', options, (event) =>
        // The watch's cache holds objects of `type` only.
        eventObjects(event).flatMap((o) => [...mapper(o as T, event as ObjectEvent<T>)]),
      ),
    );
    return this;
  }

  withOptions(options: ControllerOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  complete(reconciler: Reconciler): Controller {
    const owner = this.#forType;
    if (owner === undefined) throw new Error(`controller "${this.#name}": for() is required`);
    for (const { type, options } of this.#pendingOwns) {
      this.#watches.push(
        watchOf(type, 'owns', options, (event) =>
          eventObjects(event).flatMap((object) => {
            const name = controllerOwner(object, owner);
            return name === undefined
              ? []
              : [{ cluster: event.cluster, namespace: object.metadata.namespace ?? '', name }];
          }),
        ),
      );
    }
    return this.#build(this.#watches, reconciler, this.#options);
  }
}

function watchOf(
  type: ResourceType,
  source: Watch['source'],
  options: WatchOptions,
  map: (event: ObjectEvent) => Request[],
): Watch {
  return {
    type,
    source,
    predicates: options.predicates ?? [],
    clusters: options.clusters ?? 'all',
    clusterServesKind: options.clusterServesKind ?? false,
    map,
  };
}

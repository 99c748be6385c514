/**
 * Per-organization limits at the API (docs/adr/0041-organization-limits.md): a create that would take an
 * organization past its limit for a kind is refused, 403 as upstream's quota refusals are, before anything is written
 * to the store or asked of the cloud. The count (objects being deleted included) is taken again, with the write, under
 * a per-organization lock, so two creates racing for the last slot do not both get it. Usage and limits are gauges
 * on /metrics.
 *
 * Where an informer holds the kind (`serve` and `up`), the count is the informer's objects of the organization plus
 * the creates this process admitted that it has not shown yet, so a create lists nothing (two lists of the
 * organization's objects per create were quadratic in the fleet on kube-apiserver;
 * docs/adr/0048-reconcile-reads-from-informer-caches.md) and looks at no object: the informer's names are a set kept
 * from its events (organization-names.ts). An admitted create counts from its admission, by the name it will have, so
 * the lock is held for the count, not the write (ADR 0041, amended). Otherwise the count is the store's, and the lock
 * covers the write.
 */
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { ResourceType } from '../../kube/resource-type.ts';
import type { Clock } from '../../util/clock.ts';
import {
  identityType,
  labels,
  loadBalancerType,
  networkType,
  securityGroupType,
  serverType,
  volumeType,
} from '../apis/index.ts';
import {
  decideLimit,
  LIMITED_KINDS,
  limitOf,
  reachedDetail,
  type LimitedKind,
  type OrganizationLimits,
} from './decide-limit.ts';
import type { KubeObject } from '../../kube/object.ts';
import { Problem, violation } from './problem.ts';
import type { OrganizationCounts, OrganizationObjects } from './context.ts';
import type { Repository } from './repository.ts';

/** What each limited kind counts. */
const TYPES: Readonly<Record<LimitedKind, ResourceType>> = {
  identities: identityType,
  networks: networkType,
  servers: serverType,
  volumes: volumeType,
  'load-balancers': loadBalancerType,
  'security-groups': securityGroupType,
};

const KIND_OF = new Map<string, LimitedKind>(
  Object.entries(TYPES).map(([kind, type]) => [`${type.group}/${type.plural}`, kind as LimitedKind]),
);

/**
 * How long a create is counted on its own before the informer shows it. Past that it is dropped (an object deleted
 * before its informer saw it would otherwise count for ever), and a watch lagging by more than this could let a create
 * through over the limit; a watch that far behind is already an incident the informer's relist repairs.
 */
const ADMITTED_UNSEEN_MS = 60_000;

/** The refusal: forbidden, naming the kind, the usage and the limit; the rule is machine-readable too. */
function limitReached(decision: { kind: LimitedKind; usage: number; limit: number }): Problem {
  const detail = reachedDetail(decision);
  return new Problem('forbidden', detail, [violation('', 'organizationLimit', detail)]);
}

/** What a create adds to its organization: one object of a limited kind, by the name it will be created with. */
interface Claim {
  readonly kind: LimitedKind;
  readonly name: string;
}

/** A name this process admitted that the informer had not shown when last counted. */
interface Unseen {
  /** When admitted, then when created. */
  at: number;
  /** False while its write is in flight: it counts until the write fails, however long that takes. */
  created: boolean;
}

/** Per organization and kind: what it holds, and its finite limits. */
interface Snapshot {
  readonly usage: Map<string, Map<LimitedKind, number>>;
  readonly limits: Map<string, Map<LimitedKind, number>>;
}

export class OrganizationLimiter {
  readonly #limits: OrganizationLimits;
  readonly #repository: Repository;
  readonly #log: Logger | undefined;
  /** Per organization, the tail of its queue of creates (a promise chain; the entry goes once the queue is empty). */
  readonly #queues = new Map<string, Promise<void>>();
  readonly #cached: OrganizationObjects | undefined;
  readonly #counts: OrganizationCounts | undefined;
  readonly #clock: Clock | undefined;
  /** `organization/kind` → names this process admitted or created that the informer had not shown when last counted. */
  readonly #unseen = new Map<string, Map<string, Unseen>>();

  constructor(
    limits: OrganizationLimits,
    repository: Repository,
    options: {
      metrics?: Registry;
      log?: Logger;
      cached?: OrganizationObjects;
      counts?: OrganizationCounts;
      clock?: Clock;
    } = {},
  ) {
    this.#limits = limits;
    this.#repository = repository;
    this.#log = options.log;
    this.#cached = options.cached;
    this.#counts = options.counts;
    this.#clock = options.clock;
    if (options.cached !== undefined) {
      repository.onCreate((type, object) => {
        this.#created(type, object);
      });
    }
    if (options.metrics !== undefined) this.#register(options.metrics);
  }

  /** A create this API made: counted until the informer shows it. */
  #created(type: ResourceType, object: KubeObject): void {
    const kind = KIND_OF.get(`${type.group}/${type.plural}`);
    const organization = object.metadata.labels?.[labels.organization];
    if (kind === undefined || organization === undefined || organization === '') return;
    this.#claim(organization, kind, object.metadata.name, true);
  }

  /** Counts `name` as the organization's until the informer shows it (or, once created, ADMITTED_UNSEEN_MS). */
  #claim(organization: string, kind: LimitedKind, name: string, created: boolean): void {
    const key = `${organization}/${kind}`;
    const unseen = this.#unseen.get(key) ?? new Map<string, Unseen>();
    unseen.set(name, { at: this.#clock?.now() ?? 0, created });
    this.#unseen.set(key, unseen);
  }

  /** A claim whose write failed before creating it: no longer counted. */
  #release(organization: string, { kind, name }: Claim): void {
    const key = `${organization}/${kind}`;
    const unseen = this.#unseen.get(key);
    if (unseen?.get(name)?.created !== false) return;
    unseen.delete(name);
    if (unseen.size === 0) this.#unseen.delete(key);
  }

  /**
   * Refuses (403) when `organization` has no room for one more of any of `kinds`. An early look without the lock, so a
   * create at its limit is refused before its rules read the cloud; `admit` decides.
   */
  async check(organization: string, kinds: readonly LimitedKind[]): Promise<void> {
    await this.#refuseUnlessRoom(organization, kinds);
  }

  /**
   * Runs `write`, which creates what `claims` name, once every claim's kind has room for one more, with no other
   * create of the organization counted between this count and the claims (this process's;
   * docs/adr/0041-organization-limits.md says what holds across replicas). Where the informer counts every kind, the
   * claims count from here until it shows them, so the lock covers the count, not the write: the organization's
   * creates write at once rather than one after another (a wave in one organization waited a store round trip per
   * create). Otherwise the store's count cannot see a write in flight, and the lock covers the write too.
   */
  async admit<R>(organization: string, claims: readonly Claim[], write: () => Promise<R>): Promise<R> {
    const kinds = claims.map((claim) => claim.kind);
    if (kinds.every((kind) => limitOf(this.#limits, organization, kind) === Infinity)) return write();
    if (kinds.every((kind) => this.#cached?.(TYPES[kind], organization) !== undefined)) {
      await this.#exclusive(organization, async () => {
        await this.#refuseUnlessRoom(organization, kinds);
        for (const { kind, name } of claims) this.#claim(organization, kind, name, false);
      });
      try {
        return await write();
      } catch (error) {
        for (const claim of claims) this.#release(organization, claim);
        throw error;
      }
    }
    return this.#exclusive(organization, async () => {
      await this.#refuseUnlessRoom(organization, kinds);
      return write();
    });
  }

  async #refuseUnlessRoom(organization: string, kinds: readonly LimitedKind[]): Promise<void> {
    for (const kind of kinds) {
      const limit = limitOf(this.#limits, organization, kind);
      if (limit === Infinity) continue;
      const decision = decideLimit(limit, kind, await this.#usage(organization, kind));
      if (decision.row === 'reached') {
        // Info, not a warning: the tenant is told, and the operator acts on the gauges if at all.
        this.#log?.info({ organization, kind, usage: decision.usage, limit }, 'organization limit reached');
        throw limitReached(decision);
      }
    }
  }

  /**
   * What the organization holds of `kind` now, deleting objects included: the informer's objects and this process's
   * creates it has not shown yet, or the store's list where no informer holds the kind.
   */
  async #usage(organization: string, kind: LimitedKind): Promise<number> {
    const cached = this.#cached?.(TYPES[kind], organization);
    if (cached === undefined) {
      return (await this.#repository.unscoped(TYPES[kind], `${labels.organization}=${organization}`)).length;
    }
    // The set's size and one lookup per unseen create: a count costs the same at 10 objects as at 10,000 (a pass
    // over the organization's objects, twice a create, made a 10,000-server wave quadratic; docs/adr/0048-reconcile-reads-from-informer-caches.md).
    const key = `${organization}/${kind}`;
    const unseen = this.#unseen.get(key);
    if (unseen === undefined) return cached.size;
    const now = this.#clock?.now() ?? 0;
    for (const [name, { at, created }] of unseen) {
      if (cached.has(name) || (created && now - at > ADMITTED_UNSEEN_MS)) unseen.delete(name);
    }
    if (unseen.size === 0) this.#unseen.delete(key);
    return cached.size + unseen.size;
  }

  async #exclusive<R>(key: string, run: () => Promise<R>): Promise<R> {
    const previous = this.#queues.get(key) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#queues.set(key, tail);
    await previous;
    try {
      return await run();
    } finally {
      release();
      if (this.#queues.get(key) === tail) this.#queues.delete(key);
    }
  }

  /**
   * Per organization and kind: what it holds, and its limit (finite ones only), at each scrape. Where an informer
   * indexes the kind by organization the count is its index's (ADR 0051: a scrape listed every limited kind from
   * the store, each object parsed, at every scrape); otherwise the store's list.
   */
  async snapshot(): Promise<{
    usage: Map<string, Map<LimitedKind, number>>;
    limits: Map<string, Map<LimitedKind, number>>;
  }> {
    const usage = new Map<string, Map<LimitedKind, number>>();
    for (const kind of LIMITED_KINDS) {
      const counted = this.#counts?.(TYPES[kind]);
      if (counted !== undefined) {
        for (const [organization, n] of counted) {
          const held = usage.get(organization) ?? new Map<LimitedKind, number>();
          held.set(kind, n);
          usage.set(organization, held);
        }
        continue;
      }
      for (const object of await this.#repository.unscoped(TYPES[kind])) {
        const organization = object.metadata.labels?.[labels.organization];
        if (organization === undefined || organization === '') continue;
        const held = usage.get(organization) ?? new Map<LimitedKind, number>();
        held.set(kind, (held.get(kind) ?? 0) + 1);
        usage.set(organization, held);
      }
    }
    const limits = new Map<string, Map<LimitedKind, number>>();
    for (const organization of new Set([...usage.keys(), ...Object.keys(this.#limits.organizations)])) {
      const own = new Map<LimitedKind, number>();
      for (const kind of LIMITED_KINDS) {
        const limit = limitOf(this.#limits, organization, kind);
        if (limit !== Infinity) own.set(kind, limit);
      }
      limits.set(organization, own);
    }
    return { usage, limits };
  }

  /**
   * The gauges, once per registry (the first API given it reports). Series exist for organizations that hold
   * something or have an override: one per organization and kind, so their number grows with the tenants, not with
   * requests (docs/adr/0041-organization-limits.md).
   */
  #register(registry: Registry): void {
    if (registry.getSingleMetric('openregion_organization_usage') !== undefined) return;
    // Both gauges are collected in one scrape: one read of the store serves both.
    let pending: Promise<Snapshot | undefined> | undefined;
    const shared = () => {
      // A store that cannot be read keeps the last values (the repository logs why): /metrics still answers.
      pending ??= this.snapshot()
        .catch(() => undefined)
        .finally(() => {
          pending = undefined;
        });
      return pending;
    };
    const fill = (gauge: Gauge<'organization' | 'kind'>, table: Map<string, Map<LimitedKind, number>> | undefined) => {
      if (table === undefined) return;
      gauge.reset();
      for (const [organization, kinds] of table) {
        for (const [kind, value] of kinds) gauge.set({ organization, kind }, value);
      }
    };
    new Gauge({
      name: 'openregion_organization_usage',
      help: 'Objects an organization holds, by kind (those being deleted included), as its limit counts them',
      labelNames: ['organization', 'kind'],
      registers: [registry],
      async collect() {
        fill(this, (await shared())?.usage);
      },
    });
    new Gauge({
      name: 'openregion_organization_limit',
      help: 'How many objects of a kind an organization may hold (absent: no limit)',
      labelNames: ['organization', 'kind'],
      registers: [registry],
      async collect() {
        fill(this, (await shared())?.limits);
      },
    });
  }
}

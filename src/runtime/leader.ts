/**
 * Leader election with a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: try to acquire every
 * retry period; while leading, renew every retry period, and give up once no renewal has succeeded for the renew
 * deadline (or another holder is seen). Expiry is judged by when this process last saw the record change, on its own
 * clock, never by the timestamps in the record, so clock skew between replicas cannot cut a lease short.
 */
import type { Logger } from 'pino';
import { type Client, getOptional } from '../kube/client.ts';
import type { Lease, LeaseSpec } from '../kube/object.ts';
import { apiVersionOf, builtin } from '../kube/resource-type.ts';
import type { Scheduler } from './scheduler.ts';

export interface LeaderElectionOptions {
  readonly client: Client;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  readonly namespace: string;
  /** The Lease's name. */
  readonly name: string;
  /** This replica's identity (pod name, hostname plus a random suffix). */
  readonly identity: string;
  /** How long a lease is good for without renewal. Default 15 s. */
  readonly leaseDurationMs?: number;
  /** How long the leader keeps retrying a failed renewal before it stops leading. Default 10 s. */
  readonly renewDeadlineMs?: number;
  /** Between attempts. Default 2 s. */
  readonly retryPeriodMs?: number;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
}

/** The three timings of an election, in ms. */
export interface LeaseTimings {
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** controller-runtime's defaults (and client-go's recommended values): a crashed leader is replaced in ~15-17 s. */
export const DEFAULT_LEASE_TIMINGS: LeaseTimings = {
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
};

/**
 * Why these timings cannot elect safely, or undefined when they can. client-go's rules (the lease outlives the renew
 * deadline, which outlives 1.2 retry periods, its jitter), plus one of the record's: the Lease stores its duration
 * in whole seconds, so a lease of 2.5 s would be read as 3 s by every other replica.
 */
export function leaseTimingsProblem(t: LeaseTimings): string | undefined {
  const s = (ms: number) => `${String(ms / 1000)}s`;
  if (!(t.retryPeriodMs > 0)) return 'the retry period must be longer than zero';
  if (!(t.leaseDurationMs >= 1_000) || t.leaseDurationMs % 1_000 !== 0) {
    return `the lease duration must be a whole number of seconds, at least 1s (not ${s(t.leaseDurationMs)})`;
  }
  if (!(t.renewDeadlineMs < t.leaseDurationMs)) {
    return `the renew deadline (${s(t.renewDeadlineMs)}) must be shorter than the lease duration (${s(t.leaseDurationMs)})`;
  }
  if (!(t.renewDeadlineMs > 1.2 * t.retryPeriodMs)) {
    return `the renew deadline (${s(t.renewDeadlineMs)}) must be longer than 1.2 retry periods (${s(t.retryPeriodMs)})`;
  }
  return undefined;
}

/** A MicroTime as the API serves it: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** What the new leader logs about the one before it. */
interface Handover {
  /** null when the Lease was new, or released by a holder this replica never saw. */
  readonly previousHolder: string | null;
  /** The holder released it (a clean stop) rather than letting it expire. */
  readonly released?: boolean;
  /** Since the record's renewTime. */
  readonly gapMs?: number;
  /** Since this replica last saw the record change, on its own clock. */
  readonly unchangedForMs?: number;
  readonly leaseTransitions?: number;
}

export class LeaderElector {
  readonly #o: LeaderElectionOptions;
  readonly #leaseMs: number;
  readonly #renewDeadlineMs: number;
  readonly #retryMs: number;
  #leading = false;
  /** Not yet standing (the caches still list before start): nothing to judge liveness by. */
  #started = false;
  #stopped = false;
  #lastRenew = 0;
  /** When the last acquire/renew attempt finished (or the loop started): how liveness sees a stalled loop. */
  #lastAttempt = 0;
  #observed: string | undefined;
  #observedAt = 0;
  /** The last holder other than this replica seen in the record (a release blanks the record's). */
  #lastOtherHolder: string | undefined;
  #cancel: (() => void) | undefined;
  #attempt: Promise<void> | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#o = options;
    this.#leaseMs = options.leaseDurationMs ?? DEFAULT_LEASE_TIMINGS.leaseDurationMs;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? DEFAULT_LEASE_TIMINGS.renewDeadlineMs;
    this.#retryMs = options.retryPeriodMs ?? DEFAULT_LEASE_TIMINGS.retryPeriodMs;
    const problem = leaseTimingsProblem({
      leaseDurationMs: this.#leaseMs,
      renewDeadlineMs: this.#renewDeadlineMs,
      retryPeriodMs: this.#retryMs,
    });
    if (problem !== undefined) throw new Error(problem);
  }

  get isLeader(): boolean {
    return this.#leading;
  }

  start(): void {
    // Every replica says who it is at once, so a Lease's holderIdentity can be matched to a pod before it leads.
    this.#o.log.info(
      {
        identity: this.#o.identity,
        lease: `${this.#o.namespace}/${this.#o.name}`,
        leaseDurationMs: this.#leaseMs,
        renewDeadlineMs: this.#renewDeadlineMs,
        retryPeriodMs: this.#retryMs,
      },
      'standing for election',
    );
    this.#started = true;
    this.#stopped = false;
    this.#lastAttempt = this.#o.scheduler.clock.now();
    this.#schedule(0);
  }

  /**
   * Liveness, as client-go's HealthzAdaptor judges it: healthy unless the election loop has made no attempt, or a
   * leader no renewal, for a lease duration plus `toleranceMs`. Either means the process is wedged (a leader would
   * keep reconciling past its lease; a standby would never take over), which a restart cures. Readiness never asks.
   */
  check(toleranceMs: number): true | string {
    if (this.#stopped || !this.#started) return true;
    const now = this.#o.scheduler.clock.now();
    const limit = this.#leaseMs + toleranceMs;
    if (this.#leading && now - this.#lastRenew > limit) {
      return `leader has not renewed lease ${this.#o.name} for ${String(Math.round((now - this.#lastRenew) / 1000))}s`;
    }
    if (now - this.#lastAttempt > limit) {
      return `no attempt on lease ${this.#o.name} for ${String(Math.round((now - this.#lastAttempt) / 1000))}s`;
    }
    return true;
  }

  /** Stops trying; a leader releases the lease so a standby takes over without waiting for it to expire. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancel?.();
    await this.#attempt;
    if (!this.#leading) return;
    this.#leading = false;
    try {
      const lease = await this.#o.client.get(builtin.lease, this.#o.namespace, this.#o.name);
      if (lease.spec?.holderIdentity === this.#o.identity) {
        const now = microTime(this.#o.scheduler.clock.now());
        await this.#o.client.update(builtin.lease, {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
        });
      }
    } catch (error) {
      this.#o.log.warn({ err: error }, 'could not release the lease');
    }
    this.#o.onStoppedLeading();
  }

  // A method, not a field read, so the check after an await is not narrowed away by the one before it.
  #isStopped(): boolean {
    return this.#stopped;
  }

  #schedule(ms: number): void {
    this.#cancel = this.#o.scheduler.schedule(ms, () => {
      this.#attempt = this.#tick();
    });
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const outcome = await this.#tryAcquireOrRenew().catch((error: unknown) => {
      this.#o.log.warn({ err: error }, 'lease acquire/renew failed');
      return 'failed' as const;
    });
    if (this.#isStopped()) return;
    const now = this.#o.scheduler.clock.now();
    this.#lastAttempt = now;
    if (outcome !== 'taken' && outcome !== 'failed') {
      this.#lastRenew = now;
      if (!this.#leading) {
        this.#leading = true;
        this.#o.log.info({ identity: this.#o.identity, ...outcome.took }, 'became leader');
        this.#o.onStartedLeading();
      }
    } else if (this.#leading && (outcome === 'taken' || now - this.#lastRenew >= this.#renewDeadlineMs)) {
      this.#leading = false;
      this.#o.log.warn({ identity: this.#o.identity, outcome }, 'lost leadership');
      this.#o.onStoppedLeading();
    }
    this.#schedule(this.#retryMs);
  }

  /**
   * `{ took }` when this replica holds the lease now (`took` says from whom, when it was another's); 'taken' when
   * another live holder has it; 'failed' otherwise.
   */
  async #tryAcquireOrRenew(): Promise<{ took?: Handover } | 'taken' | 'failed'> {
    const { client, namespace, name, identity } = this.#o;
    const nowMs = this.#o.scheduler.clock.now();
    const now = microTime(nowMs);
    const leaseDurationSeconds = Math.ceil(this.#leaseMs / 1000);
    const lease = await getOptional(client, builtin.lease, namespace, name);
    if (lease === undefined) {
      const spec: LeaseSpec = {
        holderIdentity: identity,
        leaseDurationSeconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: 0,
      };
      const fresh: Lease = {
        apiVersion: apiVersionOf(builtin.lease),
        kind: builtin.lease.kind,
        metadata: { name, namespace },
        spec,
      };
      await client.create(builtin.lease, fresh);
      this.#observe(spec, nowMs);
      return { took: { previousHolder: null } };
    }
    const spec = lease.spec ?? {};
    this.#observe(spec, nowMs);
    const holder = spec.holderIdentity ?? '';
    const ours = holder === identity;
    if (holder !== '' && !ours && this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000 > nowMs) {
      return this.#leading ? 'taken' : 'failed';
    }
    const took = ours ? undefined : this.#handover(spec, nowMs);
    const next: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds,
      renewTime: now,
      acquireTime: ours ? (spec.acquireTime ?? now) : now,
      leaseTransitions: (spec.leaseTransitions ?? 0) + (ours ? 0 : 1),
    };
    // Optimistic concurrency: a replica that raced us to the same lease makes this a Conflict, and we fail.
    await client.update(builtin.lease, { ...lease, spec: next });
    this.#observe(next, nowMs);
    return took === undefined ? {} : { took };
  }

  /**
   * Who held the lease before this replica takes it, and how long reconciling stood still: since the holder's last
   * renewal by the record (the holder's clock), and since this replica last saw the record change (its own).
   */
  #handover(spec: LeaseSpec, nowMs: number): Handover {
    const released = (spec.holderIdentity ?? '') === '';
    const renewed = spec.renewTime === undefined ? Number.NaN : Date.parse(spec.renewTime);
    return {
      previousHolder: released ? (this.#lastOtherHolder ?? null) : (spec.holderIdentity ?? null),
      released,
      ...(Number.isFinite(renewed) ? { gapMs: Math.max(0, nowMs - renewed) } : {}),
      unchangedForMs: nowMs - this.#observedAt,
      leaseTransitions: (spec.leaseTransitions ?? 0) + 1,
    };
  }

  #observe(spec: LeaseSpec, nowMs: number): void {
    const holder = spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.#o.identity) this.#lastOtherHolder = holder;
    const record = JSON.stringify(spec);
    if (record === this.#observed) return;
    this.#observed = record;
    this.#observedAt = nowMs;
  }
}

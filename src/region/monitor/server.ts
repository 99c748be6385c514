/**
 * The server monitor (docs/spec/upstream-region.md §Monitor, §Health / monitor): its own loop, on the injected
 * scheduler, apart from the controllers. Each poll lists the Servers, groups them by region and identity, and asks each
 * identity's provider once (`pollServers`: one paginated Nova list per identity project, not one call per server),
 * a few identities at once (DEFAULT_POLL_CONCURRENCY), each identity's failure its own. Each
 * server then gets at most one status write per poll, skipped when nothing changed, made against the resourceVersion
 * the poll read. A reconciler write in between wins, and this poll's own changes are then put once on top of what it
 * wrote: the next poll cannot see a transition that is over by then (an ERROR the server left), and a parked server's
 * only wake back is the monitor's observed write (docs/spec/openstack-provider.md §Image rebuild). An identity's
 * writes are asked for at once, so the store commits them in a few transactions (ADR 0028).
 *
 * The monitor writes only its own fields (observe.ts); what it writes is the stimulus that wakes the Server
 * controller (controllers/server/watches.ts), never an authorisation.
 *
 * A fresh server (its create pass has run, the monitor has never observed it) gets its first poll promptly rather
 * than up to a period later, which would set every wave's wall time (ADR 0052): the monitor follows the Servers as
 * they change, and once the stream of fresh ones pauses for FRESH_POLL_QUIET_MS it polls their identities alone.
 * Each server gets at most one such poll, so steady state (no creates) costs exactly what the periodic poll costs.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { Client } from '../../kube/client.ts';
import { findCondition } from '../../kube/conditions.ts';
import { KubeConflictError, KubeNotFoundError } from '../../kube/errors.ts';
import type { Scheduler } from '../../runtime/scheduler.ts';
import { serverType, type Server, type ServerStatus } from '../apis/server.ts';
import { PROVISIONER_FINALIZER } from '../apis/shared.ts';
import { serverInputOf } from '../controllers/server/controller.ts';
import { workloadIdentityOf } from '../controllers/ownership.ts';
import type { ProviderLookup, ServerProvider } from '../provider/contract.ts';
import type { IdentityInput, ServerPoll } from '../provider/inputs.ts';
import { toOperatorLog } from '../provider/messages.ts';

/** Upstream's `--poll-period` default. */
const DEFAULT_POLL_PERIOD_MS = 60_000;
/**
 * How long fresh servers must stop arriving before their prompt first poll: a wave's creates arrive tens of ms
 * apart, so a wave shares one poll at its end instead of one per server.
 */
export const FRESH_POLL_QUIET_MS = 250;
/** Projects a poll lists at once when not told (`serve` and `up` pass their region controllers' concurrency). */
const DEFAULT_POLL_CONCURRENCY = 4;

type ServerPolling = Pick<ServerProvider, 'pollServers'>;

interface ServerMonitorOptions {
  /** The management cluster's client: where Servers live. */
  readonly client: Client;
  readonly namespace: string;
  readonly lookup: ProviderLookup<ServerPolling>;
  readonly scheduler: Scheduler;
  readonly log: Logger;
  readonly periodMs?: number;
  /** How many projects a poll lists at once (default DEFAULT_POLL_CONCURRENCY). */
  readonly concurrency?: number;
  /**
   * The Servers as they change (the manager's cache; what it holds first, as adds): subscribes, answers the
   * unsubscribe. Without it a fresh server waits for the periodic poll.
   */
  readonly changes?: (onServer: (server: Server) => void) => () => void;
}

/** What one poll did, for its log line and for tests. */
interface PollSummary {
  readonly servers: number;
  /** Provider calls made: one per (region, identity) with servers. */
  readonly identities: number;
  readonly writes: number;
  readonly failures: number;
}

export class ServerMonitor {
  readonly #options: ServerMonitorOptions;
  readonly #period: number;
  readonly #concurrency: number;
  #controller: AbortController | undefined;
  #cancel: (() => void) | undefined;
  #running: Promise<unknown> = Promise.resolve();
  /**
   * Servers (by uid) this monitor last saw in ERROR, whether or not that write landed: a lost write must not make
   * the next poll take the transition into ERROR again and repeat the fault read docs/spec/openstack-provider.md §Baremetal progress allows once.
   */
  readonly #seenErrored = new Set<string>();
  /** Fresh servers (by key) waiting for their first poll, each with its identity group's key. */
  readonly #fresh = new Map<string, string>();
  /** Never-observed servers whose first poll is done or under way: none is polled promptly twice. */
  readonly #prompted = new Set<string>();
  #cancelPrompt: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;

  constructor(options: ServerMonitorOptions) {
    this.#options = options;
    this.#period = options.periodMs ?? DEFAULT_POLL_PERIOD_MS;
    this.#concurrency = Math.max(1, options.concurrency ?? DEFAULT_POLL_CONCURRENCY);
  }

  /** Polls every period, the first one period from now; a fresh server's first poll comes sooner. */
  start(): void {
    if (this.#controller !== undefined) return;
    const controller = new AbortController();
    this.#controller = controller;
    this.#next(controller.signal);
    this.#unsubscribe = this.#options.changes?.((server) => {
      this.#noticed(server, controller.signal);
    });
  }

  /** Stops the loop and waits for a poll in progress to end. */
  async stop(): Promise<void> {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#cancel?.();
    this.#cancelPrompt?.();
    this.#cancelPrompt = undefined;
    this.#fresh.clear();
    this.#controller?.abort(new Error('server monitor stopped'));
    this.#controller = undefined;
    await this.#running.catch(() => undefined);
  }

  #next(signal: AbortSignal): void {
    this.#cancel = this.#options.scheduler.schedule(this.#period, () => {
      void this.#exclusive(signal, () => this.poll(signal)).finally(() => {
        if (!signal.aborted) this.#next(signal);
      });
    });
  }

  /** Runs `poll` after any poll in progress: the periodic and the prompt polls never overlap. */
  #exclusive(signal: AbortSignal, poll: () => Promise<unknown>): Promise<unknown> {
    this.#running = this.#running.then(poll).catch((error: unknown) => {
      if (!signal.aborted) this.#options.log.error({ err: error }, 'server monitor poll failed');
    });
    return this.#running;
  }

  /** A Server changed: when it is fresh and not yet polled, its prompt poll waits for the stream to pause. */
  #noticed(server: Server, signal: AbortSignal): void {
    const key = serverKey(server);
    if (signal.aborted || this.#prompted.has(key) || !freshlyCreated(server)) return;
    const identity = workloadIdentityOf(server);
    if (identity === undefined) return;
    this.#fresh.set(key, groupKey(identity));
    this.#cancelPrompt?.();
    this.#cancelPrompt = this.#options.scheduler.schedule(FRESH_POLL_QUIET_MS, () => {
      this.#cancelPrompt = undefined;
      void this.#exclusive(signal, async () => {
        // A periodic poll in between may have covered them all.
        const identities = new Set(this.#fresh.values());
        if (identities.size > 0) await this.poll(signal, identities);
      });
    });
  }

  /**
   * One poll of every Server in the namespace, or of the identities given (by `groupKey`): a prompt poll of fresh
   * servers.
   */
  async poll(
    signal: AbortSignal = new AbortController().signal,
    identities?: ReadonlySet<string>,
  ): Promise<PollSummary> {
    const { client, namespace, log } = this.#options;
    const { items } = await client.list(serverType, { namespace });
    // Fresh servers noticed before this list are in the Nova lists below: this poll is their first.
    for (const [key, group] of this.#fresh) {
      if (identities !== undefined && !identities.has(group)) continue;
      this.#fresh.delete(key);
      this.#prompted.add(key);
    }
    if (this.#fresh.size === 0) {
      this.#cancelPrompt?.();
      this.#cancelPrompt = undefined;
    }
    if (identities === undefined) this.#forget(items);
    const groups = groupByIdentity(items, (server) => this.#remembered(server));
    if (identities !== undefined) for (const key of groups.keys()) if (!identities.has(key)) groups.delete(key);
    let writes = 0;
    let failures = 0;
    // A few projects at once: one after another, a poll of 100 projects took 100 Nova round trips end to end.
    // Each project is still asked once, and its failure is still its own.
    await eachAtMost(this.#concurrency, groups.values(), async (group) => {
      signal.throwIfAborted();
      try {
        const provider = await this.#options.lookup(group.identity.regionID, signal);
        const results = await provider.pollServers({ signal }, group.identity, group.polls);
        // Asked for together, the writes commit together (the store groups them); each still settles alone.
        const written = await Promise.all(
          results.map((result) => {
            const server = group.servers.get(result.id);
            if (server === undefined) return Promise.resolve(false);
            if (result.status.observed?.errored === true) this.#seenErrored.add(serverKey(server));
            else this.#seenErrored.delete(serverKey(server));
            const from = group.polls.find((p) => p.server.id === result.id)?.status;
            return this.#write(server, from, result.status);
          }),
        );
        writes += written.filter(Boolean).length;
      } catch (error) {
        if (signal.aborted) throw error;
        failures++;
        log.error({ identityID: group.identity.id, provider: toOperatorLog(error) }, 'server poll failed');
      }
    });
    const summary = { servers: items.length, identities: groups.size, writes, failures };
    log.debug(summary, 'server monitor polled');
    return summary;
  }

  /** Drops what is remembered of servers gone, and the prompt marks of servers observed since (never fresh again). */
  #forget(items: readonly Server[]): void {
    const listed = new Map(items.map((server) => [serverKey(server), server]));
    for (const key of this.#seenErrored) if (!listed.has(key)) this.#seenErrored.delete(key);
    for (const key of this.#prompted) {
      const status = listed.get(key)?.status;
      if (status === undefined || status.observed !== undefined || status.provisionedAt !== undefined)
        this.#prompted.delete(key);
    }
  }

  /** The status a poll starts from: the stored one, with an ERROR this monitor saw but could not write. */
  #remembered(server: Server): ServerStatus | undefined {
    const { status } = server;
    if (status?.observed?.errored === true || !this.#seenErrored.has(serverKey(server))) return status;
    return { ...status, observed: { ...status?.observed, errored: true } };
  }

  /**
   * The poll's one write of a server, when its status changed; true when written. `from` is the status the poll
   * started from: on a conflict, what changed since then is put on the Server as it is now, once.
   */
  async #write(server: Server, from: ServerStatus | undefined, status: ServerStatus): Promise<boolean> {
    if (isDeepStrictEqual(server.status, status)) return false;
    const log = this.#options.log.child({ server: server.metadata.name });
    const { client } = this.#options;
    try {
      await client.update(serverType, { ...server, status }, { subresource: 'status' });
    } catch (error) {
      // The Server went: nothing to observe.
      if (error instanceof KubeNotFoundError) return false;
      if (!(error instanceof KubeConflictError)) throw error;
      // A reconciler wrote first. Its fields stand; this poll's changes go on top, or a later conflict leaves
      // them to the next poll.
      try {
        const now = await client.get(serverType, server.metadata.namespace, server.metadata.name);
        const merged = reapplied(now.status, from, status);
        if (isDeepStrictEqual(now.status, merged)) return false;
        await client.update(serverType, { ...now, status: merged }, { subresource: 'status' });
      } catch (again) {
        if (again instanceof KubeConflictError || again instanceof KubeNotFoundError) return false;
        throw again;
      }
    }
    for (const type of ['Active', 'Healthy']) {
      const before = findCondition(server.status?.conditions, type)?.reason;
      const after = findCondition(status.conditions, type)?.reason;
      if (before !== after) log.info({ condition: type, from: before, to: after }, 'server transition');
    }
    return true;
  }
}

/** `base` with what changed from `from` to `to`: each top-level field, and each condition by type. */
function reapplied(base: ServerStatus | undefined, from: ServerStatus | undefined, to: ServerStatus): ServerStatus {
  const before: Record<string, unknown> = { ...from };
  const after: Record<string, unknown> = { ...to };
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => key !== 'conditions' && !isDeepStrictEqual(before[key], after[key]),
  );
  const out = Object.fromEntries([
    ...Object.entries({ ...base }).filter(([key]) => !changed.includes(key)),
    ...changed.filter((key) => after[key] !== undefined).map((key) => [key, after[key]] as const),
  ]);
  const conditions = [...(base?.conditions ?? [])];
  for (const condition of to.conditions ?? []) {
    if (isDeepStrictEqual(findCondition(from?.conditions, condition.type), condition)) continue;
    const at = conditions.findIndex((c) => c.type === condition.type);
    if (at === -1) conditions.push(condition);
    else conditions[at] = condition;
  }
  return { ...(out as ServerStatus), conditions };
}

/**
 * Runs `task` on each item, at most `limit` at once, in order of start; settles once all have, rejecting with the first
 * failure (the poll's tasks fail only when it is stopped: each catches its own project's errors).
 */
async function eachAtMost<T>(limit: number, items: Iterator<T>, task: (item: T) => Promise<void>): Promise<void> {
  const worker = async (): Promise<void> => {
    for (let next = items.next(); next.done !== true; next = items.next()) await task(next.value);
  };
  // Every worker ends before this does, so a stopped poll has nothing left in flight once it settles.
  const outcomes = await Promise.allSettled(Array.from({ length: limit }, worker));
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
}

export function startServerMonitor(options: ServerMonitorOptions): ServerMonitor {
  const monitor = new ServerMonitor(options);
  monitor.start();
  return monitor;
}

interface IdentityGroup {
  readonly identity: IdentityInput;
  readonly polls: ServerPoll[];
  readonly servers: Map<string, Server>;
}

const serverKey = (server: Server): string => server.metadata.uid ?? server.metadata.name;
const groupKey = (identity: IdentityInput): string => `${identity.regionID}/${identity.id}`;

/**
 * Created and waiting for its first observation: the Server pass has run the create (Available False/Provisioning
 * is what a yielding pass writes, controllers/provisioner.ts) and the monitor has never observed it.
 */
function freshlyCreated(server: Server): boolean {
  const { status, metadata } = server;
  if (metadata.deletionTimestamp !== undefined || status === undefined) return false;
  if (status.observed !== undefined || status.provisionedAt !== undefined) return false;
  return findCondition(status.conditions, 'Available')?.reason === 'Provisioning';
}

/**
 * Servers the monitor can observe, by region and identity; one being deleted or lacking labels is left out, and so
 * is one without the provisioner's finalizer: it goes on before the first provider call (controllers/provisioner.ts),
 * so Nova cannot hold such a server yet, and its "not found" would only write a Pending the next pass overwrites
 * (ADR 0051; a wave's creates outrunning the controller got one such write each).
 */
function groupByIdentity(
  servers: readonly Server[],
  statusOf: (server: Server) => ServerStatus | undefined,
): Map<string, IdentityGroup> {
  const groups = new Map<string, IdentityGroup>();
  for (const server of servers) {
    if (server.metadata.deletionTimestamp !== undefined) continue;
    if (!(server.metadata.finalizers ?? []).includes(PROVISIONER_FINALIZER)) continue;
    const identity = workloadIdentityOf(server);
    const input = identity === undefined ? undefined : serverInputOf(server);
    if (identity === undefined || input === undefined) continue;
    const key = groupKey(identity);
    let group = groups.get(key);
    if (group === undefined) {
      group = { identity, polls: [], servers: new Map() };
      groups.set(key, group);
    }
    group.polls.push({ server: input, generation: server.metadata.generation ?? 0, status: statusOf(server) });
    group.servers.set(server.metadata.name, server);
  }
  return groups;
}

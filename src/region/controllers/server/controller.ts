/**
 * The Server controller: realises a Server through the provider's ServerProvider in its Identity's project, once
 * that Identity is Available. A pass reads the Server fresh and, in order:
 *
 * 1. the bounded create-retry (decide.ts): a never-booted server the monitor stamped Healthy=Errored is
 *    deleted and, once the monitor's read confirms it gone, recreated, at most N creates in all, then terminal;
 * 2. the provider's create-or-converge (the image rows R1–R4″ included); a yield on R4″'s acceptance or R3 also
 *    writes the fixed accepted stamp (Active Rebuilding, Healthy Unknown), the one time this reconciler writes
 *    those axes; every other row leaves them to the monitor.
 *
 * Available is written as for every region kind (decide.ts): yields re-check every 10 s, a park or terminal has
 * no requeue and waits for a wake (watches.ts). Events of the create-retry are logged with their reason.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Client } from '../../../kube/client.ts';
import type { Controller, ControllerOptions } from '../../../runtime/controller.ts';
import type { Manager } from '../../../runtime/manager.ts';
import { or } from '../../../runtime/predicates.ts';
import type { ReconcileContext, Request, Result } from '../../../runtime/types.ts';
import { identityType } from '../../apis/identity.ts';
import { serverType, type Server, type ServerStatus } from '../../apis/server.ts';
import { sshCertificateAuthorityType, type SSHCertificateAuthority } from '../../apis/ssh-certificate-authority.ts';
import {
  confirmCreateRetryDelete,
  decideCreateRetry,
  DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS,
  type CreateRetryEvent,
} from './decide.ts';
import type { ServerProvider } from '../../provider/contract.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import { SERVER_REBUILDING_YIELDS, type IdentityInput, type ServerInput } from '../../provider/inputs.ts';
import { toOperatorLog } from '../../provider/messages.ts';
import type { Outcome } from '../../provider/outcome.ts';
import { deprovisionVerdict, failureVerdict, missingLabelsVerdict, provisionVerdict, type Verdict } from '../decide.ts';
import { gateOnIdentity } from '../gate.ts';
import { workloadIdentityOf } from '../inputs.ts';
import { ignoreRows, type RowObserver } from '../metrics.ts';
import { FINALIZER, getOrUndefined, ProviderRetryError, type ProviderLookup } from '../provisioner.ts';
import { availableCondition, nextStatus } from '../status.ts';
import {
  caNotFoundVerdict,
  createFailureEdge,
  observedChanged,
  serverInputOf,
  stamped,
  vanishedEdge,
  withAddresses,
} from './watches.ts';
import { becameAvailable, byIdentity, IDENTITY_INDEX, specOrDeletionChanged, usersOf } from '../watches.ts';

export const SERVER_CONTROLLER = 'region-server';

/** What the controller drives: create-or-converge, delete, and the one-server poll the create-retry gate reads. */
export type ServerLifecycle = Pick<ServerProvider, 'createServer' | 'deleteServer' | 'updateServerState'>;

export interface ServerReconcileOptions {
  /** Upstream's `--provider-create-max-attempts`. */
  readonly maxCreateAttempts?: number;
  readonly observe?: RowObserver;
}

export async function reconcileServer(
  client: Client,
  lookup: ProviderLookup<ServerLifecycle>,
  req: Request,
  ctx: ReconcileContext,
  options: ServerReconcileOptions = {},
): Promise<Result> {
  const server = await getOrUndefined<Server>(client, serverType, req.namespace, req.name);
  if (server === undefined) return {};
  if (server.spec.pause === true) return {};
  const pass = new ServerPass(client, lookup, ctx, options);
  return server.metadata.deletionTimestamp === undefined ? pass.provision(server) : pass.deprovision(server);
}

class ServerPass {
  readonly #client: Client;
  readonly #lookup: ProviderLookup<ServerLifecycle>;
  readonly #ctx: ReconcileContext;
  readonly #maxAttempts: number;
  readonly #observe: RowObserver;

  constructor(
    client: Client,
    lookup: ProviderLookup<ServerLifecycle>,
    ctx: ReconcileContext,
    options: ServerReconcileOptions,
  ) {
    this.#client = client;
    this.#lookup = lookup;
    this.#ctx = ctx;
    this.#maxAttempts = options.maxCreateAttempts ?? DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS;
    this.#observe = options.observe ?? ignoreRows;
  }

  async provision(server: Server): Promise<Result> {
    const identity = workloadIdentityOf(server);
    if (identity === undefined || serverInputOf(server) === undefined) {
      return this.#settle(server, 'provision', missingLabelsVerdict());
    }
    const gated = await gateOnIdentity(this.#client, server);
    if (gated !== undefined) return this.#settle(server, 'provision', gated);
    const ca = await this.#certificateAuthority(server);
    if (ca === null) return this.#settle(server, 'provision', caNotFoundVerdict());
    const input = serverInputOf(server, ca);
    if (input === undefined) return this.#settle(server, 'provision', missingLabelsVerdict());
    let current = await this.#setFinalizer(server, true);

    const retry = decideCreateRetry(current.status ?? {}, { maxAttempts: this.#maxAttempts });
    this.#ctx.log.debug({ row: retry.row, action: retry.action }, 'create-retry row');
    const event = retry.action === 'proceed' ? undefined : retry.event;
    if (event !== undefined) this.#event(event);
    if (retry.action === 'terminal') {
      return this.#settle(current, 'provision', provisionVerdict(retry.outcome), retry.status);
    }
    if (retry.action === 'delete') {
      // The count is persisted before the delete, so a restart mid-retry can never count an attempt twice or lose it.
      current = await this.#writeStatus(current, retry.status);
      return this.#retryDelete(current, identity, input, retry.attempt);
    }

    let status = retry.status;
    const verdict = await this.#call('provision', async () => {
      const provider = await this.#lookup(input.regionID, this.#ctx.signal);
      const outcome = await provider.createServer({ signal: this.#ctx.signal }, identity, input);
      this.#logNotDone(outcome);
      if (outcome.kind === 'done') status = withAddresses(status, outcome.value);
      if (outcome.kind === 'yield' && SERVER_REBUILDING_YIELDS.includes(outcome.reason))
        status = stamped(status, this.#now());
      return provisionVerdict(outcome);
    });
    return this.#settle(current, 'provision', verdict, status);
  }

  async deprovision(server: Server): Promise<Result> {
    if (!(server.metadata.finalizers ?? []).includes(FINALIZER)) return {};
    const identity = workloadIdentityOf(server);
    const input = serverInputOf(server);
    if (identity === undefined || input === undefined)
      return this.#settle(server, 'deprovision', missingLabelsVerdict());
    const verdict = await this.#call('deprovision', async () => {
      const provider = await this.#lookup(input.regionID, this.#ctx.signal);
      const outcome = await provider.deleteServer({ signal: this.#ctx.signal }, identity, input);
      this.#logNotDone(outcome);
      return deprovisionVerdict(outcome);
    });
    return this.#settle(server, 'deprovision', verdict);
  }

  /** C2/C5: delete the failed server, then the confirmed-gone gate (the monitor's read surfacing not found). */
  async #retryDelete(server: Server, identity: IdentityInput, input: ServerInput, attempt: number): Promise<Result> {
    const ctx = { signal: this.#ctx.signal };
    let gone = false;
    const failed = await this.#call('provision', async () => {
      const provider = await this.#lookup(input.regionID, this.#ctx.signal);
      const deleted = await provider.deleteServer(ctx, identity, input);
      this.#logNotDone(deleted);
      try {
        await provider.updateServerState(ctx, identity, {
          server: input,
          generation: server.metadata.generation ?? 0,
          status: server.status,
        });
      } catch (error) {
        if (!(error instanceof ResourceNotFoundError)) throw error;
        gone = true;
      }
      return undefined;
    });
    if (failed !== undefined) return this.#settle(server, 'provision', failed);
    const confirmed = confirmCreateRetryDelete(server.status ?? {}, gone, {
      attempt,
      maxAttempts: this.#maxAttempts,
      now: this.#now(),
    });
    this.#ctx.log.info({ row: confirmed.row, attempt }, 'create-retry delete');
    if (confirmed.event !== undefined) this.#event(confirmed.event);
    return this.#settle(server, 'provision', provisionVerdict(confirmed.outcome), confirmed.status);
  }

  /** The CA's public key, undefined when none is named, null when the named one does not exist. */
  async #certificateAuthority(server: Server): Promise<string | undefined | null> {
    const id = server.spec.sshCertificateAuthorityID;
    if (id === undefined) return undefined;
    const ca = await getOrUndefined<SSHCertificateAuthority>(
      this.#client,
      sshCertificateAuthorityType,
      server.metadata.namespace ?? '',
      id,
    );
    return ca === undefined ? null : ca.spec.publicKey;
  }

  /** Runs provider calls; a throw becomes the failure verdict, its cause an operator log line. */
  async #call<T>(phase: string, call: () => Promise<T>): Promise<T | Verdict> {
    try {
      return await call();
    } catch (error) {
      const verdict = failureVerdict(error, this.#ctx.signal.aborted);
      this.#ctx.log.error({ provider: toOperatorLog(error), row: verdict.row }, `${phase} failed`);
      return verdict;
    }
  }

  async #settle(
    server: Server,
    phase: 'provision' | 'deprovision',
    verdict: Verdict,
    status: ServerStatus | undefined = server.status,
  ): Promise<Result> {
    this.#ctx.log.debug({ phase, row: verdict.row, action: verdict.action }, 'pass decided');
    this.#observe(phase, verdict.row);
    if (verdict.action === 'release') {
      await this.#setFinalizer(server, false);
      return {};
    }
    const input = availableCondition(verdict.available, server.metadata.generation);
    const next = nextStatus(status, input, this.#ctx.clock.now()) ?? status;
    await this.#writeStatus(server, next as ServerStatus);
    if (verdict.action === 'backoff') throw new ProviderRetryError(verdict.row);
    return verdict.requeueAfterMs === undefined ? {} : { requeueAfterMs: verdict.requeueAfterMs };
  }

  /** One status write, skipped when nothing changed; the update carries the resourceVersion the pass read. */
  async #writeStatus(server: Server, status: ServerStatus | undefined): Promise<Server> {
    if (status === undefined || isSame(server.status, status)) return server;
    return this.#client.update<Server>(serverType, { ...server, status }, { subresource: 'status' });
  }

  async #setFinalizer(server: Server, present: boolean): Promise<Server> {
    const finalizers = server.metadata.finalizers ?? [];
    if (finalizers.includes(FINALIZER) === present) return server;
    const next = present ? [...finalizers, FINALIZER] : finalizers.filter((f) => f !== FINALIZER);
    return this.#client.update<Server>(serverType, { ...server, metadata: { ...server.metadata, finalizers: next } });
  }

  #logNotDone(outcome: Outcome<unknown>): void {
    if (outcome.kind === 'park' || outcome.kind === 'terminal') {
      this.#ctx.log.warn({ provider: toOperatorLog(outcome) }, `server pass stopped: ${outcome.kind}`);
    }
  }

  #event(event: CreateRetryEvent): void {
    const log =
      event.type === 'Warning' ? this.#ctx.log.warn.bind(this.#ctx.log) : this.#ctx.log.info.bind(this.#ctx.log);
    log({ event: event.reason }, event.message);
  }

  #now(): Date {
    return new Date(this.#ctx.clock.now());
  }
}

// Deep equality ignores key order: a real API server hands objects back with their keys sorted.
const isSame = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

export interface ServerControllerOptions extends ServerReconcileOptions {
  readonly controller?: ControllerOptions;
}

/**
 * Registers the Server controller and the identity index on Servers its identity watch reads (`IDENTITY_INDEX`);
 * call it before `manager.start()`, and register no other index of that name on Servers.
 */
export function registerServerController(
  manager: Manager,
  lookup: ProviderLookup<ServerLifecycle>,
  options: ServerControllerOptions = {},
): Controller {
  manager.index(serverType, IDENTITY_INDEX, byIdentity);
  return manager
    .controller(SERVER_CONTROLLER)
    .for(serverType, {
      clusters: 'management',
      predicates: [or(specOrDeletionChanged, observedChanged, createFailureEdge, vanishedEdge)],
    })
    .watches(identityType, usersOf(manager.list.bind(manager), serverType), {
      clusters: 'management',
      predicates: [becameAvailable],
    })
    .withOptions(options.controller ?? {})
    .complete((req, ctx) => {
      const client = manager.client(req.cluster);
      return client === undefined ? Promise.resolve({}) : reconcileServer(client, lookup, req, ctx, options);
    });
}

/**
 * The Server controller: realises a Server through the provider's ServerProvider in its Identity's project, once
 * that Identity (and the SSH CA the Server names) exists, on the provisioner scaffold every region kind shares.
 * What a server adds is in its provision call:
 *
 * 1. the bounded create-retry (decide.ts): a never-booted server the monitor stamped Healthy=Errored is deleted
 *    and, once the monitor's read confirms it gone, recreated, at most N creates in all, then terminal;
 * 2. the provider's create-or-converge (the image rows R1–R4″ included); a rebuilding yield (R4″'s acceptance, R3)
 *    also writes the fixed accepted stamp (Active Rebuilding, Healthy Unknown), the one time this reconciler writes
 *    those axes; every other row leaves them to the monitor;
 * 3. once the server has converged, its volume attachments (attachments.ts): status.volumes rows, and the server
 *    reads provisioned only when every volume in spec.volumes is attached. A delete detaches every volume first.
 *
 * Available is written as for every region kind (../decide.ts): yields re-check every 10 s, a park or terminal has
 * no requeue and waits for a wake (watches.ts). Events of the create-retry are logged with their reason.
 */
import { setCondition } from '../../../kube/conditions.ts';
import { getOptional, type Client } from '../../../kube/client.ts';
import type { Controller } from '../../../runtime/controller.ts';
import type { Manager } from '../../../runtime/manager.ts';
import { or } from '../../../runtime/predicates.ts';
import {
  REBUILD_ACCEPTED_STAMP,
  resolveSSHInjection,
  serverType,
  type Server,
  type ServerStatus,
} from '../../apis/server.ts';
import { labels } from '../../apis/shared.ts';
import { sshCertificateAuthorityType } from '../../apis/ssh-certificate-authority.ts';
import { networkType } from '../../apis/network.ts';
import { volumeType } from '../../apis/volume.ts';
import type { ProviderLookup, ServerProvider } from '../../provider/contract.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import { Outcome } from '../../provider/outcome.ts';
import type { IdentityInput, ServerAddresses, ServerInput } from '../../provider/inputs.ts';
import { dependencyReasons, RECHECK_MS, type Verdict } from '../decide.ts';
import { ownershipOf, workloadIdentityOf } from '../ownership.ts';
import type { RegistrationOptions } from '../metrics.ts';
import {
  logStopped,
  provisionerReconciler,
  type ProvisionContext,
  type Provisioned,
  type Provisioner,
} from '../provisioner.ts';
import { becameAvailable, byIdentity, deleted, IDENTITY_INDEX, specOrDeletionChanged } from '../watches.ts';
import { gateOnIdentity, workloadController } from '../workload.ts';
import {
  confirmCreateRetryDelete,
  decideCreateRetry,
  DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS,
  duringCreateRetry,
  type CreateRetryEvent,
} from './decide.ts';
import {
  buildFinishedEdge,
  byVolume,
  createFailureEdge,
  observedChanged,
  serversNaming,
  vanishedEdge,
  VOLUME_INDEX,
} from './watches.ts';
import { detachAll, reconcileAttachments, type AttachmentLifecycle } from './attachments.ts';
import { ATTACHMENT_PARKED_MESSAGE, ATTACHMENT_PARKED_REASON } from './decide-attachments.ts';
import { defined } from '../../../util/defined.ts';

export const SERVER_CONTROLLER = 'region-server';

/**
 * What the controller drives: create-or-converge, delete, the one-server poll the create-retry gate reads, and the
 * volume attachments spec.volumes asks for.
 */
export type ServerLifecycle = Pick<ServerProvider, 'createServer' | 'deleteServer' | 'updateServerState'> &
  AttachmentLifecycle;

interface ServerControllerOptions extends RegistrationOptions {
  /** Upstream's `--provider-create-max-attempts`. */
  readonly maxCreateAttempts?: number;
}

/** The provider's view of a Server, or undefined when a label it needs (owner, region, display name) is missing. */
export function serverInputOf(server: Server, certificateAuthorityPublicKey?: string): ServerInput | undefined {
  const ownership = ownershipOf(server);
  const name = server.metadata.labels?.[labels.name];
  const [network] = server.spec.networks;
  if (ownership === undefined || name === undefined || name === '' || network === undefined) return undefined;
  const { spec } = server;
  return {
    ...ownership,
    id: server.metadata.name,
    name,
    flavorID: spec.flavorID,
    ...(spec.image === undefined ? {} : { imageID: spec.image.id }),
    networkID: network.id,
    allowedAddressPairs: (network.allowedAddressPairs ?? []).map((p) =>
      p.macAddress === undefined ? { cidr: p.cidr } : { cidr: p.cidr, macAddress: p.macAddress },
    ),
    securityGroupIDs: (spec.securityGroups ?? []).map((g) => g.id),
    publicIP: spec.publicIPAllocation?.enabled ?? false,
    sshInjection: resolveSSHInjection(spec.sshInjection, spec.sshCertificateAuthorityID !== undefined),
    ...(spec.userData === undefined ? {} : { userData: new Uint8Array(Buffer.from(spec.userData, 'base64')) }),
    ...defined({ infrastructureRef: spec.infrastructureRef }),
    tags: (spec.tags ?? []).map((t) => ({ name: t.name, value: t.value })),
    ...(certificateAuthorityPublicKey === undefined
      ? {}
      : { sshCertificateAuthorityPublicKey: certificateAuthorityPublicKey }),
  };
}

const CA_NOT_FOUND_MESSAGE = 'the SSH certificate authority this server names does not exist';

/** A named SSH CA that does not exist: a dependency, looked at again on the 10 s re-check. */
function caNotFoundVerdict(): Verdict {
  return {
    action: 'report',
    row: `gate:${dependencyReasons.notFound}`,
    available: { status: 'False', reason: dependencyReasons.notFound, message: CA_NOT_FOUND_MESSAGE },
    requeueAfterMs: RECHECK_MS,
  };
}

/** The addresses a done pass realised (this reconciler's fields); one it no longer has is dropped. */
export const serverAddressesOf = (addresses: ServerAddresses): Record<string, unknown> => ({
  privateIP: addresses.privateIP,
  publicIP: addresses.publicIP,
});

/** The accepted stamp on top of `status`: Active Rebuilding and Healthy Unknown, as the monitor maps a rebuild. */
export function stamped(status: ServerStatus, now: Date): ServerStatus {
  const [active, healthy] = REBUILD_ACCEPTED_STAMP;
  return { ...status, conditions: setCondition(setCondition(status.conditions, active, now), healthy, now) };
}

export function serverProvisioner(
  client: Client,
  lookup: ProviderLookup<ServerLifecycle>,
  maxAttempts = DEFAULT_PROVIDER_CREATE_MAX_ATTEMPTS,
): Provisioner<Server, ServerLifecycle, ServerAddresses> {
  return {
    type: serverType,
    lookup,
    bind(server) {
      const identity = workloadIdentityOf(server);
      const input = serverInputOf(server);
      if (identity === undefined || input === undefined) return undefined;
      // The gate reads the CA and the network; the create carries the CA's key and the network's Neutron ids.
      let caKey: string | undefined;
      let neutronNetwork: ServerInput['neutronNetwork'];
      return {
        regionID: input.regionID,
        gate: async () => {
          const gated = await gateOnIdentity(client, server);
          if (gated !== undefined) return gated;
          const ca = await certificateAuthority(client, server);
          if (ca === null) return caNotFoundVerdict();
          caKey = ca;
          neutronNetwork = await recordedNeutronNetwork(client, server, input.networkID);
          return undefined;
        },
        provision: (provider, ctx) => {
          const full: ServerInput = {
            ...input,
            ...defined({ sshCertificateAuthorityPublicKey: caKey, neutronNetwork }),
            ...(ctx.firstProvision ? { neverProvisioned: true } : {}),
          };
          return provisionServer(provider, ctx, { client, server, identity, input: full, maxAttempts });
        },
        deprovision: async (provider, ctx) => {
          const detached = await detachAll(provider, ctx, { client, server, identity, input });
          return detached.kind === 'done' ? provider.deleteServer(ctx, identity, input) : detached;
        },
      };
    },
    realised: serverAddressesOf,
  };
}

interface ServerPass {
  readonly client: Client;
  readonly server: Server;
  readonly identity: IdentityInput;
  readonly input: ServerInput;
  readonly maxAttempts: number;
}

/** The create-retry's row first; then the delete it asks for, or the provider's create-or-converge. */
async function provisionServer(
  provider: ServerLifecycle,
  ctx: ProvisionContext<ServerStatus>,
  pass: ServerPass,
): Promise<Provisioned<ServerAddresses, ServerStatus>> {
  const retry = decideCreateRetry(ctx.status, { maxAttempts: pass.maxAttempts });
  ctx.log.debug({ row: retry.row, action: retry.action }, 'create-retry row');
  if (retry.action !== 'proceed' && retry.event !== undefined) await reportEvent(ctx, retry.event);
  switch (retry.action) {
    case 'terminal':
      return { outcome: retry.outcome, status: retry.status };
    case 'delete':
      // The count is persisted before the delete, so a restart mid-retry can never count an attempt twice or lose it.
      await ctx.persist(retry.status);
      return retryDelete(provider, ctx, pass, retry.attempt);
    case 'proceed': {
      const created = await provider.createServer(ctx, pass.identity, pass.input);
      const outcome = duringCreateRetry(retry.status, created, pass.maxAttempts);
      if (outcome.kind === 'done') return attach(provider, ctx, pass, outcome.value, retry.status);
      const rebuilding = outcome.kind === 'yield' && outcome.rebuilding === true;
      return { outcome, status: rebuilding ? stamped(retry.status, new Date(ctx.clock.now())) : retry.status };
    }
  }
}

/**
 * A converged server's attachments: done only once every volume is attached. Until then the pass yields (or parks
 * on a volume the user must fix) with the addresses and rows written; a provider failure backs off after the write.
 */
async function attach(
  provider: ServerLifecycle,
  ctx: ProvisionContext<ServerStatus>,
  pass: ServerPass,
  addresses: ServerAddresses,
  status: ServerStatus,
): Promise<Provisioned<ServerAddresses, ServerStatus>> {
  const observe = (row: string, volumeID: string) => {
    ctx.log.debug({ row, volumeID }, 'attachment row');
  };
  const result = await reconcileAttachments(provider, ctx, { ...pass, observe });
  const { volumes: _, ...rest } = status;
  const next: ServerStatus = result.rows.length === 0 ? rest : { ...rest, volumes: result.rows };
  if (result.failure !== undefined) {
    await ctx.persist(next);
    throw result.failure;
  }
  switch (result.verdict) {
    case 'done':
      return { outcome: Outcome.done(addresses), status: next };
    case 'yield':
      return { outcome: Outcome.yield('volumes-attaching'), status: withAddresses(next, addresses) };
    case 'park':
      return {
        outcome: Outcome.park(ATTACHMENT_PARKED_REASON, ATTACHMENT_PARKED_MESSAGE),
        status: withAddresses(next, addresses),
      };
  }
}

/** The realised addresses on a pass that is not done yet (a done pass sets them through `realised`). */
function withAddresses(status: ServerStatus, addresses: ServerAddresses): ServerStatus {
  const { privateIP: _p, publicIP: _q, ...rest } = status;
  return {
    ...rest,
    ...defined({ privateIP: addresses.privateIP, publicIP: addresses.publicIP }),
  };
}

/** C2/C5: delete the failed server, then the confirmed-gone gate (the monitor's read surfacing not found). */
async function retryDelete(
  provider: ServerLifecycle,
  ctx: ProvisionContext<ServerStatus>,
  pass: ServerPass,
  attempt: number,
): Promise<Provisioned<ServerAddresses, ServerStatus>> {
  logStopped(ctx.log, 'create-retry delete', await provider.deleteServer(ctx, pass.identity, pass.input));
  let gone = false;
  try {
    await provider.updateServerState(ctx, pass.identity, {
      server: pass.input,
      generation: pass.server.metadata.generation ?? 0,
      status: ctx.status,
    });
  } catch (error) {
    if (!(error instanceof ResourceNotFoundError)) throw error;
    gone = true;
  }
  const now = new Date(ctx.clock.now());
  const confirmed = confirmCreateRetryDelete(ctx.status, gone, { attempt, maxAttempts: pass.maxAttempts, now });
  ctx.log.info({ row: confirmed.row, attempt }, 'create-retry delete');
  if (confirmed.event !== undefined) await reportEvent(ctx, confirmed.event);
  return { outcome: confirmed.outcome, status: confirmed.status };
}

/** The CA's public key, undefined when none is named, null when the named one does not exist. */
async function certificateAuthority(client: Client, server: Server): Promise<string | undefined | null> {
  const id = server.spec.sshCertificateAuthorityID;
  if (id === undefined) return undefined;
  const namespace = server.metadata.namespace ?? '';
  const ca = await getOptional(client, sshCertificateAuthorityType, namespace, id);
  return ca === undefined ? null : ca.spec.publicKey;
}

/** The Neutron network and subnet the server's Network recorded in its status; undefined until it has. */
async function recordedNeutronNetwork(
  client: Client,
  server: Server,
  networkID: string,
): Promise<ServerInput['neutronNetwork']> {
  const network = await getOptional(client, networkType, server.metadata.namespace ?? '', networkID);
  const recorded = network?.status?.openstack;
  if (recorded?.networkID === undefined) return undefined;
  return { networkID: recorded.networkID, subnetID: recorded.subnetID };
}

/** A create-retry event: logged, and recorded on the Server under the reason its decision table names. */
async function reportEvent(ctx: ProvisionContext<ServerStatus>, event: CreateRetryEvent): Promise<void> {
  const fields = { event: event.reason };
  if (event.type === 'Warning') ctx.log.warn(fields, event.message);
  else ctx.log.info(fields, event.message);
  await ctx.event(event.type, event.reason, event.message);
}

/**
 * Registers the Server controller and the indexes on Servers its identity and Volume watches read (`IDENTITY_INDEX`,
 * `VOLUME_INDEX`); call it before `manager.start()`, and register no other index of those names on Servers.
 */
export function registerServerController(
  manager: Manager,
  lookup: ProviderLookup<ServerLifecycle>,
  options: ServerControllerOptions = {},
): Controller {
  manager.index(serverType, IDENTITY_INDEX, byIdentity);
  manager.index(serverType, VOLUME_INDEX, byVolume);
  const provisionerFor = (client: Client) => serverProvisioner(client, lookup, options.maxCreateAttempts);
  const wakes = [or(specOrDeletionChanged, observedChanged, createFailureEdge, vanishedEdge, buildFinishedEdge)];
  return workloadController(manager, SERVER_CONTROLLER, serverType, wakes)
    .watches(volumeType, serversNaming(manager.list.bind(manager)), {
      clusters: 'management',
      predicates: [or(becameAvailable, specOrDeletionChanged, deleted)],
    })
    .withOptions(options.controller ?? {})
    .complete(provisionerReconciler(manager, provisionerFor, options.observe));
}

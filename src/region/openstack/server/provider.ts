/**
 * The server capability of one region's OpenStack provider: the contract's ServerProvider, ServerConsole and
 * ServerSnapshot over one RegionContext. Each call resolves the identity from its OpenstackIdentity record first:
 * an identity that was never realised makes a delete done and the monitor's poll an absent observation; a create
 * (or any other call) then waits, as a transient state (the controller gates on the identity before it gets here).
 */
import type { Logger } from 'pino';
import type { Client } from '../../../kube/client.ts';
import { silentLogger } from '../../../runtime/logger.ts';
import type { Clock } from '../../../util/clock.ts';
import type { CallContext, ServerConsole, ServerProvider, ServerSnapshot } from '../../provider/contract.ts';
import { ServerGoneError } from '../../provider/contract.ts';
import { ResourceKind, TransientError } from '../../provider/errors.ts';
import type { IdentityInput } from '../../provider/inputs.ts';
import { IdentityRecords } from '../identity/record.ts';
import { realisedForCreate } from '../realised.ts';
import type { RegionContext } from '../registry.ts';
import { createServer } from './create.ts';
import type { ServerDeps } from './deps.ts';
import { consoleOutput, consoleSession, deleteServer, powerServer, snapshotServer } from './lifecycle.ts';
import { pollServers } from './poll.ts';

export type OpenstackServerProvider = ServerProvider & ServerConsole & ServerSnapshot;

interface ServerProviderDeps {
  /** Where the OpenstackIdentity records are kept (the region service's store). */
  readonly kube: Client;
  readonly clock: Clock;
  readonly log?: Logger | undefined;
  /** Told each decision-table row a call took (R1–R4″, the rebuild answer), e.g. to count them. */
  readonly observeRow?: ((row: string) => void) | undefined;
}

export function serverProviderFor(region: RegionContext, deps: ServerProviderDeps): OpenstackServerProvider {
  const records = new IdentityRecords(deps.kube, region.namespace);
  const log = (deps.log ?? silentLogger()).child({ regionID: region.region.metadata.name });
  const serverDeps = (ctx: CallContext): ServerDeps => ({
    clients: region.clients,
    config: region.config,
    clock: deps.clock,
    log,
    observeRow: deps.observeRow ?? (() => undefined),
    signal: ctx.signal,
  });
  const resolve = (identity: IdentityInput) => records.withUser(identity.id);
  /** Everything but delete and the poll needs the identity's user: before that it is a transient state. */
  const required = async (identity: IdentityInput) => realisedForCreate(await resolve(identity), identity.id);

  const provider: OpenstackServerProvider = {
    createServer: async (ctx, identity, server) => createServer(serverDeps(ctx), await required(identity), server),
    startServer: async (ctx, identity, server) =>
      powerServer(serverDeps(ctx), await required(identity), server, 'start'),
    stopServer: async (ctx, identity, server) => powerServer(serverDeps(ctx), await required(identity), server, 'stop'),
    rebootServer: async (ctx, identity, server, hard) =>
      powerServer(serverDeps(ctx), await required(identity), server, hard ? 'hard-reboot' : 'soft-reboot'),
    deleteServer: async (ctx, identity, server) => deleteServer(serverDeps(ctx), await resolve(identity), server),
    pollServers: async (ctx, identity, polls) => pollServers(serverDeps(ctx), await resolve(identity), polls),
    updateServerState: async (ctx, identity, poll) => {
      const [result] = await provider.pollServers(ctx, identity, [poll]);
      if (result === undefined) {
        throw new TransientError(`server ${poll.server.id} cannot be told apart by name`, {
          resource: ResourceKind.Server,
        });
      }
      if (!result.found) throw new ServerGoneError(`server ${poll.server.id} not found`, result.status);
      return result.status;
    },
    createConsoleSession: async (ctx, identity, server) =>
      consoleSession(serverDeps(ctx), await required(identity), server),
    getConsoleOutput: async (ctx, identity, server, lines) =>
      consoleOutput(serverDeps(ctx), await required(identity), server, lines),
    createSnapshot: async (ctx, identity, server, image) =>
      snapshotServer(serverDeps(ctx), await required(identity), server, image),
  };
  return provider;
}

/**
 * The monitor's poll of one identity's servers (docs/spec/upstream-region.md §Health / monitor): ONE paginated server
 * list of the identity's project, whatever the number of servers, then observe.ts per server. Beyond that list a poll
 * pays only for what docs/spec/openstack-provider.md §Baremetal progress asks: an Ironic lookup for a baremetal flavor
 * in BUILD (privileged client; any failure falls back to Building), and the fault, read by id exactly once, on the
 * transition into ERROR and logged, never written to status.
 */
import { getNodeByInstanceUuid } from '../../../openstack/baremetal.ts';
import * as nova from '../../../openstack/compute.ts';
import { ConsistencyError } from '../../../openstack/errors.ts';
import type { ServerPoll, ServerPollResult } from '../../provider/inputs.ts';
import { toOperatorLog } from '../../provider/messages.ts';
import { shouldConsultIronic, type IronicLookup } from './decide-monitor.ts';
import { observeServer, serverFaultLog } from './observe.ts';
import { ownServer } from './find.ts';
import { baremetalFlavor, identityClient, type ServerDeps } from './deps.ts';
import type { UserIdentity } from '../realised.ts';

/**
 * The next status of each server, matched by the linkage metadata its Nova server carries (find.ts). A server two
 * Nova servers claim cannot be observed (which one is it?) and gets no result; the reconciler reports that
 * consistency error on its own pass.
 */
export async function pollServers(
  deps: ServerDeps,
  identity: UserIdentity | undefined,
  polls: readonly ServerPoll[],
): Promise<ServerPollResult[]> {
  deps.signal.throwIfAborted();
  // Never realised: no project, so none of these servers can exist.
  const listed = identity === undefined ? [] : await nova.listServers(identityClient(deps, identity, 'compute'));
  const results: ServerPollResult[] = [];
  for (const poll of polls) {
    let server: nova.Server | undefined;
    try {
      // By its linkage, whatever its name: a Nova server another Server of the same name made is not this one's.
      server = ownServer(listed, poll.server);
    } catch (error) {
      if (!(error instanceof ConsistencyError)) throw error;
      deps.log.warn({ serverID: poll.server.id, provider: toOperatorLog(error) }, 'server linkage is ambiguous');
      continue;
    }
    results.push(await observe(deps, identity, poll, server));
  }
  return results;
}

async function observe(
  deps: ServerDeps,
  identity: UserIdentity | undefined,
  poll: ServerPoll,
  server: nova.Server | undefined,
): Promise<ServerPollResult> {
  const baremetal = baremetalFlavor(deps.config, poll.server.flavorID);
  const ironic =
    server !== undefined && identity !== undefined && shouldConsultIronic(server, baremetal)
      ? await ironicLookup(deps, identity, server.id)
      : undefined;
  const observation = observeServer(poll.status, server, {
    generation: poll.generation,
    networkID: poll.server.networkID,
    baremetal,
    ironic,
    now: new Date(deps.clock.now()),
  });
  const log = deps.log.child({ serverID: poll.server.id });
  if (observation.rows !== undefined) log.debug({ rows: observation.rows }, 'server observed');
  if (observation.enteredError && server !== undefined && identity !== undefined) {
    await logFault(deps, identity, server.id, log);
  }
  if (observation.notFound) log.info('server not found at the provider');
  return { id: poll.server.id, status: observation.status, found: !observation.notFound };
}

/** The node behind a baremetal server in BUILD, read with the privileged client; a failure is logged, never thrown. */
async function ironicLookup(deps: ServerDeps, identity: UserIdentity, novaID: string): Promise<IronicLookup> {
  try {
    const client = deps.clients.privileged(identity.projectID).client('baremetal');
    const node = await getNodeByInstanceUuid(client, novaID);
    return node === undefined ? { kind: 'absent' } : { kind: 'node', provisionState: node.provision_state };
  } catch (error) {
    if (deps.signal.aborted) throw error;
    deps.log.warn({ novaID, provider: toOperatorLog(error) }, 'ironic lookup failed; reporting Building');
    return { kind: 'failed' };
  }
}

/** The fault, read by id (a list may omit it): operator log detail only, and best effort. */
async function logFault(
  deps: ServerDeps,
  identity: UserIdentity,
  novaID: string,
  log: ServerDeps['log'],
): Promise<void> {
  try {
    const server = await nova.getServer(identityClient(deps, identity, 'compute'), novaID);
    log.warn({ novaID, fault: serverFaultLog(server.fault) }, 'server entered ERROR');
  } catch (error) {
    if (deps.signal.aborted) throw error;
    log.warn({ novaID, provider: toOperatorLog(error) }, 'server entered ERROR; its fault could not be read');
  }
}

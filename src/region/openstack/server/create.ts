/**
 * Create-or-converge of one server (docs/spec/upstream-region.md §Server reconcile): the port (security groups, allowed
 * address pairs), the floating IP, then the Nova server: re-found by its exact name in the identity's project and
 * converged through the image rows, or created with its metadata, user data (the SSH-CA part merged in), key_name only
 * for the identityKeypair mode, and the identity's server group. A pinned server (infrastructureRef) is created with
 * the privileged client, optionally after a Placement preflight whose miss yields.
 *
 * A Server's first provision (nothing named for it can exist yet) makes the port and server without those lookups
 * (ADR 0030). A create yields: Nova has accepted a build that settles later, and the next pass (the 10 s re-check)
 * reads the server back through the image rows.
 */
import * as nova from '../../../openstack/compute.ts';
import { listResourceProviders } from '../../../openstack/placement.ts';
import { REJECTED_REASON } from '../../provider/classify.ts';
import { ResourceConsistencyError, ResourceKind } from '../../provider/errors.ts';
import type { ServerOutcome, ServerYield } from '../../provider/contract.ts';
import type { ServerAddresses, ServerInput } from '../../provider/inputs.ts';
import { Outcome, type Done, type Park } from '../../provider/outcome.ts';
import { resolveSSHInjection } from '../../apis/server.ts';
import { sshCreateParameters } from './cloud-init.ts';
import { imageRowOutcome } from './decide-image.ts';
import { novaServerMetadata } from './metadata.ts';
import { placementPreflightApplies, placementPreflightQuery, placementPreflightVerdict } from './decide-placement.ts';
import { Steps } from '../steps.ts';
import { identityClient, type ServerDeps } from './deps.ts';
import { convergeFloatingIP } from './floating-ip.ts';
import { convergeServerImage } from './rebuild.ts';
import { findServer } from './find.ts';
import { ensureServerPort, privateIPOf } from './port.ts';
import { attachedAt, KnownPorts, type KnownPort } from './known-ports.ts';
import type { UserIdentity } from '../realised.ts';
import { defined } from '../../../util/defined.ts';

export const PLACEMENT_MISS = 'placement-preflight-miss';

export async function createServer(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
): Promise<ServerOutcome> {
  const known = new KnownPorts(deps.clients);
  const remembered = known.take(identity, server);
  if (remembered !== undefined) {
    const outcome = await converge(deps, identity, server, known, remembered);
    // The remembered port did not hold up against Nova's read: re-find everything by name, this pass.
    if (outcome !== RE_FIND) return outcome;
  }
  return converge(deps, identity, server, known, undefined);
}

const RE_FIND = Symbol('re-find the port');

/** The port (re-found, or as remembered), its floating IP, then the Nova server. */
function converge(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  known: KnownPorts,
  remembered: undefined,
): Promise<ServerOutcome>;
function converge(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  known: KnownPorts,
  remembered: KnownPort,
): Promise<ServerOutcome | typeof RE_FIND>;
async function converge(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  known: KnownPorts,
  remembered: KnownPort | undefined,
): Promise<ServerOutcome | typeof RE_FIND> {
  const neutron = identityClient(deps, identity, 'network');
  const compute = identityClient(deps, identity, 'compute');
  const step = new Steps(deps.signal, 'create server', ResourceKind.Server);
  try {
    let port: Omit<KnownPort, 'spec'>;
    // The Nova server the port is bound to: where a server renamed behind the API is still found (find.ts).
    let boundTo: string | undefined;
    if (remembered === undefined) {
      const ensured = await step.run('ensure port', () => ensureServerPort(neutron, identity, server));
      const { id } = ensured.port;
      boundTo = ensured.port.device_id;
      const publicIP = await step.run('converge floating IP', () =>
        convergeFloatingIP(deps, neutron, identity, { id, fresh: ensured.created }, server.publicIP),
      );
      port = { portID: id, privateIP: privateIPOf(ensured.port), publicIP };
    } else {
      port = remembered;
    }
    const { privateIP, publicIP } = port;
    const addresses: ServerAddresses = {
      ...defined({ privateIP, publicIP }),
    };
    const found =
      server.neverProvisioned === true
        ? undefined
        : await step.run('find server', () => findServer(compute, server, boundTo));
    if (remembered !== undefined && !attachedAt(found?.addresses, server.networkID, privateIP)) return RE_FIND;
    if (found !== undefined) {
      // Ours under another name (its display name changed behind the API): it follows the name, so lookups by name
      // find it again.
      if (found.name !== server.name) {
        await step.run('rename server', () => nova.renameServer(compute, found.id, server.name));
        deps.log.info({ serverID: server.id, novaID: found.id }, 'server renamed to its display name');
      }
      const outcome = await step.run('converge image', () => convergeServerImage(deps, compute, found, server.imageID));
      known.remember(identity, server, port);
      return outcome.kind === 'done' ? Outcome.done(addresses) : notDone(outcome);
    }
    // No server: the image is a create parameter, and without one there is nothing to create (R1's park).
    if (server.imageID === undefined || server.imageID === '') return notDone(imageRowOutcome('R1'));
    const ssh = sshCreateParameters({
      mode: resolveSSHInjection(server.sshInjection, server.sshCertificateAuthorityPublicKey !== undefined),
      certificateAuthorityPublicKey: server.sshCertificateAuthorityPublicKey,
      userData: server.userData,
    });
    if (!ssh.ok) return Outcome.terminal(REJECTED_REASON, ssh.reason);
    const { metadata, dropped } = novaServerMetadata(server);
    if (dropped.length > 0) deps.log.warn({ serverID: server.id, dropped }, 'tags Nova would refuse left out');

    const pinned = server.infrastructureRef;
    if (placementPreflightApplies(deps.config.compute?.placementPreflight, pinned)) {
      const verdict = await step.run('placement preflight', () => placementPreflight(deps, identity, server, pinned));
      if (verdict === 'miss') {
        known.remember(identity, server, port);
        return Outcome.yield(PLACEMENT_MISS);
      }
    }
    const create: nova.ServerCreate = {
      name: server.name,
      flavorRef: server.flavorID,
      imageRef: server.imageID,
      networks: [{ port: port.portID }],
      metadata,
      ...defined({ key_name: ssh.key_name, user_data: ssh.userData, hypervisor_hostname: pinned }),
    };
    const hints = identity.serverGroupID === undefined ? undefined : { group: identity.serverGroupID };
    // Pinned creation targets the identity's project with the region's credentials: Nova's policy authorises a
    // requested destination only for the manager's powers there.
    const client = pinned === undefined ? compute : deps.clients.privileged(identity.projectID).client('compute');
    const made = await step.run('create server', () => nova.createServer(client, create, hints));
    deps.log.info({ serverID: server.id, novaID: made.id, pinned: pinned !== undefined }, 'server created');
    known.remember(identity, server, port);
    return Outcome.yield('created');
  } catch (error) {
    return step.fail(error);
  }
}

/** Asks Placement whether the pinned host can take the flavor, with the privileged client. */
async function placementPreflight(
  deps: ServerDeps,
  identity: UserIdentity,
  server: ServerInput,
  pinned: string,
): Promise<'available' | 'miss'> {
  const privileged = deps.clients.privileged(identity.projectID);
  const specs = await nova.getFlavorExtraSpecs(privileged.client('compute'), server.flavorID);
  const query = placementPreflightQuery(specs, deps.config.compute?.placementPreflight);
  if (query.kind === 'invalid') {
    // The flavor's extra specs cannot say what to ask for: an operator's inconsistency, retried with backoff.
    throw new ResourceConsistencyError(`placement preflight for flavor ${server.flavorID}: ${query.reason}`, {
      resource: ResourceKind.Flavor,
    });
  }
  const providers = await listResourceProviders(privileged.client('placement'), query.filter);
  const verdict = placementPreflightVerdict(providers, pinned);
  deps.log.info({ serverID: server.id, verdict }, 'placement preflight');
  return verdict;
}

function notDone(outcome: Done<undefined> | ServerYield | Park): ServerYield | Park {
  if (outcome.kind === 'done') throw new Error('a done image row carries the addresses');
  return outcome;
}

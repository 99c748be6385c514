/**
 * The Server controller's pure pieces: the provider input built from a Server (and the SSH CA it names), the status
 * fields the reconciler writes besides Available (the addresses, the rebuild-accepted stamp), and what wakes the
 * controller. Wakes are exactly the seed's three, plus deletion and label edits: a spec edit (generation),
 * the monitor's status.observed write (an image ref flip, an ERROR, a recovery), the create-failure edge, and a
 * vanished server (the monitor's absent observation moves Active to Pending). A foreign operation that changes none
 * of them, such as a rebuild in flight on the spec image, wakes nothing: the provisioning axis does not move.
 */
import { isDeepStrictEqual } from 'node:util';
import { findCondition } from '../../../kube/conditions.ts';
import type { ObjectEvent, Predicate } from '../../../runtime/predicates.ts';
import { setCondition } from '../../../kube/conditions.ts';
import { labels } from '../../apis/shared.ts';
import { REBUILD_ACCEPTED_STAMP, resolveSSHInjection, type Server, type ServerStatus } from '../../apis/server.ts';
import { providerCreateFailureEdge } from './decide.ts';
import type { ServerAddresses, ServerInput } from '../../provider/inputs.ts';
import { dependencyReasons, RECHECK_MS, type Verdict } from '../decide.ts';
import { ownershipOf } from '../inputs.ts';

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
    ...(spec.infrastructureRef === undefined ? {} : { infrastructureRef: spec.infrastructureRef }),
    tags: (spec.tags ?? []).map((t) => ({ name: t.name, value: t.value })),
    ...(certificateAuthorityPublicKey === undefined
      ? {}
      : { sshCertificateAuthorityPublicKey: certificateAuthorityPublicKey }),
  };
}

const statusOf = (object: ObjectEvent['object'] | undefined): ServerStatus | undefined =>
  object?.['status'] as ServerStatus | undefined;

const onUpdate =
  (changed: (old: ServerStatus | undefined, next: ServerStatus | undefined) => boolean): Predicate =>
  (event) =>
    event.type === 'update' && changed(statusOf(event.oldObject), statusOf(event.object));

/** The monitor wrote a different status.observed (the image, the errored marker, the generation). */
export const observedChanged: Predicate = onUpdate((old, next) => !isDeepStrictEqual(old?.observed, next?.observed));

/** A never-booted server was first stamped Healthy=Errored: the bounded create-retry takes it. */
export const createFailureEdge: Predicate = onUpdate(providerCreateFailureEdge);

const activeReason = (status: ServerStatus | undefined) => findCondition(status?.conditions, 'Active')?.reason;

/** The monitor found the server gone (Active fell back to Pending): the reconciler's fresh read recreates it. */
export const vanishedEdge: Predicate = onUpdate((old, next) => {
  const before = activeReason(old);
  return before !== undefined && before !== 'Pending' && activeReason(next) === 'Pending';
});

export const CA_NOT_FOUND_MESSAGE = 'the SSH certificate authority this server names does not exist';

/** A named SSH CA that does not exist: a dependency, looked at again on the 10 s re-check. */
export function caNotFoundVerdict(): Verdict {
  return {
    action: 'report',
    row: `gate:${dependencyReasons.notFound}`,
    available: { status: 'False', reason: dependencyReasons.notFound, message: CA_NOT_FOUND_MESSAGE },
    requeueAfterMs: RECHECK_MS,
  };
}

/** The addresses a done pass realised (this reconciler's fields); one it no longer has is dropped. */
export function withAddresses(status: ServerStatus, addresses: ServerAddresses): ServerStatus {
  const { privateIP: _p, publicIP: _f, ...rest } = status;
  return {
    ...rest,
    ...(addresses.privateIP === undefined ? {} : { privateIP: addresses.privateIP }),
    ...(addresses.publicIP === undefined ? {} : { publicIP: addresses.publicIP }),
  };
}

/** The accepted stamp on top of `status`: Active Rebuilding and Healthy Unknown, as the monitor maps a rebuild. */
export function stamped(status: ServerStatus, now: Date): ServerStatus {
  const [active, healthy] = REBUILD_ACCEPTED_STAMP;
  return { ...status, conditions: setCondition(setCondition(status.conditions, active, now), healthy, now) };
}

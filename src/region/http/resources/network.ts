/**
 * v2 networks, pure: the rules a create must meet beyond its schema, the Identity and Network a create makes, the
 * spec an update writes, and the read. As upstream's handler: a network gets its own identity (the service
 * principal of that organization, project and region), and the Network is owned by it, so deleting the identity
 * cascades.
 */
import {
  DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  DEFAULT_RESERVED_PREFIX_LENGTH,
  NETWORK_SERVICE_PRINCIPAL_ANNOTATION,
  NETWORK_SERVICE_PRINCIPAL_NAME,
  networkPrefixProblem,
  nextHopProblem,
  type Identity,
  type Network,
  type NetworkSpec,
  type Region,
} from '../../apis/index.ts';
import { parsePrefix } from '../../../util/ipv4.ts';
import type { Principal } from '../auth.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import type { NetworkV2CreateSpec, NetworkV2Read, NetworkV2Spec } from '../schemas/network.ts';
import { identityFor } from './identity.ts';
import { newMetadata, resource, tenancyOf } from './meta.ts';
import { readMetadataOf } from '../status.ts';
import { defined } from '../../../util/defined.ts';

export function validateNetworkCreate(spec: NetworkV2CreateSpec): FieldViolation[] {
  const errors: FieldViolation[] = [];
  // The schema refuses a prefix that does not parse or is not canonical, so these rules judge canonical ones only.
  const network = parsePrefix(spec.prefix);
  const prefixProblem = networkPrefixProblem(spec.prefix);
  if (prefixProblem !== undefined) errors.push(violation('/spec/prefix', prefixProblem.rule, prefixProblem.message));
  errors.push(...routeViolations(spec.routes, spec.prefix));
  const reservations = spec.reservations;
  if (reservations !== undefined) {
    if (network !== undefined && reservations.prefixLength <= network.length) {
      errors.push(
        violation(
          '/spec/reservations/prefixLength',
          'longerThanPrefix',
          'the reservation prefix length must be greater than the network prefix length',
        ),
      );
    }
    const provider = reservations.providerReservedPrefixLength;
    if (provider !== undefined && provider < reservations.prefixLength) {
      errors.push(
        violation(
          '/spec/reservations/providerReservedPrefixLength',
          'notShorterThanReservation',
          'providerReservedPrefixLength must not be shorter than prefixLength',
        ),
      );
    }
  }
  return errors;
}

/** Each static route whose next hop is not a host of the network (on create, and on an update of the routes). */
export function routeViolations(routes: NetworkV2Spec['routes'], prefix: string): FieldViolation[] {
  return (routes ?? []).flatMap((route, i) => {
    const problem = nextHopProblem(route.nexthop, prefix);
    return problem === undefined ? [] : [violation(`/spec/routes/${String(i)}/nexthop`, problem.rule, problem.message)];
  });
}

/**
 * A v2 network's own identity: the service principal of its organization, project and region, marked as the
 * network's (`networkID`), so the network's delete may take it when nothing else lives in it.
 */
export function networkIdentityFor(
  id: string,
  networkID: string,
  spec: NetworkV2CreateSpec,
  principal: Principal,
  provider: Region['spec']['provider'],
): Identity {
  const tenancy = { organizationID: spec.organizationId, projectID: spec.projectId, regionID: spec.regionId };
  const identity = identityFor(id, { name: NETWORK_SERVICE_PRINCIPAL_NAME }, tenancy, principal, provider);
  const annotations = { ...identity.metadata.annotations, [NETWORK_SERVICE_PRINCIPAL_ANNOTATION]: networkID };
  return { ...identity, metadata: { ...identity.metadata, annotations } };
}

/** What a network is made from, in either API generation. */
interface NetworkShape {
  readonly prefix: string;
  readonly dnsNameservers: readonly string[];
  readonly routes?: NetworkV2Spec['routes'];
  readonly reservations?: NetworkV2CreateSpec['reservations'];
}

/** A Network in an identity: its tenancy, owned by it (deleting the identity cascades), default reservations. */
export function networkFor(
  id: string,
  metadata: ResourceWriteMetadata,
  spec: NetworkShape,
  identity: Identity,
  principal: Principal,
): Network {
  const { organizationID, projectID, regionID } = tenancyOf(identity);
  const tenancy = { organizationID, projectID, regionID, identityID: identity.metadata.name };
  const reservations = {
    prefixLength: spec.reservations?.prefixLength ?? DEFAULT_RESERVED_PREFIX_LENGTH,
    providerReservedPrefixLength:
      spec.reservations?.providerReservedPrefixLength ?? DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  };
  const body: NetworkSpec = {
    prefix: spec.prefix,
    reservations,
    ...mutableSpec({
      dnsNameservers: [...spec.dnsNameservers],
      ...defined({ routes: spec.routes }),
    }),
    ...defined({ tags: metadata.tags }),
  };
  return resource('Network', newMetadata(id, metadata, tenancy, principal, identity), body) as Network;
}

/** The fields an update may change. */
export function mutableSpec(spec: NetworkV2Spec): Pick<NetworkSpec, 'dnsNameservers' | 'routes'> {
  return {
    dnsNameservers: [...spec.dnsNameservers],
    ...(spec.routes === undefined
      ? {}
      : { routes: spec.routes.map((r) => ({ prefix: r.prefix, nextHop: r.nexthop })) }),
  };
}

export function networkRead(network: Network): NetworkV2Read {
  const { spec } = network;
  return {
    metadata: readMetadataOf(network),
    spec: {
      dnsNameservers: [...(spec.dnsNameservers ?? [])],
      ...(spec.routes === undefined
        ? {}
        : { routes: spec.routes.map((r) => ({ prefix: r.prefix, nexthop: r.nextHop })) }),
    },
    status: {
      regionId: tenancyOf(network).regionID,
      prefix: spec.prefix,
      ...(spec.reservations === undefined ? {} : { reservations: { ...spec.reservations } }),
    },
  };
}

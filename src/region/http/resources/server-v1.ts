/**
 * v1 servers, pure: a v1 body is a v2 one in other words (its network in `networks[0]`, security groups as
 * objects, address pairs for the allowed source addresses), so it is translated and checked by the v2 rules, the
 * violations pointed back at the v1 fields. Two v1 specifics: an address pair may name a MAC, and an update keeps
 * the image (upstream: v1 cannot rebuild), the network and the volumes (v1 has no field for them).
 */
import type { Server, ServerSpec } from '../../apis/index.ts';
import { violation, type FieldViolation } from '../problem.ts';
import type { ServerV2CreateSpec, ServerV2Spec } from '../schemas/server.ts';
import type { ServerRead, ServerWrite } from '../schemas/server-v1.ts';
import { powerStateOf, serverReadMetadataOf } from '../status.ts';
import { tenancyOf } from './meta.ts';
import { defined } from '../../../util/defined.ts';

type V1Spec = ServerWrite['spec'];

const networkOf = (spec: V1Spec) => spec.networks[0] ?? { id: '' };

/** The v2 spec a v1 body means, its image given (v1's on create, the stored one on update). */
export function asV2Spec(spec: V1Spec, imageID: string): ServerV2CreateSpec {
  const network = networkOf(spec);
  const pairs = network.allowedAddressPairs?.map((p) => p.cidr);
  return {
    flavorId: spec.flavorId,
    imageId: imageID,
    networkId: network.id,
    networking: {
      ...(spec.securityGroups === undefined ? {} : { securityGroups: spec.securityGroups.map((g) => g.id) }),
      ...(spec.publicIPAllocation === undefined ? {} : { publicIP: spec.publicIPAllocation.enabled }),
      ...defined({ allowedSourceAddresses: pairs }),
    },
    ...defined({ userData: spec.userData }),
  };
}

/**
 * The v2 update spec (no network, no SSH settings) a v1 body means. Upstream's v1 schema has no volumes, so a v1
 * update keeps the server's as they are (a v2 PUT that leaves one out detaches it).
 */
export function asV2UpdateSpec(spec: V1Spec, current: Server): ServerV2Spec {
  const { networkId: _, ...rest } = asV2Spec(spec, current.spec.image?.id ?? '');
  const volumes = current.spec.volumes?.map((v) => ({
    volumeId: v.id,
    ...defined({ device: v.device }),
  }));
  return volumes === undefined ? rest : { ...rest, volumes };
}

const V1_POINTERS: readonly (readonly [RegExp, string])[] = [
  [/^\/spec\/networkId/, '/spec/networks/0/id'],
  [/^\/spec\/networking\/securityGroups\/(\d+)/, '/spec/securityGroups/$1/id'],
  [/^\/spec\/networking\/allowedSourceAddresses\/(\d+)/, '/spec/networks/0/allowedAddressPairs/$1/cidr'],
  [/^\/spec\/networking\/publicIP/, '/spec/publicIPAllocation/enabled'],
];

/** A violation of the v2 rules, pointed at the v1 field it came from. */
export function asV1Violation(v: FieldViolation): FieldViolation {
  for (const [from, to] of V1_POINTERS) {
    if (from.test(v.pointer)) return violation(v.pointer.replace(from, to), v.rule, v.message);
  }
  return v;
}

/** What an update may not change through v1: the flavor (ever) and the network. */
export function serverV1UpdateViolations(spec: V1Spec, current: Server): FieldViolation[] {
  const before = current.spec.networks[0]?.id ?? tenancyOf(current).networkID;
  return networkOf(spec).id === before
    ? []
    : [violation('/spec/networks/0/id', 'immutable', "a server's network cannot be changed")];
}

/** v1's address pairs, MACs included, on the server's network. */
export function withAddressPairs(spec: ServerSpec, v1: V1Spec): ServerSpec {
  const pairs = networkOf(v1).allowedAddressPairs;
  const [network, ...others] = spec.networks;
  if (network === undefined) return spec;
  const { allowedAddressPairs: _, ...bare } = network;
  const next =
    pairs === undefined || pairs.length === 0
      ? bare
      : {
          ...bare,
          allowedAddressPairs: pairs.map((p) => ({
            cidr: p.cidr,
            ...defined({ macAddress: p.macAddress }),
          })),
        };
  return { ...spec, networks: [next, ...others] };
}

export function serverV1Read(server: Server): ServerRead {
  const { spec, status } = server;
  const phase = powerStateOf(server);
  return {
    metadata: serverReadMetadataOf(server),
    spec: {
      flavorId: spec.flavorID,
      imageId: spec.image?.id ?? '',
      ...(spec.securityGroups === undefined ? {} : { securityGroups: spec.securityGroups.map((g) => ({ id: g.id })) }),
      ...(spec.publicIPAllocation === undefined
        ? {}
        : { publicIPAllocation: { enabled: spec.publicIPAllocation.enabled } }),
      networks: spec.networks.slice(0, 1).map((n) => ({
        id: n.id,
        ...(n.allowedAddressPairs === undefined
          ? {}
          : {
              allowedAddressPairs: n.allowedAddressPairs.map((p) => ({
                cidr: p.cidr,
                ...defined({ macAddress: p.macAddress }),
              })),
            }),
      })),
      ...defined({ userData: spec.userData }),
    },
    status: {
      ...defined({ phase, privateIP: status?.privateIP, publicIP: status?.publicIP }),
    },
  };
}

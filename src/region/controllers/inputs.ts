/**
 * The provider's neutral inputs, built from the CRDs (pure). Ownership comes from the tenancy labels every region
 * resource carries; a resource missing one cannot be realised, so these return undefined and the controller
 * reports it. Ids are Kubernetes names, as upstream has them.
 */
import type { KubeObject } from '../../kube/object.ts';
import type { Identity } from '../apis/identity.ts';
import {
  DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  DEFAULT_RESERVED_PREFIX_LENGTH,
  type Network,
  type NetworkStatus,
} from '../apis/network.ts';
import type { SecurityGroup, SecurityGroupRule as SecurityGroupRuleSpec } from '../apis/security-group.ts';
import { labels } from '../apis/shared.ts';
import type {
  IdentityInput,
  NetworkInput,
  NetworkRealisation,
  Ownership,
  SecurityGroupInput,
  SecurityGroupRule,
} from '../provider/inputs.ts';

/** "Anywhere", what an omitted rule CIDR means. */
export const ANY_IPV4 = '0.0.0.0/0';

function label(object: KubeObject, key: string): string | undefined {
  const value = object.metadata.labels?.[key];
  return value === undefined || value === '' ? undefined : value;
}

export function ownershipOf(object: KubeObject): Ownership | undefined {
  const organizationID = label(object, labels.organization);
  const projectID = label(object, labels.project);
  const regionID = label(object, labels.regionID);
  if (organizationID === undefined || projectID === undefined || regionID === undefined) return undefined;
  return { organizationID, projectID, regionID };
}

export function identityInputOf(identity: Identity): IdentityInput | undefined {
  const ownership = ownershipOf(identity);
  return ownership === undefined ? undefined : { ...ownership, id: identity.metadata.name };
}

/** The identity id a workload names by label. */
export function identityIDOf(object: KubeObject): string | undefined {
  return label(object, labels.identityID);
}

/**
 * The identity a workload runs in, from the workload's own labels: it shares the identity's owner and region. This
 * needs no read of the Identity, so a delete still works after the Identity itself is gone.
 */
export function workloadIdentityOf(object: KubeObject): IdentityInput | undefined {
  const ownership = ownershipOf(object);
  const id = identityIDOf(object);
  return ownership === undefined || id === undefined ? undefined : { ...ownership, id };
}

export function networkInputOf(network: Network): NetworkInput | undefined {
  const ownership = ownershipOf(network);
  if (ownership === undefined) return undefined;
  const { spec } = network;
  // The API server applies these schema defaults; the embedded store and older objects may not carry them.
  const reservations = {
    prefixLength: spec.reservations?.prefixLength ?? DEFAULT_RESERVED_PREFIX_LENGTH,
    providerReservedPrefixLength:
      spec.reservations?.providerReservedPrefixLength ?? DEFAULT_PROVIDER_RESERVED_PREFIX_LENGTH,
  };
  return {
    ...ownership,
    id: network.metadata.name,
    prefix: spec.prefix,
    reservations,
    dnsNameservers: spec.dnsNameservers ?? [],
    routes: (spec.routes ?? []).map((r) => ({ prefix: r.prefix, nextHop: r.nextHop })),
  };
}

export function securityGroupInputOf(securityGroup: SecurityGroup): SecurityGroupInput | undefined {
  const ownership = ownershipOf(securityGroup);
  if (ownership === undefined) return undefined;
  return { ...ownership, id: securityGroup.metadata.name, rules: (securityGroup.spec.rules ?? []).map(ruleOf) };
}

function ruleOf(rule: SecurityGroupRuleSpec): SecurityGroupRule {
  const base = { direction: rule.direction, protocol: rule.protocol, cidr: rule.cidr ?? ANY_IPV4 };
  const { port } = rule;
  if (port?.number !== undefined) return { ...base, port: { number: port.number } };
  if (port?.range !== undefined) return { ...base, port: { start: port.range.start, end: port.range.end } };
  return base;
}

/** `Network.status.openstack` from the provider's realisation; absent fields stay absent. */
export function networkStatusOf(realisation: NetworkRealisation): NonNullable<NetworkStatus['openstack']> {
  const { networkID, subnetID, vlanID, storageRange } = realisation;
  return {
    networkID,
    subnetID,
    ...(vlanID === undefined ? {} : { vlanID }),
    ...(storageRange === undefined
      ? {}
      : { storageRange: { startIP: storageRange.startIP, endIP: storageRange.endIP } }),
  };
}

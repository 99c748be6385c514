/** Every region.unikorn-cloud.org kind with how it is served: the list the CRD generator and the store read. */
import type { KindDefinition, PrinterColumn } from '../../kube/crd.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { IdentitySchema, identityType } from './identity.ts';
import { LoadBalancerSchema, loadBalancerType } from './load-balancer.ts';
import { NetworkSchema, networkType } from './network.ts';
import { OpenstackIdentitySchema, openstackIdentityType } from './openstack-identity.ts';
import { RegionSchema, regionType } from './region.ts';
import { SecurityGroupSchema, securityGroupType } from './security-group.ts';
import { ServerSchema, serverType } from './server.ts';
import { SSHCertificateAuthoritySchema, sshCertificateAuthorityType } from './ssh-certificate-authority.ts';
import { VLANAllocationSchema, vlanAllocationType } from './vlan-allocation.ts';
import { VolumeSchema, volumeType } from './volume.ts';

export * from './shared.ts';
export * from './identity.ts';
export * from './load-balancer.ts';
export * from './network.ts';
export * from './openstack-identity.ts';
export * from './region.ts';
export * from './security-group.ts';
export * from './server.ts';
export * from './ssh-certificate-authority.ts';
export * from './vlan-allocation.ts';
export * from './volume.ts';
export type { KindDefinition, PrinterColumn } from '../../kube/crd.ts';

/** Every kind whose provider resources live in an identity's project, found by the identity-id label. */
export const identityDependentTypes: readonly ResourceType[] = [
  networkType,
  securityGroupType,
  serverType,
  volumeType,
  loadBalancerType,
];

const condition = (type: string, field: 'reason' | 'status'): string =>
  `.status.conditions[?(@.type=="${type}")].${field}`;

const displayName: PrinterColumn = {
  name: 'Display Name',
  type: 'string',
  jsonPath: '.metadata.labels.unikorn-cloud\\.org/name',
};
const status: PrinterColumn = { name: 'Status', type: 'string', jsonPath: condition('Available', 'reason') };
const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
/** `-o wide`'s extra columns (priority 1): whose the object is, by the labels upstream sets. */
const owner: readonly PrinterColumn[] = [
  { name: 'Organization', type: 'string', jsonPath: '.metadata.labels.unikorn-cloud\\.org/organization', priority: 1 },
  { name: 'Project', type: 'string', jsonPath: '.metadata.labels.unikorn-cloud\\.org/project', priority: 1 },
];
/** kubectl's `get all`: the kinds a tenant makes (not the region's own bookkeeping: VLANs, CAs, OpenStack identities). */
const ALL = ['all'] as const;

/** A kind a tenant makes: its own columns between the display name and the owner, status and age; in `get all`. */
const tenantKind = (
  type: KindDefinition['type'],
  schema: KindDefinition['schema'],
  shortName: string,
  columns: readonly PrinterColumn[],
): KindDefinition => ({
  type,
  schema,
  statusSubresource: true,
  printerColumns: [displayName, ...columns, ...owner, status, age],
  shortNames: [shortName],
  categories: ALL,
});

const kinds: readonly KindDefinition[] = [
  {
    type: regionType,
    schema: RegionSchema,
    statusSubresource: true,
    printerColumns: [displayName, { name: 'Provider', type: 'string', jsonPath: '.spec.provider' }, status, age],
  },
  {
    type: identityType,
    schema: IdentitySchema,
    statusSubresource: true,
    printerColumns: [{ name: 'Provider', type: 'string', jsonPath: '.spec.provider' }, ...owner, status, age],
    shortNames: ['id'],
    categories: ALL,
  },
  {
    type: openstackIdentityType,
    schema: OpenstackIdentitySchema,
    statusSubresource: false,
    printerColumns: [
      { name: 'Project', type: 'string', jsonPath: '.spec.projectID' },
      { name: 'User', type: 'string', jsonPath: '.spec.userID' },
      age,
    ],
    shortNames: ['osid'],
  },
  tenantKind(networkType, NetworkSchema, 'net', [
    { name: 'Prefix', type: 'string', jsonPath: '.spec.prefix' },
    { name: 'VLAN', type: 'integer', jsonPath: '.status.openstack.vlanID' },
  ]),
  tenantKind(securityGroupType, SecurityGroupSchema, 'sg', []),
  tenantKind(serverType, ServerSchema, 'srv', [
    { name: 'Flavor', type: 'string', jsonPath: '.spec.flavorID' },
    { name: 'Image', type: 'string', jsonPath: '.spec.image.id' },
    { name: 'Private IP', type: 'string', jsonPath: '.status.privateIP' },
    { name: 'Public IP', type: 'string', jsonPath: '.status.publicIP' },
    { name: 'Active', type: 'string', jsonPath: condition('Active', 'reason') },
    { name: 'Health', type: 'string', jsonPath: condition('Healthy', 'reason') },
  ]),
  tenantKind(volumeType, VolumeSchema, 'vol', [
    { name: 'Class', type: 'string', jsonPath: '.spec.volumeClassID' },
    { name: 'Size', type: 'string', jsonPath: '.spec.size' },
  ]),
  tenantKind(loadBalancerType, LoadBalancerSchema, 'lb', [
    { name: 'VIP', type: 'string', jsonPath: '.status.vipAddress' },
    { name: 'Public IP', type: 'string', jsonPath: '.status.publicIP' },
  ]),
  {
    type: vlanAllocationType,
    schema: VLANAllocationSchema,
    statusSubresource: false,
    printerColumns: [age],
    shortNames: ['vlan'],
  },
  {
    type: sshCertificateAuthorityType,
    schema: SSHCertificateAuthoritySchema,
    statusSubresource: false,
    printerColumns: [displayName, age],
    shortNames: ['sshca'],
  },
];

/** kubectl's category for every region kind (`kubectl get unikorn`), before any of the kind's own (`all`). */
const CATEGORY = 'unikorn';

export const regionKinds: readonly KindDefinition[] = kinds.map((k) => ({
  ...k,
  categories: [CATEGORY, ...(k.categories ?? [])],
}));

/** Object metadata for what the API writes: ownership labels as upstream sets them, display name, annotations. */
import type { ObjectMeta, OwnerReference, KubeObject } from '../../../kube/object.ts';
import { API_VERSION, labels } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import { annotations } from '../status.ts';

/** Where a resource sits: its organization, project and region, and the identity it runs in. */
export interface Tenancy {
  readonly organizationID: string;
  readonly projectID: string;
  readonly regionID: string;
  readonly identityID?: string;
  readonly networkID?: string;
}

function tenancyLabels(tenancy: Tenancy): Record<string, string> {
  return {
    [labels.organization]: tenancy.organizationID,
    [labels.project]: tenancy.projectID,
    [labels.regionID]: tenancy.regionID,
    ...(tenancy.identityID === undefined ? {} : { [labels.identityID]: tenancy.identityID }),
    ...(tenancy.networkID === undefined ? {} : { [labels.networkID]: tenancy.networkID }),
  };
}

/** The tenancy a stored resource carries (every API-made resource has all of it). */
export function tenancyOf(object: KubeObject): Required<Tenancy> {
  const l = object.metadata.labels ?? {};
  return {
    organizationID: l[labels.organization] ?? '',
    projectID: l[labels.project] ?? '',
    regionID: l[labels.regionID] ?? '',
    identityID: l[labels.identityID] ?? '',
    networkID: l[labels.networkID] ?? '',
  };
}

function ownerReference(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? '',
    blockOwnerDeletion: true,
  };
}

export function newMetadata(
  id: string,
  write: ResourceWriteMetadata,
  tenancy: Tenancy,
  principal: Principal,
  owner?: KubeObject,
): ObjectMeta {
  return {
    name: id,
    labels: { ...tenancyLabels(tenancy), [labels.name]: write.name },
    annotations: {
      [annotations.creator]: principal.subject,
      ...(write.description === undefined ? {} : { [annotations.description]: write.description }),
    },
    ...(owner === undefined ? {} : { ownerReferences: [ownerReference(owner)] }),
  };
}

/** The metadata of an update: a new display name, description and modifier; ownership never changes. */
export function updatedMetadata(
  current: ObjectMeta,
  write: ResourceWriteMetadata,
  principal: Principal,
  now: number,
): ObjectMeta {
  const { [annotations.description]: _, ...kept } = current.annotations ?? {};
  return {
    ...current,
    labels: { ...current.labels, [labels.name]: write.name },
    annotations: {
      ...kept,
      [annotations.modifier]: principal.subject,
      [annotations.modified]: new Date(now).toISOString(),
      ...(write.description === undefined ? {} : { [annotations.description]: write.description }),
    },
  };
}

export const resource = (kind: string, metadata: ObjectMeta, spec: object): KubeObject => ({
  apiVersion: API_VERSION,
  kind,
  metadata,
  spec,
});

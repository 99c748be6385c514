/**
 * Who owns a region resource, from the tenancy labels every one carries (pure): its organization, project and
 * region, and for a workload the Identity it runs in. A resource missing one cannot be realised, so these return
 * undefined and the controller reports it. Ids are Kubernetes names, as upstream has them.
 */
import type { KubeObject } from '../../kube/object.ts';
import { labels } from '../apis/shared.ts';
import type { IdentityInput, Ownership } from '../provider/inputs.ts';

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

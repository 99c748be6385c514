/**
 * The snapshot images an identity published, deleted with it (docs/adr/0038-leaks-snapshot-images-and-default-groups.md).
 * A server snapshot (server/lifecycle.ts `snapshotServer`) is a Glance image owned by the identity's project, public,
 * carrying the identity's id in `unikorn:identity_id`; nothing else ever deletes it, so without this step it outlives
 * the project that owns it, public and undeletable through the API.
 *
 * Found by owner and post-filtered by the property, so an image someone else owns or another identity's image is never
 * touched; listed by the privileged client (region credentials in the identity's project), which may both see the
 * project's private images (a snapshot interrupted before it was published) and delete its public ones. Each pass
 * lists afresh and a 404 on delete counts as deleted, so a pass cut off anywhere converges on the next.
 */
import { EndpointNotFoundError, isNotFound } from '../../../openstack/errors.ts';
import { deleteImage, imageProperties, listImages, updateImage } from '../../../openstack/image.ts';
import { ImageProperty } from '../names.ts';
import type { ProjectClients } from '../principals.ts';

/** Deletes every image of the project carrying `identityID`; returns their ids (deleted now or found gone). */
export async function deleteSnapshotImages(
  privileged: ProjectClients<'privileged'>,
  identityID: string,
): Promise<string[]> {
  const glance = privileged.client('image');
  try {
    await glance.baseUrl();
  } catch (error) {
    if (error instanceof EndpointNotFoundError) return [];
    throw error;
  }
  const owned = await listImages(glance, { owner: privileged.projectID });
  const ours = owned.filter(
    (image) => image.owner === privileged.projectID && imageProperties(image)[ImageProperty.identityID] === identityID,
  );
  for (const image of ours) {
    try {
      // A protected image refuses deletion (403) for ever; its owner is going, so the protection goes first.
      if (image.protected)
        await updateImage(glance, image.id, [{ op: 'replace', property: 'protected', value: false }]);
      await deleteImage(glance, image.id);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return ours.map((image) => image.id);
}

/**
 * Upstream's v1 region paths, scoped by the organization they name: the regions it may use, one region's detail,
 * and its images: the ready ones it may use, and upload and delete of its own. An uploaded image belongs to the
 * organization (the region's public-image signature rule does not apply to it), must be a raw disk image, and
 * only its owner may delete it: another organization's image reads as not found, a public one is forbidden, and a
 * delete that cannot proceed says why (409 protected or in use, 503 only for a transient failure) and logs the cause.
 */
import Type from 'typebox';
import { regionType } from '../../apis/index.ts';
import { ResourceConflictError, ResourceNotFoundError } from '../../provider/errors.ts';
import { toOperatorLog } from '../../provider/messages.ts';
import { imageSourceCheck } from '../image-source.ts';
import { problems, violation, type Problem } from '../problem.ts';
import { regionVisibleTo } from '../repository.ts';
import { imageFor, imageRead } from '../resources/inventory.ts';
import { regionDetailRead, regionRead } from '../resources/region.ts';
import { Uuid } from '../schemas/common.ts';
import { ImageCreate, ImageV2 } from '../schemas/inventory.ts';
import { RegionDetailRead, RegionRead } from '../schemas/region.ts';
import { Accepted, doc, OrganizationParams, refuseIf, scopedPrincipal, type Api, type RouteDeps } from './kit.ts';
import { guard, OrgRegionParams, READ_TIMEOUT_MS, regionAccess } from './region.ts';

const ImageParams = Type.Object({ ...OrgRegionParams.properties, imageID: Uuid('The image.') });
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

export function regionV1Routes(app: Api, deps: RouteDeps): void {
  const access = regionAccess(deps.repository, deps);
  const checkSource = deps.imageSource ?? imageSourceCheck({ log: deps.log });

  app.get(
    '/api/v1/organizations/:organizationID/regions',
    {
      schema: doc(
        'Regions',
        'List the regions the organization may use',
        { params: OrganizationParams },
        {
          200: Type.Array(RegionRead),
        },
      ),
    },
    async (request) => {
      const { organizationID } = request.params;
      scopedPrincipal(request, organizationID);
      const regions = await deps.client.list(regionType, { namespace: deps.namespace }).catch(() => {
        throw problems.internal();
      });
      return regions.items.filter((r) => regionVisibleTo(r, organizationID)).map(regionRead);
    },
  );

  app.get(
    '/api/v1/organizations/:organizationID/regions/:regionID/detail',
    { schema: doc('Regions', "Get a region's detail", { params: OrgRegionParams }, { 200: RegionDetailRead }) },
    async (request) => {
      const { organizationID, regionID } = request.params;
      scopedPrincipal(request, organizationID);
      return regionDetailRead(await access.regionFor(regionID, [organizationID]));
    },
  );

  app.get(
    '/api/v1/organizations/:organizationID/regions/:regionID/images',
    {
      schema: doc(
        'Images',
        'List the ready images the organization may use',
        { params: OrgRegionParams },
        {
          200: Type.Array(ImageV2),
        },
      ),
    },
    async (request) => {
      const { organizationID, regionID } = request.params;
      scopedPrincipal(request, organizationID);
      await access.regionFor(regionID, [organizationID]);
      const inventory = await access.inventoryOf(regionID);
      const query = inventory.queryImages().availableToOrganization(organizationID).statusIn('ready');
      const list = await guard(() => query.list({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) }));
      return [...list.items].sort(byName).map(imageRead);
    },
  );

  app.post(
    '/api/v1/organizations/:organizationID/regions/:regionID/images',
    {
      schema: doc(
        'Images',
        "Upload an organization's image from a URL (raw disk images only)",
        { params: OrgRegionParams, body: ImageCreate },
        { 200: ImageV2 },
      ),
    },
    async (request, reply) => {
      const { organizationID, regionID } = request.params;
      scopedPrincipal(request, organizationID);
      await access.regionFor(regionID, [organizationID]);
      const inventory = await access.inventoryOf(regionID);
      const problem = await checkSource(request.body.spec.uri, AbortSignal.timeout(READ_TIMEOUT_MS));
      refuseIf(problem === undefined ? [] : [violation('/spec/uri', 'rawImage', problem)]);
      const image = await guard(() =>
        inventory.createImage(
          { signal: AbortSignal.timeout(READ_TIMEOUT_MS) },
          imageFor(request.body, organizationID),
          request.body.spec.uri,
        ),
      );
      // Upstream answers an upload 200, not 201.
      return reply.code(200).send(imageRead(image));
    },
  );

  app.delete(
    '/api/v1/organizations/:organizationID/regions/:regionID/images/:imageID',
    { schema: doc('Images', "Delete an organization's own image", { params: ImageParams }, { 202: Accepted }) },
    async (request, reply) => {
      const { organizationID, regionID, imageID } = request.params;
      scopedPrincipal(request, organizationID);
      await access.regionFor(regionID, [organizationID]);
      const inventory = await access.inventoryOf(regionID);
      const signal = () => ({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) });
      // Why a delete did not happen reaches the operator log in full; the tenant reads a fixed, cause-neutral reason.
      const refused = (error: unknown, problem: Problem): Problem => {
        // The answer's status is a field of its own: the repeat limit (runtime/logger.ts) must not fold a 503's cause
        // into an earlier 409's.
        const status = problem.status;
        deps.log?.warn(
          { imageID, organizationID, regionID, status, err: toOperatorLog(error) },
          'image delete refused',
        );
        return problem;
      };
      const image = await inventory.getImage(signal(), organizationID, imageID).catch((error: unknown) => {
        if (error instanceof ResourceNotFoundError) return undefined;
        throw refused(error, problems.unavailable('the region inventory cannot be read right now; retry shortly'));
      });
      // Another organization's image is invisible here: not found, as upstream, so its existence does not leak.
      if (image === undefined) throw problems.notFound('image');
      // A public image is visible to every organization, and none may delete it.
      if (image.organizationID !== organizationID) {
        throw problems.forbidden("the image is not the organization's own: only its own images may be deleted");
      }
      await inventory.deleteImage(signal(), imageID).catch((error: unknown) => {
        if (error instanceof ResourceNotFoundError) throw problems.notFound('image');
        if (error instanceof ResourceConflictError) {
          throw refused(error, problems.conflict('the image is protected or in use and cannot be deleted'));
        }
        throw refused(error, problems.unavailable('the image cannot be deleted right now; retry shortly'));
      });
      return reply.code(202).send();
    },
  );
}

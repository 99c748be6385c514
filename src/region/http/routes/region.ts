/**
 * Region inventory: images (`/api/v2/regions/{regionID}/images`), flavors and external networks (upstream's v1
 * paths, with v2-style aliases), and volume classes. A region the caller's organization may not use is not found;
 * a v1 path naming an organization the token does not hold is forbidden, as upstream's RBAC has it.
 */
import type { FastifyRequest } from 'fastify';
import Type, { type TSchema } from 'typebox';
import type { Region } from '../../apis/index.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import { canAccess, type Principal } from '../auth.ts';
import type { RegionInventory } from '../context.ts';
import { listOf, principalOf } from '../principal.ts';
import { problems } from '../problem.ts';
import type { Repository } from '../repository.ts';
import { byFlavorSize, flavorRead, imageRead, volumeClassRead } from '../resources/inventory.ts';
import { Uuid } from '../schemas/common.ts';
import {
  ExternalNetwork,
  Flavor,
  ImagesQuery,
  ImageV2,
  OrganizationQuery,
  VolumeClassV2,
} from '../schemas/inventory.ts';
import { doc, OrganizationParams, scopedPrincipal, type Api, type RouteDeps } from './kit.ts';

const RegionParams = Type.Object({ regionID: Uuid('The region.') });
export const OrgRegionParams = Type.Object({ ...OrganizationParams.properties, ...RegionParams.properties });
export const READ_TIMEOUT_MS = 30_000;

/** What the region routes share: finding a region an organization may use, and its inventory. */
interface RegionAccess {
  /** The region, if one of the organizations may use it; else 404. */
  regionFor(regionID: string, organizations: readonly string[]): Promise<Region>;
  /** The region's inventory, or 501 when this deployment has none. */
  inventoryOf(regionID: string): Promise<RegionInventory>;
}

export function regionAccess(repo: Repository, deps: RouteDeps): RegionAccess {
  return {
    regionFor: async (regionID, organizations) => {
      for (const org of organizations) {
        const region = await repo.region(regionID, org);
        if (region !== undefined) return region;
      }
      throw problems.notFound('region');
    },
    inventoryOf: (regionID) => {
      const lookup = deps.capabilities.inventory;
      if (lookup === undefined) throw problems.notImplemented('the region inventory (flavors, images, volume classes)');
      return guard(() => lookup(regionID, AbortSignal.timeout(READ_TIMEOUT_MS)));
    },
  };
}

const created = (region: Region): string => region.metadata.creationTimestamp ?? new Date(0).toISOString();

export function regionRoutes(app: Api, deps: RouteDeps): void {
  const caps = deps.capabilities;
  const access = regionAccess(deps.repository, deps);

  /** The organizations asked for (all of the token's when none), each one the token holds. */
  const organizationsOf = (principal: Principal, asked: string[] | undefined): string[] => {
    const wanted = asked ?? [...principal.organizationIDs];
    if (wanted.some((o) => !canAccess(principal, o))) throw problems.notFound('organization');
    return wanted;
  };
  /** v2 asks by query (out of scope reads as absent); v1 names the organization in the path (403 if not held). */
  const inScope = async (request: FastifyRequest, regionID: string, asked: string[] | undefined, v1: boolean) => {
    if (v1 && asked?.[0] !== undefined) scopedPrincipal(request, asked[0]);
    const organizations = organizationsOf(principalOf(request), asked);
    return { organizations, region: await access.regionFor(regionID, organizations) };
  };

  app.get(
    '/api/v2/regions/:regionID/images',
    {
      schema: doc(
        'Images',
        'List images',
        { params: RegionParams, querystring: ImagesQuery },
        { 200: Type.Array(ImageV2) },
      ),
    },
    async (request) => {
      const { regionID } = request.params;
      const { organizations } = await inScope(request, regionID, listOf(request.query.organizationID), false);
      const inventory = await access.inventoryOf(regionID);
      let query =
        request.query.scope === 'owned'
          ? inventory.queryImages().ownedByOrganization(...organizations)
          : inventory.queryImages().availableToOrganization(...organizations);
      // The schema admits only image states, one or repeated, so no comma-splitting (listOf) is needed.
      const { status } = request.query;
      if (status !== undefined) query = query.statusIn(...[status].flat());
      const list = await guard(() => query.list({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) }));
      return list.items.map(imageRead);
    },
  );

  /** A region read on upstream's v1 path (the organization in the path) and on v2's (by query), in that order. */
  const upstreamAndV2 = (
    tail: string,
    tag: string,
    what: string,
    item: TSchema,
    read: (request: FastifyRequest, regionID: string, organizationID: string | undefined, v1: boolean) => unknown,
  ) => {
    app.get(
      `/api/v1/organizations/:organizationID/regions/:regionID/${tail}`,
      { schema: doc(tag, `List ${what} (upstream path)`, { params: OrgRegionParams }, { 200: Type.Array(item) }) },
      (request) => read(request, request.params.regionID, request.params.organizationID, true),
    );
    app.get(
      `/api/v2/regions/:regionID/${tail}`,
      {
        schema: doc(
          tag,
          `List ${what}`,
          { params: RegionParams, querystring: OrganizationQuery },
          { 200: Type.Array(item) },
        ),
      },
      (request) => read(request, request.params.regionID, listOf(request.query.organizationID)?.[0], false),
    );
  };

  const flavors = async (
    request: FastifyRequest,
    regionID: string,
    organizationID: string | undefined,
    v1: boolean,
  ) => {
    const asked = organizationID === undefined ? undefined : [organizationID];
    const { region } = await inScope(request, regionID, asked, v1);
    const inventory = await access.inventoryOf(regionID);
    const items = await guard(() => inventory.flavors({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) }));
    return [...items].sort(byFlavorSize).map((f) => flavorRead(f, created(region)));
  };
  upstreamAndV2('flavors', 'Flavors', 'flavors', Flavor, flavors);

  const externalNetworks = async (
    request: FastifyRequest,
    regionID: string,
    organizationID: string | undefined,
    v1: boolean,
  ) => {
    await inScope(request, regionID, organizationID === undefined ? undefined : [organizationID], v1);
    if (caps.externalNetworks === undefined) throw problems.notImplemented('external networks');
    const items = await guard(
      () => caps.externalNetworks?.(regionID, AbortSignal.timeout(READ_TIMEOUT_MS)) ?? Promise.resolve([]),
    );
    return items.map((n) => ({ id: n.id, name: n.name }));
  };
  upstreamAndV2('externalnetworks', 'External networks', 'external networks', ExternalNetwork, externalNetworks);

  app.get(
    '/api/v2/regions/:regionID/volumeclasses',
    {
      schema: doc(
        'Volume classes',
        'List volume classes',
        { params: RegionParams, querystring: OrganizationQuery },
        { 200: Type.Array(VolumeClassV2) },
      ),
    },
    async (request) => {
      const { regionID } = request.params;
      const { region } = await inScope(request, regionID, listOf(request.query.organizationID), false);
      const inventory = await access.inventoryOf(regionID);
      const items = await guard(() => inventory.volumeClasses({ signal: AbortSignal.timeout(READ_TIMEOUT_MS) }));
      return items.map((c) => volumeClassRead(c, created(region)));
    },
  );
}

/** A provider read: not found stays not found; anything else is fixed text (the cause is never shown). */
export async function guard<R>(read: () => Promise<R>): Promise<R> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ResourceNotFoundError) throw problems.notFound('region');
    throw problems.unavailable('the region inventory cannot be read right now');
  }
}

/**
 * `/api/v2/servers`: the rules need the region's flavors and images, the named security groups and SSH CA, so
 * creating or updating a server needs the inventory capability as well as a running server controller.
 */
import type { FastifyRequest } from 'fastify';
import type { KubeObject } from '../../../kube/object.ts';
import {
  securityGroupType,
  serverType,
  sshCertificateAuthorityType,
  type Network,
  type Server,
} from '../../apis/index.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import type { Flavor, Image } from '../../provider/types.ts';
import type { Principal } from '../auth.ts';
import type { RegionInventory } from '../context.ts';
import { problems } from '../problem.ts';
import { visibleTo } from '../repository.ts';
import { tenancyOf } from '../resources/meta.ts';
import {
  serverCreateViolations,
  serverFor,
  serverRead,
  serverUpdateViolations,
  updatedServerSpec,
  type ServerReferences,
} from '../resources/server.ts';
import { ServerV2Create, ServerV2Read, ServerV2Update, type ServerV2Read as Read } from '../schemas/server.ts';
import { networkType } from '../../apis/index.ts';
import { childRoutes } from './children.ts';
import type { Api, RouteDeps } from './kit.ts';

export function serverRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const inventoryLookup = deps.capabilities.inventory;
  const signal = () => AbortSignal.timeout(30_000);

  const inventoryOf = async (regionID: string): Promise<RegionInventory> => {
    if (inventoryLookup === undefined) throw problems.notImplemented('the region inventory (flavors and images)');
    try {
      return await inventoryLookup(regionID, signal());
    } catch (error) {
      if (error instanceof ResourceNotFoundError) throw problems.notFound('region');
      throw problems.unavailable('the region inventory cannot be read right now');
    }
  };
  const flavorOf = async (inventory: RegionInventory, id: string): Promise<Flavor | undefined> =>
    (await inventory.flavors({ signal: signal() })).find((f) => f.id === id);
  const imageOf = async (
    inventory: RegionInventory,
    organizationID: string,
    id: string,
  ): Promise<Image | undefined> => {
    try {
      return await inventory.getImage({ signal: signal() }, organizationID, id);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) return undefined;
      throw problems.unavailable('the region inventory cannot be read right now');
    }
  };
  const visible = async (principal: Principal, type: typeof securityGroupType, id: string) => {
    const object = await repo.find<KubeObject>(type, id);
    return object !== undefined && visibleTo(principal, object) ? object : undefined;
  };

  childRoutes<Server, ServerV2Create, ServerV2Update, Read>(app, deps, {
    tag: 'Servers',
    path: '/api/v2/servers',
    param: 'serverID',
    type: serverType,
    what: 'server',
    createBody: ServerV2Create,
    updateBody: ServerV2Update,
    read: ServerV2Read,
    writable: deps.capabilities.controllers.servers && inventoryLookup !== undefined,
    capability: 'servers',
    networkIdOf: (body) => body.spec.networkId,
    validateCreate: async (body, network, principal) => {
      const { spec } = body;
      const tenancy = tenancyOf(network);
      const inventory = await inventoryOf(tenancy.regionID);
      const refs: ServerReferences = {
        flavor: await flavorOf(inventory, spec.flavorId),
        image: await imageOf(inventory, tenancy.organizationID, spec.imageId),
        checkImage: true,
        securityGroups: await Promise.all(
          (spec.networking?.securityGroups ?? []).map((id) => visible(principal, securityGroupType, id)),
        ),
        ...(spec.sshCertificateAuthorityId === undefined
          ? {}
          : {
              sshCertificateAuthority: await visible(
                principal,
                sshCertificateAuthorityType,
                spec.sshCertificateAuthorityId,
              ),
            }),
      };
      return serverCreateViolations(spec, network, refs);
    },
    build: (id, body, network, principal) => serverFor(id, body.metadata, body.spec, network, principal),
    validateUpdate: async (body, current, principal) => {
      const { spec } = body;
      const tenancy = tenancyOf(current);
      const network =
        (await repo.find<Network>(networkType, tenancy.networkID)) ??
        ({ metadata: { name: tenancy.networkID } } as Network);
      const imageChanged = spec.imageId !== current.spec.image?.id;
      const inventory = imageChanged ? await inventoryOf(tenancy.regionID) : undefined;
      const refs: ServerReferences = {
        flavor: inventory === undefined ? undefined : await flavorOf(inventory, current.spec.flavorID),
        ...(inventory === undefined ? {} : { image: await imageOf(inventory, tenancy.organizationID, spec.imageId) }),
        checkImage: imageChanged,
        securityGroups: await Promise.all(
          (spec.networking?.securityGroups ?? []).map((id) => visible(principal, securityGroupType, id)),
        ),
      };
      return serverUpdateViolations(spec, current, network, refs);
    },
    updateSpec: (body, current) => updatedServerSpec(body.spec, current, body.metadata.tags),
    toRead: serverRead,
  });
}

export const serverIdOf = (request: FastifyRequest): string => (request.params as { serverID: string }).serverID;

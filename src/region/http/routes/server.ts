/**
 * `/api/v2/servers`: the rules need the region's flavors and images, the named security groups and SSH CA, so
 * creating or updating a server needs the inventory capability as well as a running server controller.
 */
import type { FastifyRequest } from 'fastify';
import type { KubeObject } from '../../../kube/object.ts';
import type { ResourceType } from '../../../kube/resource-type.ts';
import {
  networkType,
  securityGroupType,
  serverType,
  sshCertificateAuthorityType,
  volumeType,
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
  duplicateServerMessage,
  renameViolations,
  serverCreateViolations,
  serverFor,
  serverIDFor,
  serverRead,
  serverUpdateViolations,
  updatedServerSpec,
  volumeConflicts,
  type ServerReferences,
} from '../resources/server.ts';
import {
  ServerV2Create,
  ServerV2Read,
  ServerV2Update,
  type ServerV2CreateSpec,
  type ServerV2Read as Read,
  type ServerV2Spec,
} from '../schemas/server.ts';
import { childRoutes } from './children.ts';
import { refuseInUse, type Api, type RouteDeps } from './kit.ts';

/**
 * What the server rules look up, for v2 and v1 alike: the flavor and image in the region's inventory, and the
 * security groups and SSH CA the body names, each undefined when absent or out of the principal's scope.
 */
export function serverLookups(deps: RouteDeps) {
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
  const visible = async <T extends KubeObject>(principal: Principal, type: ResourceType<T>, id: string) => {
    const object = await repo.find(type, id);
    return object !== undefined && visibleTo(principal, object) ? object : undefined;
  };
  const securityGroups = (principal: Principal, ids: readonly string[] | undefined) =>
    Promise.all((ids ?? []).map((id) => visible(principal, securityGroupType, id)));
  /** The named volumes, and which other server (any, in scope or not) claims or asks for each. */
  const volumes = async (principal: Principal, wanted: ServerV2Spec['volumes'], serverID?: string) => {
    if (wanted === undefined || wanted.length === 0) return { volumes: [], claimants: new Map<string, string>() };
    const named = await Promise.all(wanted.map((v) => visible(principal, volumeType, v.volumeId)));
    const claimants = new Map<string, string>();
    for (const server of await repo.unscoped(serverType)) {
      if (server.metadata.name === serverID) continue;
      for (const v of server.spec.volumes ?? []) claimants.set(v.id, server.metadata.name);
    }
    return { volumes: named, claimants };
  };

  return {
    /** A second server of one name on one network is a conflict with the first (upstream's 409). */
    refuseDuplicate: async (network: Network, name: string): Promise<void> => {
      // From the informers: the id is the network's and the name's, so a duplicate they do not show yet is refused
      // by the store's create all the same (ADR 0051).
      if ((await repo.findCached(serverType, serverIDFor(network.metadata.name, name))) !== undefined) {
        throw problems.conflict(duplicateServerMessage(name));
      }
    },
    /** What a create's rules need. */
    forCreate: async (spec: ServerV2CreateSpec, network: Network, principal: Principal): Promise<ServerReferences> => {
      const tenancy = tenancyOf(network);
      const inventory = await inventoryOf(tenancy.regionID);
      return {
        flavor: await flavorOf(inventory, spec.flavorId),
        image: await imageOf(inventory, tenancy.organizationID, spec.imageId),
        checkImage: true,
        securityGroups: await securityGroups(principal, spec.networking?.securityGroups),
        ...(await volumes(principal, spec.volumes)),
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
    },
    /** What an update's rules need: the inventory only when the image changes. */
    forUpdate: async (
      spec: ServerV2Spec,
      current: Server,
      principal: Principal,
    ): Promise<{ network: Network; refs: ServerReferences }> => {
      const tenancy = tenancyOf(current);
      // Its name and identity are all an update's rules read, and neither ever changes: the informers' copy (ADR 0051).
      const network =
        (await repo.findCached(networkType, tenancy.networkID)) ??
        ({ metadata: { name: tenancy.networkID, labels: current.metadata.labels } } as Network);
      const imageChanged = spec.imageId !== current.spec.image?.id;
      const inventory = imageChanged ? await inventoryOf(tenancy.regionID) : undefined;
      const refs: ServerReferences = {
        flavor: inventory === undefined ? undefined : await flavorOf(inventory, current.spec.flavorID),
        ...(inventory === undefined ? {} : { image: await imageOf(inventory, tenancy.organizationID, spec.imageId) }),
        checkImage: imageChanged,
        securityGroups: await securityGroups(principal, spec.networking?.securityGroups),
        ...(await volumes(principal, spec.volumes, current.metadata.name)),
      };
      return { network, refs };
    },
  };
}

export function serverRoutes(app: Api, deps: RouteDeps): void {
  const lookups = serverLookups(deps);

  childRoutes<Server, ServerV2Create, ServerV2Update, Read>(app, deps, {
    tag: 'Servers',
    path: '/api/v2/servers',
    param: 'serverID',
    type: serverType,
    what: 'server',
    createBody: ServerV2Create,
    updateBody: ServerV2Update,
    read: ServerV2Read,
    writable: deps.capabilities.controllers.servers && deps.capabilities.inventory !== undefined,
    capability: 'servers',
    limit: 'servers',
    networkIDOf: (body) => body.spec.networkId,
    validateCreate: async (body, network, principal) => {
      const refs = await lookups.forCreate(body.spec, network, principal);
      const errors = serverCreateViolations(body.spec, network, refs);
      if (errors.length === 0) {
        refuseInUse(volumeConflicts(body.spec.volumes, undefined, refs));
        await lookups.refuseDuplicate(network, body.metadata.name);
      }
      return errors;
    },
    // The id is the network's and the name's, not a fresh one: a duplicate the check above missed (a concurrent
    // create) is refused by the store itself.
    build: (_id, body, network, principal) =>
      serverFor(serverIDFor(network.metadata.name, body.metadata.name), body.metadata, body.spec, network, principal),
    validateUpdate: async (body, current, principal) => {
      const { network, refs } = await lookups.forUpdate(body.spec, current, principal);
      const errors = [
        ...renameViolations(body.metadata.name, current),
        ...serverUpdateViolations(body.spec, current, network, refs),
      ];
      if (errors.length === 0) refuseInUse(volumeConflicts(body.spec.volumes, current.metadata.name, refs));
      return errors;
    },
    updateSpec: (body, current) => updatedServerSpec(body.spec, current, body.metadata.tags),
    toRead: serverRead,
  });
}

export const serverIDOf = (request: FastifyRequest): string => (request.params as { serverID: string }).serverID;

/** `/api/v2/volumes` (openregion's v2-style path); writes need the volume controller and the region inventory. */
import { serverType, volumeType } from '../../apis/index.ts';
import { ResourceNotFoundError } from '../../provider/errors.ts';
import type { VolumeClass } from '../../provider/types.ts';
import { problems } from '../problem.ts';
import { tenancyOf } from '../resources/meta.ts';
import { capacityViolations, volumeFor, volumeRead, volumeUpdateViolations } from '../resources/volume.ts';
import { VolumeV2Create, VolumeV2Read, VolumeV2Update } from '../schemas/inventory.ts';
import { childRoutes, withTags } from './children.ts';
import type { Api, RouteDeps } from './kit.ts';

export function volumeRoutes(app: Api, deps: RouteDeps): void {
  const lookup = deps.capabilities.inventory;
  const classOf = async (regionID: string, id: string): Promise<VolumeClass | undefined> => {
    if (lookup === undefined) throw problems.notImplemented('the region inventory (volume classes)');
    try {
      const inventory = await lookup(regionID, AbortSignal.timeout(30_000));
      return (await inventory.volumeClasses({ signal: AbortSignal.timeout(30_000) })).find((c) => c.id === id);
    } catch (error) {
      if (error instanceof ResourceNotFoundError) return undefined;
      throw problems.unavailable('the region inventory cannot be read right now');
    }
  };

  /** The server whose spec.volumes names the volume, if any (its claim may not be set yet). */
  const requestedBy = async (id: string): Promise<string | undefined> =>
    (await deps.repository.unscoped(serverType)).find((s) => s.spec.volumes?.some((v) => v.id === id))?.metadata.name;

  childRoutes(app, deps, {
    tag: 'Volumes',
    path: '/api/v2/volumes',
    param: 'volumeID',
    type: volumeType,
    what: 'volume',
    createBody: VolumeV2Create,
    updateBody: VolumeV2Update,
    read: VolumeV2Read,
    writable: deps.capabilities.controllers.volumes && lookup !== undefined,
    capability: 'volumes',
    limit: 'volumes',
    networkIDOf: (body) => body.spec.networkId,
    validateCreate: async (body, network) =>
      capacityViolations(body.spec, await classOf(tenancyOf(network).regionID, body.spec.volumeClassId)),
    build: (id, body, network, principal) => volumeFor(id, body.metadata, body.spec, network, principal),
    validateUpdate: async (body, current) =>
      volumeUpdateViolations(body.spec, current, await classOf(tenancyOf(current).regionID, body.spec.volumeClassId)),
    updated: (body, current) => ({
      metadata: body.metadata,
      spec: withTags({ ...current.spec, size: `${String(body.spec.sizeGiB)}Gi` }, body.metadata),
    }),
    toRead: volumeRead,
    refuseDelete: async (current) => {
      const holder = current.spec.claimRef?.id ?? (await requestedBy(current.metadata.name));
      if (holder !== undefined) {
        throw problems.conflict(
          `the volume is attached to (or requested by) server ${holder}; remove it from that server's spec.volumes first`,
        );
      }
    },
  });
}

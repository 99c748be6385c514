/**
 * Upstream's v1 servers: a server in a named identity, on one of its networks; the Server object v2 reads, checked
 * by the v2 rules and reconciled by the same controller. Power actions and the console on the v1 paths too.
 */
import Type, { type Static } from 'typebox';
import { networkType, serverType, type Server } from '../../apis/index.ts';
import { problems, violation } from '../problem.ts';
import { visibleTo } from '../repository.ts';
import { tenancyOf } from '../resources/meta.ts';
import {
  duplicateServerMessage,
  renameViolations,
  serverCreateViolations,
  serverFor,
  serverIDFor,
  serverUpdateViolations,
  updatedServerSpec,
} from '../resources/server.ts';
import {
  asV1Violation,
  asV2Spec,
  asV2UpdateSpec,
  serverV1Read,
  serverV1UpdateViolations,
  withAddressPairs,
} from '../resources/server-v1.ts';
import { Uuid } from '../schemas/common.ts';
import { ServerRead, ServerWrite } from '../schemas/server-v1.ts';
import { identityInPath, IdentityParams } from './identity.ts';
import { identityChildRoutes } from './identity-children.ts';
import { refuseIf, type Api, type RequestWithParams, type RouteDeps } from './kit.ts';
import { powerAndConsoleRoutes } from './server-actions.ts';
import { serverLookups } from './server.ts';

const TAG = 'Servers (v1)';
const IDENTITY_PATH = '/api/v1/organizations/:organizationID/projects/:projectID/identities/:identityID';
const ServerParams = Type.Object({ ...IdentityParams.properties, serverID: Uuid('The server.') });

export function serverV1Routes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const lookups = serverLookups(deps);

  identityChildRoutes(app, deps, {
    tag: TAG,
    collection: 'servers',
    param: 'serverID',
    type: serverType,
    what: 'server',
    write: ServerWrite,
    read: ServerRead,
    writable: deps.capabilities.controllers.servers && deps.capabilities.inventory !== undefined,
    capability: 'servers',
    limit: 'servers',
    create: async (_id, body, identity, principal) => {
      const spec = asV2Spec(body.spec, body.spec.imageId);
      const network = await repo.find(networkType, spec.networkId);
      // Upstream's v1 documents 400 for a body naming what is not there: no 422.
      if (network === undefined || !visibleTo(principal, network)) {
        throw problems.badRequest([violation('/spec/networks/0/id', 'exists', 'no such network')]);
      }
      if (tenancyOf(network).identityID !== identity.metadata.name) {
        throw problems.badRequest([
          violation('/spec/networks/0/id', 'sameIdentity', 'the network must belong to the identity of the server'),
        ]);
      }
      if (network.metadata.deletionTimestamp !== undefined) {
        throw problems.badRequest([violation('/spec/networks/0/id', 'notDeleting', 'the network is being deleted')]);
      }
      const refs = await lookups.forCreate(spec, network, principal);
      refuseIf(serverCreateViolations(spec, network, refs).map(asV1Violation), 'badRequest');
      // One id per network and name, as v2 has it (ADR 0034); v1 refuses with its documented 400.
      const id = serverIDFor(network.metadata.name, body.metadata.name);
      if ((await repo.find(serverType, id)) !== undefined) {
        throw problems.badRequest([violation('/metadata/name', 'unique', duplicateServerMessage(body.metadata.name))]);
      }
      const server = serverFor(id, body.metadata, spec, network, principal);
      return { ...server, spec: withAddressPairs(server.spec, body.spec) };
    },
    update: async (body, current, principal) => {
      const spec = asV2UpdateSpec(body.spec, current);
      const { network, refs } = await lookups.forUpdate(spec, current, principal);
      refuseIf(
        [
          ...renameViolations(body.metadata.name, current),
          ...serverV1UpdateViolations(body.spec, current),
          ...serverUpdateViolations(spec, current, network, refs).map(asV1Violation),
        ],
        'badRequest',
      );
      return {
        metadata: body.metadata,
        spec: withAddressPairs(updatedServerSpec(spec, current, body.metadata.tags), body.spec),
      };
    },
    toRead: serverV1Read,
  });

  const find = async (request: RequestWithParams<Static<typeof ServerParams>>): Promise<Server> => {
    const { identity, principal } = await identityInPath(repo, request);
    const { serverID } = request.params;
    const server = await repo.get(serverType, principal, serverID, 'server');
    if (tenancyOf(server).identityID !== identity.metadata.name) throw problems.notFound('server');
    return server;
  };
  powerAndConsoleRoutes(app, deps, {
    server: `${IDENTITY_PATH}/servers/:serverID`,
    params: ServerParams,
    tag: TAG,
    find,
  });
}

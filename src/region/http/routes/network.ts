/** `/api/v2/networks`: create runs upstream's small saga (identity, then network; undo on failure). */
import { canAccess } from '../auth.ts';
import {
  identityDependentTypes,
  identityType,
  isNetworkServicePrincipal,
  isOnNetwork,
  labels,
  NETWORK_SERVICE_PRINCIPAL_ANNOTATION,
  networkType,
  referencesOf,
  type Identity,
  type Network,
} from '../../apis/index.ts';
import { principalOf } from '../principal.ts';
import { problems, violation } from '../problem.ts';
import {
  mutableSpec,
  networkIdentityFor,
  networkFor,
  networkRead,
  routeViolations,
  validateNetworkCreate,
} from '../resources/network.ts';
import { tenancyOf, updatedMetadata } from '../resources/meta.ts';
import { NetworkV2Create, NetworkV2Read, NetworkV2Update } from '../schemas/network.ts';
import Type from 'typebox';
import { Accepted, doc, IDParams, listFilters, ListQuery, refuseIf, type Api, type RouteDeps } from './kit.ts';
import { defined } from '../../../util/defined.ts';

const TAG = 'Networks';
const Params = IDParams('networkID');

/**
 * True when `identity` is `network`'s own service principal and holds nothing but the network and what is on it, so
 * deleting the identity removes nothing the network's delete did not name (docs/adr/0034-server-identity-and-delete-blast-radius.md).
 */
async function holdsOnly(repo: RouteDeps['repository'], identity: Identity, network: Network): Promise<boolean> {
  if (!isNetworkServicePrincipal(identity)) return false;
  const own = identity.metadata.annotations?.[NETWORK_SERVICE_PRINCIPAL_ANNOTATION];
  if (own !== undefined && own !== network.metadata.name) return false;
  for (const type of identityDependentTypes) {
    for (const object of await repo.unscoped(type, `${labels.identityID}=${identity.metadata.name}`)) {
      if (object.metadata.name !== network.metadata.name && !isOnNetwork(object, network)) return false;
    }
  }
  return true;
}

export function networkRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const find = (request: Parameters<typeof principalOf>[0], id: string) =>
    repo.get(networkType, principalOf(request), id, 'network');

  app.get(
    '/api/v2/networks',
    { schema: doc(TAG, 'List networks', { querystring: ListQuery }, { 200: Type.Array(NetworkV2Read) }) },
    async (request) => {
      const { networkID: _, ...filters } = listFilters(request.query);
      const items = await repo.list(networkType, principalOf(request), filters);
      return items.map(networkRead);
    },
  );

  app.post(
    '/api/v2/networks',
    { schema: doc(TAG, 'Create a network', { body: NetworkV2Create }, { 201: NetworkV2Read }) },
    async (request, reply) => {
      const principal = principalOf(request);
      const { spec } = request.body;
      if (!canAccess(principal, spec.organizationId, spec.projectId)) throw problems.notFound('project');
      refuseIf(validateNetworkCreate(spec));
      const region = await repo.region(spec.regionId, spec.organizationId);
      if (region === undefined) {
        throw problems.invalid([violation('/spec/regionId', 'exists', 'no such region')]);
      }
      const networkID = deps.newID();
      const identityID = deps.newID();
      // The network's identity is a cloud project too: both limits hold for the pair, admitted together.
      const network = await deps.limits.admit(
        spec.organizationId,
        [
          { kind: 'identities', name: identityID },
          { kind: 'networks', name: networkID },
        ],
        async () => {
          const identity = await repo.create(
            identityType,
            networkIdentityFor(identityID, networkID, spec, principal, region.spec.provider),
          );
          try {
            return await repo.create(
              networkType,
              networkFor(networkID, request.body.metadata, spec, identity, principal),
            );
          } catch (error) {
            await repo.delete(identityType, identity.metadata.name).catch(() => undefined);
            throw error;
          }
        },
      );
      return reply.code(201).send(networkRead(network));
    },
  );

  app.get(
    '/api/v2/networks/:networkID',
    { schema: doc(TAG, 'Get a network', { params: Params }, { 200: NetworkV2Read }) },
    async (request) => networkRead(await find(request, request.params.networkID)),
  );

  app.put(
    '/api/v2/networks/:networkID',
    {
      schema: doc(
        TAG,
        "Update a network's mutable fields",
        { params: Params, body: NetworkV2Update },
        { 202: NetworkV2Read },
      ),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const current = await find(request, request.params.networkID);
      refuseIf(routeViolations(request.body.spec.routes, current.spec.prefix));
      const tags = request.body.metadata.tags;
      const { tags: _, dnsNameservers: _d, routes: _r, ...kept } = current.spec;
      const updated = await repo.update(networkType, {
        ...current,
        metadata: updatedMetadata(current.metadata, request.body.metadata, principal, deps.clock.now()),
        spec: { ...kept, ...mutableSpec(request.body.spec), ...defined({ tags }) },
      });
      return reply.code(202).send(networkRead(updated));
    },
  );

  app.delete(
    '/api/v2/networks/:networkID',
    { schema: doc(TAG, 'Delete a network and everything on it', { params: Params }, { 202: Accepted }) },
    async (request, reply) => {
      const network = await find(request, request.params.networkID);
      if (network.metadata.deletionTimestamp !== undefined) return reply.code(202).send();
      // Upstream: a network another service holds a reference on is refused, not queued for deletion.
      if (referencesOf(network).length > 0) throw problems.forbidden('the network is in use and cannot be deleted');
      // The network and what is on it (its controller's cascade), and its own identity only when nothing else
      // lives there: a v1 network, server or security group made in that identity is not this delete's to remove.
      await repo.delete(networkType, network.metadata.name);
      const identity = await repo.find(identityType, tenancyOf(network).identityID);
      if (identity !== undefined && (await holdsOnly(repo, identity, network))) {
        await repo.delete(identityType, identity.metadata.name);
      }
      return reply.code(202).send();
    },
  );
}

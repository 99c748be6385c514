/**
 * `/api/v2/networks/{networkID}/references/{reference}` (upstream's hidden reference API): another service that
 * builds on a network (a Kubernetes cluster, a file store) holds a reference on it, and the network is not deleted
 * while any is held. A reference is a finalizer named for its holder, as upstream core has it: the v2 delete
 * refuses (403) while one is held, and a delete that comes another way (v1, the identity's) waits, the network
 * reading deprovisioning until the last reference is released. Both calls are idempotent.
 */
import Type from 'typebox';
import { isReservedFinalizer, networkType, REFERENCE_PATTERN, type Network } from '../../apis/index.ts';
import { principalOf } from '../principal.ts';
import { problems, violation } from '../problem.ts';
import { Uuid } from '../schemas/common.ts';
import { doc, type Api, type RouteDeps } from './kit.ts';

const TAG = 'Networks';
const PATH = '/api/v2/networks/:networkID/references/:reference';

const Params = Type.Object({
  networkID: Uuid('The network.'),
  reference: Type.String({
    minLength: 1,
    maxLength: 317,
    description: 'The holder, `<resource>.<group>/<id>`; a `/` in it is sent as %2F.',
  }),
});

const Added = Type.Null({ description: 'The reference is held (or already was).' });
const Removed = Type.Null({ description: 'The reference is released (or was never held).' });

export function networkReferenceRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;

  app.put(
    PATH,
    {
      schema: doc(
        TAG,
        'Hold a reference on a network: it is not deleted until released',
        { params: Params },
        { 201: Added },
      ),
    },
    async (request, reply) => {
      const { networkID, reference } = request.params;
      const principal = principalOf(request);
      if (!new RegExp(REFERENCE_PATTERN).test(reference) || isReservedFinalizer(reference)) {
        throw problems.schema([
          violation('/reference', 'pattern', 'a reference is a qualified name, <resource>.<group>/<id>'),
        ]);
      }
      await repo.edit<Network>(networkType, async () => {
        const network = await repo.get(networkType, principal, networkID, 'network');
        if (network.metadata.deletionTimestamp !== undefined) {
          throw problems.schema([
            violation('/networkID', 'notDeleting', 'unable to add reference, the network is being deleted'),
          ]);
        }
        const finalizers = network.metadata.finalizers ?? [];
        return finalizers.includes(reference) ? undefined : withFinalizers(network, [...finalizers, reference]);
      });
      return reply.code(201).send();
    },
  );

  app.delete(
    PATH,
    { schema: doc(TAG, 'Release a reference on a network', { params: Params }, { 204: Removed }) },
    async (request, reply) => {
      const { networkID, reference } = request.params;
      const principal = principalOf(request);
      // The provisioner's and the garbage collector's finalizers are no reference: nobody may release those here.
      if (isReservedFinalizer(reference)) throw problems.forbidden(`${reference} is not a reference`);
      await repo.edit<Network>(networkType, async () => {
        const network = await repo.get(networkType, principal, networkID, 'network');
        const finalizers = network.metadata.finalizers ?? [];
        return finalizers.includes(reference)
          ? withFinalizers(
              network,
              finalizers.filter((f) => f !== reference),
            )
          : undefined;
      });
      return reply.code(204).send();
    },
  );
}

const withFinalizers = (network: Network, finalizers: string[]): Network => ({
  ...network,
  metadata: { ...network.metadata, finalizers },
});

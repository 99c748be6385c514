/** Upstream's v1 networks: a network in a named identity, the same Network object v2 reads (at least a /24). */
import { networkType } from '../../apis/index.ts';
import { networkFor } from '../resources/network.ts';
import { networkV1Read, networkV1Violations } from '../resources/network-v1.ts';
import { NetworkRead, NetworkWrite } from '../schemas/network-v1.ts';
import { identityChildRoutes } from './identity-children.ts';
import { refuseIf, type Api, type RouteDeps } from './kit.ts';

export function networkV1Routes(app: Api, deps: RouteDeps): void {
  identityChildRoutes(app, deps, {
    tag: 'Networks (v1)',
    collection: 'networks',
    param: 'networkID',
    type: networkType,
    what: 'network',
    write: NetworkWrite,
    read: NetworkRead,
    writable: true,
    capability: 'networks',
    limit: 'networks',
    create: (id, body, identity, principal) => {
      refuseIf(networkV1Violations(body.spec), 'badRequest');
      return Promise.resolve(networkFor(id, body.metadata, body.spec, identity, principal));
    },
    toRead: networkV1Read,
    deletion: 'Foreground',
  });
}

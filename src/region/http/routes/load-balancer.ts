/** `/api/v2/loadbalancers`; writes need the load-balancer controller. */
import { loadBalancerType } from '../../apis/index.ts';
import {
  loadBalancerCreateViolations,
  loadBalancerFor,
  loadBalancerRead,
  loadBalancerUpdateViolations,
  updatedLoadBalancerSpec,
} from '../resources/load-balancer.ts';
import { LoadBalancerV2Create, LoadBalancerV2Read, LoadBalancerV2Update } from '../schemas/load-balancer.ts';
import { childRoutes } from './children.ts';
import type { Api, RouteDeps } from './kit.ts';

export function loadBalancerRoutes(app: Api, deps: RouteDeps): void {
  childRoutes(app, deps, {
    tag: 'Load balancers',
    path: '/api/v2/loadbalancers',
    param: 'loadBalancerID',
    type: loadBalancerType,
    what: 'load balancer',
    createBody: LoadBalancerV2Create,
    updateBody: LoadBalancerV2Update,
    read: LoadBalancerV2Read,
    writable: deps.capabilities.controllers.loadBalancers,
    capability: 'load balancers',
    limit: 'load-balancers',
    networkIDOf: (body) => body.spec.networkId,
    validateCreate: (body, network) => Promise.resolve(loadBalancerCreateViolations(body.spec, network)),
    build: (id, body, network, principal) => loadBalancerFor(id, body.metadata, body.spec, network, principal),
    validateUpdate: (body, current) => Promise.resolve(loadBalancerUpdateViolations(body.spec, current)),
    updated: (body, current) => ({
      metadata: body.metadata,
      spec: updatedLoadBalancerSpec(body.spec, current, body.metadata.tags),
    }),
    toRead: loadBalancerRead,
  });
}

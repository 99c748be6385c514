/**
 * The tenant's kinds by their REST collection name (`/api/v2/<collection>`): the store type, the path parameter, the
 * word a 404 uses and the read shape the REST API answers. The Events route and the watch stream read them, so both
 * answer in the collection's own terms and authorise exactly as its GET does.
 */
import type { KubeObject } from '../../kube/object.ts';
import type { ResourceType } from '../../kube/resource-type.ts';
import { loadBalancerType, networkType, securityGroupType, serverType, volumeType } from '../apis/index.ts';
import { loadBalancerRead } from './resources/load-balancer.ts';
import { networkRead } from './resources/network.ts';
import { securityGroupRead } from './resources/security-group.ts';
import { serverRead } from './resources/server.ts';
import { volumeRead } from './resources/volume.ts';

interface TenantKind<T extends KubeObject = KubeObject> {
  readonly type: ResourceType<T>;
  readonly param: string;
  readonly what: string;
  readonly read: (object: T) => unknown;
}

const kind = <T extends KubeObject>(k: TenantKind<T>): TenantKind => k as unknown as TenantKind;

export const TENANT_KINDS = {
  networks: kind({ type: networkType, param: 'networkID', what: 'network', read: networkRead }),
  securitygroups: kind({
    type: securityGroupType,
    param: 'securityGroupID',
    what: 'security group',
    read: securityGroupRead,
  }),
  servers: kind({ type: serverType, param: 'serverID', what: 'server', read: serverRead }),
  loadbalancers: kind({
    type: loadBalancerType,
    param: 'loadBalancerID',
    what: 'load balancer',
    read: loadBalancerRead,
  }),
  volumes: kind({ type: volumeType, param: 'volumeID', what: 'volume', read: volumeRead }),
} as const satisfies Readonly<Record<string, TenantKind>>;

export type Collection = keyof typeof TENANT_KINDS;

export const COLLECTIONS = Object.keys(TENANT_KINDS) as Collection[];

/** `/api/v2/securitygroups`. */
import { securityGroupType, serverType, serversUsingSecurityGroup, type SecurityGroup } from '../../apis/index.ts';
import { problems } from '../problem.ts';
import { rulesOf, securityGroupFor, securityGroupRead, validateRules } from '../resources/security-group.ts';
import {
  SecurityGroupV2Create,
  SecurityGroupV2Read,
  SecurityGroupV2Update,
  type SecurityGroupV2Read as Read,
} from '../schemas/security-group.ts';
import { childRoutes, withTags } from './children.ts';
import type { Api, RouteDeps } from './kit.ts';

export function securityGroupRoutes(app: Api, deps: RouteDeps): void {
  childRoutes<SecurityGroup, SecurityGroupV2Create, SecurityGroupV2Update, Read>(app, deps, {
    tag: 'Security groups',
    path: '/api/v2/securitygroups',
    param: 'securityGroupID',
    type: securityGroupType,
    what: 'security group',
    createBody: SecurityGroupV2Create,
    updateBody: SecurityGroupV2Update,
    read: SecurityGroupV2Read,
    writable: true,
    capability: 'security groups',
    limit: 'security-groups',
    networkIDOf: (body) => body.spec.networkId,
    validateCreate: (body) => Promise.resolve(validateRules(body.spec.rules)),
    build: (id, body, network, principal) => securityGroupFor(id, body.metadata, body.spec, network, principal),
    validateUpdate: (body) => Promise.resolve(validateRules(body.spec.rules)),
    updateSpec: (body, current) => withTags({ ...current.spec, rules: rulesOf(body.spec.rules) }, body.metadata),
    toRead: securityGroupRead,
    // Upstream refuses a group in use (403); its deletion would otherwise wait on Neutron's 409 for as long as
    // the server lives.
    refuseDelete: async (current) => {
      const [user] = serversUsingSecurityGroup(await deps.repository.unscoped(serverType), current.metadata.name);
      if (user !== undefined) {
        throw problems.forbidden(
          `security group is in use and cannot be deleted: server ${user.metadata.name} names it; remove it from that server's spec.networking.securityGroups first`,
        );
      }
    },
  });
}

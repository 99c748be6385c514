/** Upstream's v1 security groups: in a named identity, on no network; the SecurityGroup object v2 reads. */
import { securityGroupType } from '../../apis/index.ts';
import {
  ruleV1Violations,
  securityGroupV1For,
  securityGroupV1Read,
  updatedSecurityGroupV1Spec,
} from '../resources/security-group-v1.ts';
import { SecurityGroupRead, SecurityGroupWrite } from '../schemas/security-group-v1.ts';
import { identityChildRoutes } from './identity-children.ts';
import { refuseIf, type Api, type RouteDeps } from './kit.ts';

export function securityGroupV1Routes(app: Api, deps: RouteDeps): void {
  identityChildRoutes(app, deps, {
    tag: 'Security groups (v1)',
    collection: 'securitygroups',
    param: 'securityGroupID',
    type: securityGroupType,
    what: 'security group',
    write: SecurityGroupWrite,
    read: SecurityGroupRead,
    writable: true,
    capability: 'security groups',
    limit: 'security-groups',
    create: (id, body, identity, principal) => {
      refuseIf(ruleV1Violations(body.spec.rules), 'badRequest');
      return Promise.resolve(securityGroupV1For(id, body, identity, principal));
    },
    update: (body, current) => {
      refuseIf(ruleV1Violations(body.spec.rules), 'badRequest');
      return Promise.resolve({ metadata: body.metadata, spec: updatedSecurityGroupV1Spec(body, current) });
    },
    toRead: securityGroupV1Read,
  });
}

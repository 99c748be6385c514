/**
 * Upstream's v1 identities (`/api/v1/organizations/{org}/…/identities`): a v1 client names the service principal
 * its resources live in. An identity made here is the same Identity object v2 makes implicitly for each network,
 * so v2 networks' identities are listed here too, and what v1 makes under an identity is reconciled by the same
 * controllers. Deleting one removes what it owns first (foreground), then the cloud project.
 */
import Type from 'typebox';
import { identityType, openstackIdentityType, type Identity } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import { problems, violation } from '../problem.ts';
import type { Repository } from '../repository.ts';
import { identityFor, identityRead } from '../resources/identity.ts';
import { tenancyOf } from '../resources/meta.ts';
import { Uuid } from '../schemas/common.ts';
import { IdentityRead, IdentityWrite } from '../schemas/identity.ts';
import {
  Accepted,
  doc,
  listFilters,
  OrganizationParams,
  ProjectParams,
  scopedPrincipal,
  type Api,
  type RequestWithParams,
  type RouteDeps,
} from './kit.ts';

const TAG = 'Identities';
export const IdentityParams = Type.Object({ ...ProjectParams.properties, identityID: Uuid('The identity.') });
export type IdentityParams = Type.Static<typeof IdentityParams>;

/** The identity a v1 path names, in the organization and project it names; 404 unless it is there. */
export async function identityInPath(
  repo: Repository,
  request: RequestWithParams<IdentityParams>,
): Promise<{ identity: Identity; principal: Principal }> {
  const { organizationID, projectID, identityID } = request.params;
  const principal = scopedPrincipal(request, organizationID, projectID);
  const identity = await repo.get(identityType, principal, identityID, 'identity');
  const tenancy = tenancyOf(identity);
  if (tenancy.organizationID !== organizationID || tenancy.projectID !== projectID) {
    throw problems.notFound('identity');
  }
  return { identity, principal };
}

export function identityRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const read = async (identity: Identity) =>
    identityRead(identity, await repo.find(openstackIdentityType, identity.metadata.name));

  app.get(
    '/api/v1/organizations/:organizationID/identities',
    {
      schema: doc(
        TAG,
        "List the organization's identities",
        { params: OrganizationParams },
        {
          200: Type.Array(IdentityRead),
        },
      ),
    },
    async (request) => {
      const { organizationID } = request.params;
      const principal = scopedPrincipal(request, organizationID);
      const identities = await repo.list(identityType, principal, listFilters({ organizationID }));
      return Promise.all(identities.map(read));
    },
  );

  app.post(
    '/api/v1/organizations/:organizationID/projects/:projectID/identities',
    {
      schema: doc(
        TAG,
        'Create an identity in a region',
        { params: ProjectParams, body: IdentityWrite },
        {
          201: IdentityRead,
        },
      ),
    },
    async (request, reply) => {
      const { organizationID, projectID } = request.params;
      const principal = scopedPrincipal(request, organizationID, projectID);
      const { metadata, spec } = request.body;
      const region = await repo.region(spec.regionId, organizationID);
      // Upstream documents 400 here (no 404 or 422): the body names a region the organization cannot use.
      if (region === undefined) throw problems.badRequest([violation('/spec/regionId', 'exists', 'no such region')]);
      const tenancy = { organizationID, projectID, regionID: spec.regionId };
      const object = identityFor(deps.newID(), metadata, tenancy, principal, region.spec.provider);
      // Each identity is a cloud project: the organization's limit on them (docs/adr/0041-organization-limits.md).
      const identity = await deps.limits.admit(
        organizationID,
        [{ kind: 'identities', name: object.metadata.name }],
        () => repo.create(identityType, object),
      );
      return reply.code(201).send(identityRead(identity, undefined));
    },
  );

  app.get(
    '/api/v1/organizations/:organizationID/projects/:projectID/identities/:identityID',
    { schema: doc(TAG, 'Get an identity', { params: IdentityParams }, { 200: IdentityRead }) },
    async (request) => read((await identityInPath(repo, request)).identity),
  );

  app.delete(
    '/api/v1/organizations/:organizationID/projects/:projectID/identities/:identityID',
    {
      schema: doc(
        TAG,
        'Delete an identity and everything made in it',
        { params: IdentityParams },
        {
          202: Accepted,
        },
      ),
    },
    async (request, reply) => {
      const { identity } = await identityInPath(repo, request);
      if (identity.metadata.deletionTimestamp === undefined) {
        // Foreground, as upstream: what the identity owns goes first, then its controller removes the project.
        await repo.delete(identityType, identity.metadata.name, 'Foreground');
      }
      return reply.code(202).send();
    },
  );
}

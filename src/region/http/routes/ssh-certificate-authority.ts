/** `/api/v2/sshcertificateauthorities`: project-scoped trust anchors servers name at create; no update. */
import Type from 'typebox';
import { sshCertificateAuthorityType, type SSHCertificateAuthority } from '../../apis/index.ts';
import { canAccess } from '../auth.ts';
import { principalOf } from '../principal.ts';
import { problems } from '../problem.ts';
import { newMetadata, resource } from '../resources/meta.ts';
import { readMetadataOf } from '../status.ts';
import {
  SSHCertificateAuthorityV2Create,
  SSHCertificateAuthorityV2Read,
  type SSHCertificateAuthorityV2Read as Read,
} from '../schemas/inventory.ts';
import { Accepted, doc, IDParams, listFilters, ListQuery, type Api, type RouteDeps } from './kit.ts';
import { defined } from '../../../util/defined.ts';

const TAG = 'SSH certificate authorities';
const PATH = '/api/v2/sshcertificateauthorities';
const Params = IDParams('sshCertificateAuthorityID');

function sshCertificateAuthorityRead(ca: SSHCertificateAuthority): Read {
  return { metadata: readMetadataOf(ca, 'provisioned'), spec: { publicKey: ca.spec.publicKey } };
}

export function sshCertificateAuthorityRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const type = sshCertificateAuthorityType;

  app.get(
    PATH,
    {
      schema: doc(
        TAG,
        'List SSH certificate authorities',
        { querystring: ListQuery },
        { 200: Type.Array(SSHCertificateAuthorityV2Read) },
      ),
    },
    async (request) => {
      const { organizationID, projectID, tag } = listFilters(request.query);
      const items = await repo.list(type, principalOf(request), {
        organizationID,
        projectID,
        tag,
      });
      return items.map(sshCertificateAuthorityRead);
    },
  );

  app.post(
    PATH,
    {
      schema: doc(
        TAG,
        'Create an SSH certificate authority',
        { body: SSHCertificateAuthorityV2Create },
        { 201: SSHCertificateAuthorityV2Read },
      ),
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { metadata, spec } = request.body;
      if (!canAccess(principal, spec.organizationId, spec.projectId)) throw problems.notFound('project');
      // Not tied to a region: the region label is left empty, as upstream leaves it.
      const tenancy = { organizationID: spec.organizationId, projectID: spec.projectId, regionID: '' };
      const { labels = {}, ...meta } = newMetadata(deps.newID(), metadata, tenancy, principal);
      const { 'regions.unikorn-cloud.org/region-id': _, ...kept } = labels;
      const created = await repo.create(
        type,
        resource(
          'SSHCertificateAuthority',
          { ...meta, labels: kept },
          {
            publicKey: spec.publicKey.trim(),
            ...defined({ tags: metadata.tags }),
          },
        ) as SSHCertificateAuthority,
      );
      return reply.code(201).send(sshCertificateAuthorityRead(created));
    },
  );

  app.get(
    `${PATH}/:sshCertificateAuthorityID`,
    {
      schema: doc(TAG, 'Get an SSH certificate authority', { params: Params }, { 200: SSHCertificateAuthorityV2Read }),
    },
    async (request) =>
      sshCertificateAuthorityRead(
        await repo.get(
          type,
          principalOf(request),
          request.params.sshCertificateAuthorityID,
          'SSH certificate authority',
        ),
      ),
  );

  app.delete(
    `${PATH}/:sshCertificateAuthorityID`,
    { schema: doc(TAG, 'Delete an SSH certificate authority', { params: Params }, { 202: Accepted }) },
    async (request, reply) => {
      const ca = await repo.get(
        type,
        principalOf(request),
        request.params.sshCertificateAuthorityID,
        'SSH certificate authority',
      );
      await repo.delete(type, ca.metadata.name);
      return reply.code(202).send();
    },
  );
}

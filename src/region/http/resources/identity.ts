/**
 * Identities, pure: the Identity object both API generations make (v2 implicitly, one per network; v1 by name),
 * and upstream's v1 read of it, which says where the identity lives in OpenStack and hands out no credential.
 */
import type { Identity, OpenstackIdentity, Region } from '../../apis/index.ts';
import type { Principal } from '../auth.ts';
import type { ResourceWriteMetadata } from '../schemas/common.ts';
import type { IdentityRead } from '../schemas/identity.ts';
import { readMetadataOf } from '../status.ts';
import { newMetadata, resource, tenancyOf, type Tenancy } from './meta.ts';
import { defined } from '../../../util/defined.ts';

/** The Identity for a tenancy: realised by the region's provider, owning what is made in it. */
export function identityFor(
  id: string,
  metadata: ResourceWriteMetadata,
  tenancy: Tenancy,
  principal: Principal,
  provider: Region['spec']['provider'],
): Identity {
  return resource('Identity', newMetadata(id, metadata, tenancy, principal), {
    provider,
    ...defined({ tags: metadata.tags }),
  }) as Identity;
}

/** The v1 read; `record` is the identity's OpenStack record once the controller has written it. */
export function identityRead(identity: Identity, record: OpenstackIdentity | undefined): IdentityRead {
  const spec = record?.spec;
  const openstack = {
    ...defined({
      cloud: spec?.cloud,
      userId: spec?.userID,
      projectId: spec?.projectID,
      serverGroupId: spec?.serverGroupID,
      sshKeyName: spec?.sshKeyName,
    }),
  };
  return {
    metadata: readMetadataOf(identity),
    spec: {
      type: identity.spec.provider,
      regionId: tenancyOf(identity).regionID,
      ...(identity.spec.provider === 'openstack' && record !== undefined ? { openstack } : {}),
    },
  };
}

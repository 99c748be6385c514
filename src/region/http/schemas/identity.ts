/**
 * Identities (upstream's v1 `identityWrite`, `identityRead`): a tenant's service principal in a region. v2 makes one
 * implicitly for each network; v1 names them. The read carries what a client addresses the cloud project by, never
 * its credentials: upstream's clouds.yaml (an application credential) and SSH private key are left out.
 */
import Type from 'typebox';
import { ProjectScopedResourceReadMetadata, ResourceWriteMetadata, Uuid } from './common.ts';
import { RegionType } from './region.ts';

export const IdentityWrite = Type.Object({
  metadata: ResourceWriteMetadata,
  spec: Type.Object({ regionId: Uuid('The region to provision the identity in.') }),
});
export type IdentityWrite = Type.Static<typeof IdentityWrite>;

const IdentityOpenStack = Type.Object(
  {
    cloud: Type.Optional(Type.String({ description: 'The name of the cloud in the cloud config.' })),
    userId: Type.Optional(Type.String({ description: 'The Keystone user of the identity.' })),
    projectId: Type.Optional(Type.String({ description: 'The Keystone project of the identity.' })),
    serverGroupId: Type.Optional(Type.String({ description: 'The Nova server group of the identity.' })),
    sshKeyName: Type.Optional(Type.String({ description: 'The Nova keypair of the identity.' })),
  },
  { description: 'Where the identity lives in OpenStack; no credentials.' },
);

export const IdentityRead = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: Type.Object({
    type: RegionType,
    regionId: Type.String({ description: 'The region the identity is provisioned in.' }),
    openstack: Type.Optional(IdentityOpenStack),
  }),
});
export type IdentityRead = Type.Static<typeof IdentityRead>;

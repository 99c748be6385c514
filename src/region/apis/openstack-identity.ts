/**
 * OpenstackIdentity: the database record of what the identity reconciler created in Keystone, with the same name
 * and namespace as its Identity. The one thing persisted because it cannot be re-derived (secrets, IDs).
 * Every field is filled as provisioning progresses, so all are optional.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { Bytes, envelope, regionResourceType } from './shared.ts';

export const openstackIdentityType = regionResourceType<OpenstackIdentity>('OpenstackIdentity', 'openstackidentities');

const Text = (description: string) => Type.Optional(Type.String({ description }));

export const OpenstackIdentitySpec = Type.Object({
  cloudConfig: Type.Optional(Bytes('clouds.yaml holding the application credential.')),
  cloud: Text('The cloud in cloudConfig, "cloud".'),
  userID: Text('The Keystone user.'),
  password: Text('The Keystone user password.'),
  projectID: Text('The Keystone project.'),
  applicationCredentialID: Text('The application credential.'),
  applicationCredentialSecret: Text('The application credential secret.'),
  serverGroupID: Text('The Nova server group.'),
  sshKeyName: Text('The Nova keypair.'),
  sshPrivateKey: Type.Optional(Bytes('The keypair private key, PEM.')),
});
export type OpenstackIdentitySpec = Type.Static<typeof OpenstackIdentitySpec>;

export const OpenstackIdentitySchema = envelope('The Keystone resources of an Identity.', {
  spec: OpenstackIdentitySpec,
  status: Type.Optional(Type.Object({})),
});

export type OpenstackIdentity = Resource<OpenstackIdentitySpec, Record<string, never>>;

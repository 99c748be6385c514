/** Identity: a tenant's service principal in a region, realised as a Keystone project, user and credential. */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { Conditions, Provider, commonSpec, envelope, regionResourceType } from './shared.ts';

export const identityType = regionResourceType<Identity>('Identity', 'identities');

const IdentitySpec = Type.Object({ ...commonSpec, provider: Provider });
type IdentitySpec = Type.Static<typeof IdentitySpec>;

/** conditions: Available, owned by the identity reconciler. */
const IdentityStatus = Type.Object({ conditions: Type.Optional(Conditions) });
type IdentityStatus = Type.Static<typeof IdentityStatus>;

export const IdentitySchema = envelope('A service principal in a region.', {
  spec: IdentitySpec,
  status: Type.Optional(IdentityStatus),
});

export type Identity = Resource<IdentitySpec, IdentityStatus>;

/** Volume: a Cinder volume (`volume-{name}` in the identity's project), attached through Server.spec.volumes. */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import { Conditions, ID, Quantity, commonSpec, envelope, regionResourceType } from './shared.ts';

export const volumeType = regionResourceType<Volume>('Volume', 'volumes');

export const VolumeSpec = Type.Object({
  ...commonSpec,
  networkID: Type.Optional(ID('The Network whose identity owns it.')),
  volumeClassID: ID('The volume class (Cinder volume type).'),
  size: Quantity('The size, e.g. 10Gi.'),
  claimRef: Type.Optional(
    Type.Object({
      kind: Type.Enum(['Server'], { description: 'The claiming kind.' }),
      id: ID('The claiming resource.'),
    }),
  ),
});
export type VolumeSpec = Type.Static<typeof VolumeSpec>;

const VolumeStatus = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
  conditions: Type.Optional(Conditions),
  size: Type.Optional(Quantity('The provisioned size.')),
});
type VolumeStatus = Type.Static<typeof VolumeStatus>;

export const VolumeSchema = envelope('A block storage volume.', {
  spec: VolumeSpec,
  status: Type.Optional(VolumeStatus),
});

export type Volume = Resource<VolumeSpec, VolumeStatus>;

/**
 * The reference a Server holds on a Volume it claims (with `spec.claimRef`), set before it attaches and removed once
 * it has detached: like any reference, it holds the Volume's deletion until released.
 */
export const serverClaimFinalizer = (serverID: string): string => `servers.${volumeType.group}/${serverID}`;

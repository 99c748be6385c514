/** Regions as upstream's v1 API reads them (`regionRead`, `regionDetailRead`). */
import Type from 'typebox';
import { ResourceReadMetadata } from './common.ts';

export const RegionType = Type.Enum(['openstack', 'kubernetes', 'simulated'], {
  description: "The region's provider type.",
});

const RegionFeatures = Type.Object({
  physicalNetworks: Type.Boolean({
    description: 'The region provisions physical (VLAN) networks, as baremetal machines need.',
  }),
});

const regionSpec = { type: RegionType, features: RegionFeatures };

export const RegionRead = Type.Object({ metadata: ResourceReadMetadata, spec: Type.Object(regionSpec) });
export type RegionRead = Type.Static<typeof RegionRead>;

/** The detail view; upstream's adds a Kubernetes region's kubeconfig, a credential this service never hands out. */
export const RegionDetailRead = Type.Object({
  metadata: ResourceReadMetadata,
  spec: Type.Object(regionSpec, { description: 'The region; no credentials.' }),
});
export type RegionDetailRead = Type.Static<typeof RegionDetailRead>;

/**
 * Region: one cloud region and its provider configuration (reference §2, §5 "Region OpenStack config"). Operator
 * written; the provider reads it, nothing reconciles it into OpenStack.
 */
import Type from 'typebox';
import type { Resource } from '../../kube/object.ts';
import {
  Architecture,
  Bytes,
  Conditions,
  GPUVendor,
  ID,
  Provider,
  Quantity,
  envelope,
  regionResourceType,
} from './shared.ts';

export const regionType = regionResourceType<Region>('Region', 'regions');

const SecretRef = Type.Object({
  namespace: Type.String({ minLength: 1, description: 'The secret namespace.' }),
  name: Type.String({ minLength: 1, description: 'The secret name.' }),
});

const IDSelector = Type.Object({
  ids: Type.Optional(Type.Array(ID('An ID.'), { description: 'Only these IDs are exported.' })),
});

const CPU = Type.Object({
  architecture: Type.Optional(Architecture),
  count: Type.Optional(Type.Integer({ minimum: 1, description: 'Overrides the CPU count.' })),
  family: Type.Optional(Type.String({ description: 'A CPU family, e.g. Intel Xeon Platinum 8160.' })),
});

const GPU = Type.Object({
  vendor: GPUVendor,
  model: Type.String({ minLength: 1, description: 'The GPU model.' }),
  memory: Type.Optional(Quantity('Memory per GPU.')),
  physicalCount: Type.Integer({ minimum: 1, description: 'Physical GPUs (cards).' }),
  logicalCount: Type.Integer({ minimum: 1, description: 'Logical GPUs exposed (e.g. MI300X partitions).' }),
});

const FlavorMetadata = Type.Object({
  id: ID('The Nova flavor ID.'),
  baremetal: Type.Optional(Type.Boolean({ description: 'The flavor deploys through Ironic.' })),
  cpu: Type.Optional(CPU),
  memory: Type.Optional(Quantity('Overrides the memory size.')),
  gpu: Type.Optional(GPU),
  pinnedOnly: Type.Optional(Type.Boolean({ description: 'Only servers pinned to a host may use it.' })),
});

const Compute = Type.Object({
  serverGroupPolicy: Type.Optional(
    Type.Enum(['affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity'], {
      description: 'The Nova server group policy of each identity.',
    }),
  ),
  placementPreflight: Type.Optional(
    Type.Object({
      enabled: Type.Optional(Type.Boolean({ description: 'Checks placement before creating a pinned server.' })),
      requiredTraits: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Extra traits.' })),
    }),
  ),
  flavors: Type.Optional(
    Type.Object({
      selector: Type.Optional(IDSelector),
      metadata: Type.Optional(Type.Array(FlavorMetadata, { description: 'Per-flavor overrides.' })),
    }),
  ),
});

const VLANSegment = Type.Object(
  {
    startId: Type.Integer({ minimum: 1, maximum: 4094, description: 'The first VLAN ID.' }),
    endId: Type.Integer({ minimum: 1, maximum: 4094, description: 'The last VLAN ID.' }),
  },
  { 'x-kubernetes-validations': [{ rule: 'self.startId <= self.endId', message: 'startId must not exceed endId' }] },
);

const Network = Type.Object({
  externalNetworks: Type.Optional(
    Type.Object({
      selector: Type.Optional(
        Type.Object({
          ids: Type.Optional(Type.Array(ID('A network ID.'))),
          tags: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Neutron tags.' })),
        }),
      ),
    }),
  ),
  providerNetworks: Type.Optional(
    Type.Object({
      physicalNetwork: Type.Optional(Type.String({ minLength: 1, description: 'The physnet for VLANs.' })),
      vlan: Type.Optional(
        Type.Object({
          segments: Type.Optional(Type.Array(VLANSegment, { description: 'Allocatable ranges; default 1-4094.' })),
        }),
      ),
    }),
  ),
});

const VolumeClassMetadata = Type.Object(
  {
    id: ID('The Cinder volume type ID.'),
    media: Type.Optional(Type.Enum(['hdd', 'ssd', 'nvme'], { description: 'The storage media.' })),
    performance: Type.Optional(
      Type.Object({
        maxIOPS: Type.Optional(Type.Integer({ minimum: 1 })),
        maxThroughputMiBps: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
    ),
    encrypted: Type.Optional(Type.Boolean()),
    minCapacityGiB: Type.Optional(Type.Integer({ minimum: 1, description: 'The smallest volume, whole GiB.' })),
    maxCapacityGiB: Type.Optional(Type.Integer({ minimum: 1, description: 'The largest volume, whole GiB.' })),
    supportedFlavors: Type.Optional(
      Type.Object(
        { selector: Type.Optional(IDSelector) },
        { description: 'Flavors its volumes may attach to; omitted or empty IDs mean any flavor.' },
      ),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.minCapacityGiB) || !has(self.maxCapacityGiB) || self.maxCapacityGiB >= self.minCapacityGiB',
        message: 'maxCapacityGiB must be at least minCapacityGiB',
      },
    ],
  },
);

export const RegionOpenstack = Type.Object({
  endpoint: Type.String({ minLength: 1, description: 'The Keystone endpoint.' }),
  serviceAccountSecret: SecretRef,
  defaultArchitecture: Type.Optional(
    Type.Enum(['x86_64', 'aarch64'], { default: 'x86_64', description: 'Architecture of flavors without one.' }),
  ),
  identity: Type.Optional(
    Type.Object({
      clusterRoles: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'Roles granted.' })),
    }),
  ),
  compute: Type.Optional(Compute),
  image: Type.Optional(
    Type.Object({
      selector: Type.Optional(
        Type.Object({ signingKey: Type.Optional(Bytes('PEM public key images must be signed by.')) }),
      ),
    }),
  ),
  network: Type.Optional(Network),
  blockStorage: Type.Optional(
    Type.Object({
      volumeClasses: Type.Optional(
        Type.Object({
          selector: Type.Optional(IDSelector),
          metadata: Type.Optional(Type.Array(VolumeClassMetadata)),
        }),
      ),
    }),
  ),
});
export type RegionOpenstack = Type.Static<typeof RegionOpenstack>;

const KubernetesNode = Type.Object({
  id: ID('The node ID.'),
  name: Type.String({ minLength: 1 }),
  cpu: Type.Optional(
    Type.Object({ count: Type.Optional(Type.Integer({ minimum: 1 })), family: Type.Optional(Type.String()) }),
  ),
  memory: Type.Optional(Quantity('Node memory.')),
  gpu: Type.Optional(GPU),
});

export const RegionSpec = Type.Object(
  {
    provider: Provider,
    security: Type.Optional(
      Type.Object({
        organizations: Type.Optional(
          Type.Array(Type.Object({ id: ID('An organization ID.') }), {
            description: 'When set, only these organizations see the region.',
          }),
        ),
      }),
    ),
    kubernetes: Type.Optional(
      Type.Object({
        kubeConfigSecret: SecretRef,
        nodes: Type.Optional(Type.Array(KubernetesNode)),
        domainName: Type.Optional(Type.String({ minLength: 1 })),
      }),
    ),
    openstack: Type.Optional(RegionOpenstack),
  },
  {
    'x-kubernetes-validations': [
      { rule: "self.provider != 'openstack' || has(self.openstack)", message: 'openstack provider requires openstack' },
      {
        rule: "self.provider != 'kubernetes' || has(self.kubernetes)",
        message: 'kubernetes provider requires kubernetes',
      },
    ],
  },
);
export type RegionSpec = Type.Static<typeof RegionSpec>;

const RegionStatus = Type.Object({ conditions: Type.Optional(Conditions) });
type RegionStatus = Type.Static<typeof RegionStatus>;

export const RegionSchema = envelope('A cloud region and its provider.', {
  spec: RegionSpec,
  status: Type.Optional(RegionStatus),
});

export type Region = Resource<RegionSpec, RegionStatus>;

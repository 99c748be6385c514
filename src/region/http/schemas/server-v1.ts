/**
 * Servers as upstream's v1 API writes and reads them (`serverWrite`, `serverRead`): security groups and networks as
 * objects with ids, one network, allowed address pairs with an optional MAC, and a phase. v1 cannot change a
 * server's image (upstream ignores it on update); only v2 rebuilds.
 */
import Type from 'typebox';
import { MAC_ADDRESS_PATTERN } from '../../apis/index.ts';
import { ID, Ipv4Prefix, ProjectScopedResourceReadMetadata, ResourceWriteMetadata, Uuid } from './common.ts';
import { BASE64_PATTERN, InstanceLifecyclePhase } from './server.ts';

const AddressPair = Type.Object(
  {
    cidr: Ipv4Prefix('A prefix the port may also use.'),
    macAddress: Type.Optional(Type.String({ pattern: MAC_ADDRESS_PATTERN, description: 'A MAC to allow with it.' })),
  },
  { additionalProperties: false },
);

const ServerNetworkV1 = Type.Object(
  {
    id: Uuid('The network, one of the identity’s.'),
    allowedAddressPairs: Type.Optional(Type.Array(AddressPair, { maxItems: 32 })),
  },
  { additionalProperties: false },
);

const Spec = Type.Object(
  {
    flavorId: ID('The flavor; immutable.'),
    imageId: ID('The image; set at create, ignored on update (v1 cannot rebuild).'),
    securityGroups: Type.Optional(
      Type.Array(Type.Object({ id: Uuid('A security group.') }, { additionalProperties: false }), { maxItems: 32 }),
    ),
    publicIPAllocation: Type.Optional(
      Type.Object({ enabled: Type.Boolean({ description: 'Whether to allocate a public IP.' }) }),
    ),
    networks: Type.Array(ServerNetworkV1, { minItems: 1, maxItems: 1, description: 'The network (exactly one).' }),
    userData: Type.Optional(
      Type.String({
        format: 'byte',
        pattern: BASE64_PATTERN,
        maxLength: 87_384,
        description: 'Base64 cloud-init user data.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ServerWrite = Type.Object({ metadata: ResourceWriteMetadata, spec: Spec });
export type ServerWrite = Type.Static<typeof ServerWrite>;

export const ServerRead = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: Spec,
  status: Type.Object({
    phase: Type.Optional(InstanceLifecyclePhase),
    privateIP: Type.Optional(Type.String()),
    publicIP: Type.Optional(Type.String()),
  }),
});
export type ServerRead = Type.Static<typeof ServerRead>;

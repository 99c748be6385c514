/** Servers (upstream `serverV2*`) and their actions' bodies. */
import Type from 'typebox';
import { DEVICE_PATTERN } from '../../apis/index.ts';
import {
  ID,
  Ipv4Prefix,
  ProjectScopedResourceReadMetadata,
  ProvisioningStatus,
  ResourceWriteMetadata,
} from './common.ts';

const SSHInjection = Type.Enum(['ca', 'identityKeypair', 'none'], {
  description: 'The create-time SSH access material; ca when a CA is named, else identityKeypair.',
});

export const InstanceLifecyclePhase = Type.Enum(['Pending', 'Queued', 'Building', 'Running', 'Stopping', 'Stopped'], {
  description: 'The live lifecycle of the server; Running is "ready to use".',
});

const ServerV2Networking = Type.Object(
  {
    securityGroups: Type.Optional(Type.Array(ID('A security group ID.'), { maxItems: 32 })),
    publicIP: Type.Optional(Type.Boolean({ description: 'Whether to provision a public IP.' })),
    allowedSourceAddresses: Type.Optional(
      Type.Array(Ipv4Prefix('A prefix allowed to egress from the server.'), { maxItems: 32 }),
    ),
  },
  { additionalProperties: false },
);

const ServerV2Volume = Type.Object(
  {
    volumeId: ID('A volume on the same network as the server, attached to (or requested by) no other server.'),
    device: Type.Optional(
      Type.String({
        pattern: DEVICE_PATTERN,
        maxLength: 32,
        description: 'The guest device to ask for, e.g. /dev/vdb; a hint the cloud may not honour.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** Base64 (standard alphabet, padded), what `format: byte` means. */
export const BASE64_PATTERN = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

const specProperties = {
  flavorId: ID('The server flavor; immutable.'),
  imageId: ID('The desired image; changing it rebuilds the server, destroying its root disk.'),
  networking: Type.Optional(ServerV2Networking),
  volumes: Type.Optional(
    Type.Array(ServerV2Volume, {
      maxItems: 16,
      description:
        'Volumes to attach, in order (each attaches once the ones before it have); an update that leaves one out detaches it.',
    }),
  ),
  userData: Type.Optional(
    Type.String({
      format: 'byte',
      pattern: BASE64_PATTERN,
      maxLength: 87_384,
      description:
        'Base64 cloud-init user data, given to the server when it is created. A change is stored but never reaches a running server: an image rebuild keeps the create-time user data, so it applies only when the server is created again (a failed build retried, or a new server).',
    }),
  ),
};

export const ServerV2Spec = Type.Object(specProperties, { additionalProperties: false });
export type ServerV2Spec = Type.Static<typeof ServerV2Spec>;

export const ServerV2CreateSpec = Type.Object(
  {
    ...specProperties,
    networkId: ID('The network to attach the server to.'),
    sshCertificateAuthorityId: Type.Optional(ID('The SSH certificate authority trusted at create.')),
    sshInjection: Type.Optional(SSHInjection),
    infrastructureRef: Type.Optional(ID('Pins the server to a host.')),
  },
  { additionalProperties: false },
);
export type ServerV2CreateSpec = Type.Static<typeof ServerV2CreateSpec>;

export const ServerV2Create = Type.Object({ metadata: ResourceWriteMetadata, spec: ServerV2CreateSpec });
export type ServerV2Create = Type.Static<typeof ServerV2Create>;

export const ServerV2Update = Type.Object({ metadata: ResourceWriteMetadata, spec: ServerV2Spec });
export type ServerV2Update = Type.Static<typeof ServerV2Update>;

const ServerV2Status = Type.Object({
  regionId: Type.String(),
  networkId: Type.String(),
  sshCertificateAuthorityId: Type.Optional(Type.String()),
  sshInjection: Type.Optional(SSHInjection),
  infrastructureRef: Type.Optional(Type.String()),
  powerState: Type.Optional(InstanceLifecyclePhase),
  privateIP: Type.Optional(Type.String()),
  publicIP: Type.Optional(Type.String()),
  macAddress: Type.Optional(Type.String()),
  volumes: Type.Optional(
    Type.Array(
      Type.Object({
        volumeId: Type.String(),
        provisioningStatus: ProvisioningStatus,
        device: Type.Optional(Type.String({ description: 'The guest device the cloud reports.' })),
        message: Type.Optional(Type.String()),
      }),
      { description: 'Where each attachment is: attaching, attached, detaching or in error (with why).' },
    ),
  ),
});

export const ServerV2Read = Type.Object({
  metadata: ProjectScopedResourceReadMetadata,
  spec: ServerV2Spec,
  status: ServerV2Status,
});
export type ServerV2Read = Type.Static<typeof ServerV2Read>;

export const ConsoleSession = Type.Object({ url: Type.String({ description: 'The console URL.' }) });
export const ConsoleOutput = Type.Object({ contents: Type.String({ description: 'The console log.' }) });
export const SshKey = Type.Object({ privateKey: Type.String({ description: 'The SSH private key, PEM.' }) });

export const ConsoleOutputQuery = Type.Object({
  length: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'The last N lines.' })),
});

export const SnapshotCreate = Type.Object({
  metadata: ResourceWriteMetadata,
  spec: Type.Object({}, { description: 'The snapshot takes its specification from the server image.' }),
});
export type SnapshotCreate = Type.Static<typeof SnapshotCreate>;

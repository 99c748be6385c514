/**
 * Server: a Nova server in an identity's project. Spec is the user's intent; status fields name their one writer
 * (reconciler or monitor), since observations are stimulus, never authorisation.
 */
import Type from 'typebox';
import type { ConditionInput } from '../../kube/conditions.ts';
import type { Resource } from '../../kube/object.ts';
import {
  Bytes,
  Conditions,
  ID,
  IPv4Address,
  IPv4Prefix,
  Provider,
  Timestamp,
  commonSpec,
  envelope,
  regionResourceType,
  type ActiveReason,
} from './shared.ts';

export const serverType = regionResourceType<Server>('Server', 'servers');

export const MAC_ADDRESS_PATTERN = '^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$';

export const SSHInjection = Type.Enum(['ca', 'identityKeypair', 'none'], {
  description: 'How SSH access is set up; unset means ca when a CA is named, else identityKeypair.',
});
export type SSHInjection = Type.Static<typeof SSHInjection>;

/** ServerSpec.ResolvedSSHInjection upstream: unset means `ca` with a CA, else `identityKeypair`. */
export function resolveSSHInjection(mode: SSHInjection | undefined, hasCertificateAuthority: boolean): SSHInjection {
  return mode ?? (hasCertificateAuthority ? 'ca' : 'identityKeypair');
}

const Ref = (description: string) => Type.Object({ id: ID(description) });

/** A guest device name (`/dev/vdb`): a hint the cloud may not honour; the status row reports the device it chose. */
export const DEVICE_PATTERN = '^/dev/[a-z][a-z0-9]*$';

/** One attachment the server wants, in order: volumes attach one after another, so devices follow the list. */
const ServerVolume = Type.Object({
  id: ID('The Volume; one of the identity the server runs in, claimed by no other server.'),
  device: Type.Optional(
    Type.String({ pattern: DEVICE_PATTERN, maxLength: 32, description: 'The guest device to ask for (a hint).' }),
  ),
});

const ServerNetwork = Type.Object({
  id: ID('The Network.'),
  allowedAddressPairs: Type.Optional(
    Type.Array(
      Type.Object({
        cidr: IPv4Prefix('Addresses the port may also use.'),
        macAddress: Type.Optional(Type.String({ pattern: MAC_ADDRESS_PATTERN })),
      }),
    ),
  ),
});

export const ServerSpec = Type.Object(
  {
    ...commonSpec,
    provider: Type.Optional(Provider),
    flavorID: ID('The flavor; immutable.'),
    image: Type.Optional(Ref('The image; a change rebuilds the server.')),
    securityGroups: Type.Optional(Type.Array(Ref('A SecurityGroup.'))),
    publicIPAllocation: Type.Optional(Type.Object({ enabled: Type.Boolean({ description: 'Attach a floating IP.' }) })),
    networks: Type.Array(ServerNetwork, { minItems: 1, description: 'The networks; only the first is used.' }),
    volumes: Type.Optional(
      Type.Array(ServerVolume, {
        maxItems: 16,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        description: 'Volumes to attach, in order; removing one detaches it.',
      }),
    ),
    sshCertificateAuthorityID: Type.Optional(ID('The SSHCertificateAuthority.')),
    sshInjection: Type.Optional(SSHInjection),
    userData: Type.Optional(
      Bytes(
        'cloud-init user data, given at create; a rebuild keeps the create-time data, so a change reaches no running server.',
      ),
    ),
    infrastructureRef: Type.Optional(ID('Pins the server to a host (placement resource provider UUID or name).')),
  },
  {
    'x-kubernetes-validations': [
      { rule: 'self.flavorID == oldSelf.flavorID', message: 'flavorID is immutable', fieldPath: '.flavorID' },
      {
        rule: 'has(self.infrastructureRef) == has(oldSelf.infrastructureRef) && (!has(self.infrastructureRef) || self.infrastructureRef == oldSelf.infrastructureRef)',
        message: 'infrastructureRef is immutable',
        fieldPath: '.infrastructureRef',
      },
      {
        rule: "!has(self.sshInjection) || self.sshInjection != 'identityKeypair' || !has(self.sshCertificateAuthorityID)",
        message: 'identityKeypair cannot be combined with sshCertificateAuthorityID',
        fieldPath: '.sshInjection',
      },
      {
        rule: "!has(self.sshInjection) || self.sshInjection != 'ca' || has(self.sshCertificateAuthorityID)",
        message: 'ca needs sshCertificateAuthorityID',
        fieldPath: '.sshInjection',
      },
      {
        rule: "!has(self.sshInjection) || self.sshInjection != 'none' || !has(self.sshCertificateAuthorityID)",
        message: 'none cannot be combined with sshCertificateAuthorityID',
        fieldPath: '.sshInjection',
      },
      {
        // The resolved mode: unset without a CA is identityKeypair, whose key_name a pinned create cannot send.
        rule: "!has(self.infrastructureRef) || (has(self.sshInjection) ? self.sshInjection != 'identityKeypair' : has(self.sshCertificateAuthorityID))",
        message:
          'infrastructureRef cannot be combined with identityKeypair (what an unset sshInjection without sshCertificateAuthorityID resolves to)',
        fieldPath: '.sshInjection',
      },
    ],
  },
);
export type ServerSpec = Type.Static<typeof ServerSpec>;

/** An attachment row: the server reconciler's view of one spec.volumes entry. */
const ServerVolumeStatus = Type.Object({
  id: ID('The Volume.'),
  provisioningStatus: Type.Enum(['Provisioning', 'Provisioned', 'Errored', 'Deprovisioning'], {
    description: 'Where the attachment is.',
  }),
  device: Type.Optional(Type.String({ description: 'The guest device, when the cloud reports one.' })),
  message: Type.Optional(Type.String({ description: 'A cause-neutral message.' })),
});
type ServerVolumeStatus = Type.Static<typeof ServerVolumeStatus>;

export const ServerStatus = Type.Object({
  /** Available (reconciler), Healthy (monitor; rebuild accept/park), Active (monitor; rebuild accept). */
  conditions: Type.Optional(Conditions),
  /** Monitor-owned: what the last poll saw in Nova. */
  observed: Type.Optional(
    Type.Object({
      generation: Type.Optional(Type.Integer({ minimum: 0, description: 'The spec generation of the poll.' })),
      image: Type.Optional(ID('The image Nova reports; sticky across unreadable refs.')),
      errored: Type.Optional(Type.Boolean({ description: 'Nova reports ERROR.' })),
      imageUnreadable: Type.Optional(
        Type.Boolean({ description: "Nova's image ref could not be read; absent once it reads again." }),
      ),
    }),
  ),
  privateIP: Type.Optional(IPv4Address('The first network address.')),
  publicIP: Type.Optional(IPv4Address('The floating IP.')),
  /** Monitor-owned, written once ACTIVE, never cleared. */
  macAddress: Type.Optional(Type.String({ pattern: MAC_ADDRESS_PATTERN, description: 'The port MAC.' })),
  launchedAt: Type.Optional(Timestamp('Nova launched_at.')),
  scheduledAt: Type.Optional(Timestamp('When Nova scheduled the server.')),
  /** Monitor-owned write-once latch: the server has booted, so create-retry must never recreate it. */
  provisionedAt: Type.Optional(Timestamp('First seen booted.')),
  providerCreateFailures: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Failed creates so far.' }),
  ),
  providerCreateRetrying: Type.Optional(Type.Boolean({ description: 'A failed create is being retried.' })),
  rebuild: Type.Optional(
    Type.Object({
      targetImageID: ID('The image being rebuilt to.'),
      state: Type.Enum(['Initiated', 'Rebuilding', 'Succeeded', 'Failed']),
    }),
  ),
  volumes: Type.Optional(Type.Array(ServerVolumeStatus, { description: 'Attachment rows.' })),
});
export type ServerStatus = Type.Static<typeof ServerStatus>;

export const ServerSchema = envelope('A server.', { spec: ServerSpec, status: Type.Optional(ServerStatus) });

export type Server = Resource<ServerSpec, ServerStatus>;

/**
 * The servers whose spec names the security group: each holds it through its port, so Neutron refuses the group's
 * delete (409) until the server lets go (upstream's server provisioner holds a reference on each group it uses).
 */
export function serversUsingSecurityGroup(servers: readonly Server[], securityGroupID: string): Server[] {
  return servers.filter((s) => (s.spec.securityGroups ?? []).some((g) => g.id === securityGroupID));
}

// The status conventions the reconciler and the monitor both write: the Active condition (its message a function
// of its reason alone) and the fixed stamp an accepted rebuild writes (Active Rebuilding, Healthy Unknown), which is
// what the monitor maps a REBUILD to, so the two writers agree rather than churn.

export const HEALTH_UNKNOWN_MESSAGE = 'unable to determine server status';

const ACTIVE_MESSAGES: Readonly<Record<ActiveReason, string>> = {
  Pending: 'the server is awaiting provider scheduling',
  Queued: 'the server is queued awaiting hardware',
  Building: 'the server is being built',
  Rebuilding: 'the server is being rebuilt',
  Running: 'the server is running',
  Stopping: 'the server is stopping',
  Stopped: 'the server is stopped',
  Error: 'the server is in an error state',
};

/** The Active condition for a reason: True only while Running, the message a function of the reason alone. */
export function activeCondition(reason: ActiveReason): ConditionInput {
  return { type: 'Active', status: reason === 'Running' ? 'True' : 'False', reason, message: ACTIVE_MESSAGES[reason] };
}

/** Written on a 2xx to a rebuild and re-asserted on R3, never derived from the 202 body. */
export const REBUILD_ACCEPTED_STAMP: readonly [ConditionInput, ConditionInput] = [
  activeCondition('Rebuilding'),
  { type: 'Healthy', status: 'Unknown', reason: 'Unknown', message: HEALTH_UNKNOWN_MESSAGE },
];
